// A send-only run for the sender tests (summary, reporters): one saturating flow of 1000-byte
// frames on a 10 Gbit/s Ethernet port, one repetition of 100 ms warm-up + 900 ms, as a DPDK
// Tx-only run (rx_port = "none") leaves it.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "qb/engine/run.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::report::testing {

inline suite::Suite sender_only_suite() {
  auto suite = suite::load_suite_string(R"([suite]
name = "tx only"
repetitions = 1
warmup = "100ms"
duration = "900ms"
[port]
rate = "10Gbps"
transport = "eth"
mtu = 1500
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "root"
bw_share = 1
[[flow]]
name = "f"
leaf = "a"
size = 1000
rate = "saturate"
)",
                                        "tx.toml");
  EXPECT_TRUE(suite.ok());
  return std::move(*suite);
}

/// What the driver counted in the repetition.
struct SenderCounts {
  uint64_t posted = 0;          // messages the flow posted
  double tx_frames = 0.0;       // the driver's tx_packets
  double tx_frame_bytes = 0.0;  // the driver's tx_frame_bytes
  double lost_fraction = 0.0;   // of the worker's second lost to other processes (0: not watched)
};

/// The run of `suite` (which must outlive it) with one repetition that counted `counts`.
inline engine::SuiteRun sender_only_run(const suite::Suite& suite, const SenderCounts& counts) {
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(suite, warnings);
  EXPECT_TRUE(compiled.ok());
  engine::SuiteRun run;
  run.driver = "dpdk";
  run.clock = "tsc";
  run.sender_only = true;
  run.complete = true;
  engine::ScenarioRun scenario;
  scenario.compiled = (*compiled)[0];
  scenario.repetitions = 1;
  scenario.warmup_ns = 100'000'000;
  scenario.duration_ns = 900'000'000;
  engine::RepetitionMeasurement rep;
  rep.ran = true;
  rep.complete = true;
  rep.flows.resize(1);
  rep.flows[0].counts.posted_messages = counts.posted;
  rep.driver_stats = {{"tx_packets", counts.tx_frames}, {"tx_frame_bytes", counts.tx_frame_bytes}};
  if (counts.lost_fraction > 0.0) {
    rep.starvation.measured = true;
    rep.starvation.run_ns = 1'000'000'000;
    rep.starvation.lost_ns = static_cast<int64_t>(counts.lost_fraction * 1e9);
  }
  scenario.reps.push_back(rep);
  run.scenarios.push_back(std::move(scenario));
  return run;
}

}  // namespace qb::report::testing
