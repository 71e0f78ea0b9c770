// Run: open the driver, apply the plan, drive the flows for warm-up + duration, repeat; spread
// the independent (scenario, repetition) runs over `jobs` threads when the driver runs in virtual
// time. Results are identical for a seed whatever the job count.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/suite/compile.hpp"
#include "qb/engine/measurement.hpp"
#include "qb/suite/suite.hpp"

namespace qb::engine {

struct RunOptions {
  std::string driver;            // empty: the suite's [driver] name
  std::optional<uint64_t> seed;  // overrides every scenario's seed
  std::optional<uint32_t> repetitions;
  std::optional<int64_t> duration_ns;
  uint32_t jobs = 0;  // 0: all cores
  /// `--eal "..."`: replaces the suite's [driver.dpdk] eal list.
  std::optional<std::vector<std::string>> eal;
  /// Workers per repetition (real drivers: one per lcore); 0: as many as the driver offers,
  /// at most one per flow.
  uint32_t workers = 0;
  const std::atomic<bool>* interrupted = nullptr;  // set by a signal handler to stop early
  /// Called (from any worker thread, serialised) when a repetition finishes.
  std::function<void(uint32_t scenario, uint32_t repetition, uint32_t done, uint32_t total)>
      on_progress;
};

struct ScenarioRun {
  suite::CompiledScenario compiled;
  uint64_t seed = 0;
  uint32_t repetitions = 0;
  int64_t warmup_ns = 0;
  int64_t duration_ns = 0;
  int64_t bin_ns = 0;
  std::vector<RepetitionMeasurement> reps;  // in repetition order
  std::vector<FlowLatency> latency;         // per flow instance, merged over repetitions
};

struct SuiteRun {
  std::string driver;
  uint32_t workers = 1;  // per repetition
  std::string clock;     // the clock latency was measured with
  uint32_t jobs = 1;
  bool complete = true;
  bool sender_only = false;  // the driver only sends: nothing here to judge (its receiver does)
  double wall_seconds = 0.0;
  std::vector<policy::Warning> warnings;  // from compiling the scenarios
  std::vector<ScenarioRun> scenarios;
};

Result<SuiteRun> run_suite(const suite::Suite& suite, const RunOptions& options);

/// The driver parameters of a suite's [driver.*] options with the command line's overrides.
drv::DriverParams driver_params(const suite::Suite& suite, const RunOptions& options);

}  // namespace qb::engine
