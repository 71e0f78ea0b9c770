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
#include "qb/engine/live.hpp"
#include "qb/engine/measurement.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite.hpp"

namespace qb::engine {

/// One (scenario, repetition) run as it left the process that ran it: what a multi-process
/// run (cluster/) hands to the process that merges and judges.
struct RepetitionOutcome {
  uint32_t scenario = 0;
  uint32_t repetition = 0;
  uint32_t workers = 1;
  std::string clock;  // the clock its latency was measured with
  RepetitionMeasurement measurement;
  std::vector<FlowLatency> latency;  // per flow instance
};

/// Spreads a suite's (scenario, repetition) tasks over processes (MPI ranks). This process
/// runs the tasks `runs_here` picks (tasks are numbered scenario by scenario, repetition by
/// repetition); `exchange` gets what they gave — their outcomes, or the first error — and
/// returns every process's outcomes on the process that merges (the others get none), or the
/// error any process had. Every process calls `exchange` exactly once, errors included, so
/// that none waits for one that gave up.
struct TaskSpread {
  std::function<bool(size_t task)> runs_here;
  std::function<Result<std::vector<RepetitionOutcome>>(Result<std::vector<RepetitionOutcome>>)>
      exchange;
};

/// A rank of a multi-host job on real devices (cluster/): its driver sees the plan as one
/// host's (every flow on host 0, no switch: the fabric is real), it drives only the flows of
/// `drive_host` (unset: none — a receiver), and `at_start` lines its windows up with the
/// other ranks'.
struct HostRole {
  std::optional<uint32_t> drive_host;
  /// A fabric job (a suite's [topology]): host h is played by rank fabric_host_ranks[h], and
  /// every rank receives the flows destined to its host besides sending its own (drive_host);
  /// every driver then takes part in `exchange`. Empty: a one-receiver job.
  std::vector<uint32_t> fabric_host_ranks;
  uint32_t rank = 0;  // this process's rank
  /// This rank's job clock minus the receiver's (the receiver's own: 0), handed to the driver
  /// as Topology::job_clock_offset_ns.
  int64_t clock_offset_to_receiver_ns = 0;
  /// Called once per repetition with how this rank's driver start went (open, apply, start),
  /// before any flow is driven; returns the job's answer: an error when any rank failed (the
  /// repetition then does not run here either). Must be called by every rank alike.
  std::function<Status(const Status& mine)> at_start;
  /// Called once per repetition that started, after this rank's flows ended and before its
  /// driver stops; returns when every rank's flows have ended (an error: some rank never
  /// did). A rank that tore its receive side down (QPs, memory regions) while another still
  /// posts to it would fail that rank's RDMA writes. Must be called by every rank alike.
  std::function<Status()> at_end;
  /// The job's all-gather for drivers that connect endpoints across hosts
  /// (Capabilities::exchanges_endpoints): every rank's bytes in rank order, or the first
  /// rank's error on every rank. Called once per repetition by every rank alike, with this
  /// rank's error when its driver failed before exchanging.
  std::function<Result<std::vector<std::string>>(const Result<std::string>& mine)> exchange;
};

struct RunOptions {
  std::optional<uint64_t> seed;  // overrides every scenario's seed
  std::optional<uint32_t> repetitions;
  std::optional<int64_t> duration_ns;
  uint32_t jobs = 0;  // 0: all cores
  /// Workers per repetition (real drivers: one per lcore); 0: as many as the driver offers,
  /// at most one per flow.
  uint32_t workers = 0;
  const std::atomic<bool>* interrupted = nullptr;  // set by a signal handler to stop early
  /// Called (from any worker thread, serialised) when a repetition finishes.
  std::function<void(uint32_t scenario, uint32_t repetition, uint32_t done, uint32_t total)>
      on_progress;
  /// Per-interval counters of each repetition while it runs (iperf3's -i lines); unset: none.
  IntervalSink on_interval;
  /// Their interval; unset: default_live_interval_ns(the scenario's duration).
  std::optional<int64_t> live_interval_ns;
  /// Run time covered against the time planned, for progress and ETA; null: not kept.
  RunProgress* progress = nullptr;
  /// Set for a run spread over processes; unset: every task runs here.
  const TaskSpread* spread = nullptr;
  /// Set for a rank of a multi-host job on real devices.
  const HostRole* host_role = nullptr;
};

struct ScenarioRun {
  suite::CompiledScenario compiled;
  uint64_t seed = 0;
  uint32_t repetitions = 0;
  int64_t warmup_ns = 0;
  int64_t duration_ns = 0;
  int64_t bin_ns = 0;            // the series bin used (series_bin_ns)
  int64_t requested_bin_ns = 0;  // the suite's `bin`; bin_ns is larger when it was coarsened
                                 // to keep at most kMaxSeriesBins
  std::vector<RepetitionMeasurement> reps;  // in repetition order
  std::vector<FlowLatency> latency;         // per flow instance, merged over repetitions
};

struct SuiteRun {
  std::string driver;
  uint32_t workers = 1;  // per repetition
  std::string clock;     // the clock latency was measured with
  uint32_t jobs = 1;
  bool complete = true;
  bool interrupted = false;  // a signal (Ctrl-C, SIGTERM) stopped it: complete is false
  bool sender_only = false;  // the driver only sends: nothing here to judge (its receiver does)
  /// A rank of a job on a driver whose data cannot cross processes: why nothing was received.
  std::string no_data_reason;
  double wall_seconds = 0.0;
  std::vector<ScenarioRun> scenarios;
};

/// Runs every compiled scenario (from suite::compile_suite) of `suite` on fresh instances of
/// the configured driver: Errc::usage for more workers than the driver runs, driver errors as
/// they come.
Result<SuiteRun> run_suite(const suite::Suite& suite, std::vector<suite::CompiledScenario> compiled,
                           const drv::DriverFactory& driver, const RunOptions& options);

}  // namespace qb::engine
