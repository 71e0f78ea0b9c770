// Flows that join later, end to end on the simulator: a flow with `start` delivers nothing in
// the time bins before its start and its share after, and the results judge convergence per
// set of active flows (suite -> compile -> run on sim -> measure -> judge).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/run_and_judge.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/reports/results.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb {
namespace {

Result<report::Results> run_text(const std::string& text) {
  auto suite = suite::load_suite_string(text, "late.toml");
  if (!suite) return std::move(suite).error();
  engine::RunOptions options;
  options.jobs = 1;
  options.repetitions = 1;
  return testing_support::run_and_judge(*suite, "sim", options);
}

constexpr const char* kHead =
    "[suite]\nwarmup = \"0s\"\nduration = \"2ms\"\nbin = \"100us\"\n"
    "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n";

TEST(LateStartSeries, ASaturatingFlowDeliversNothingBeforeItsStart) {
  auto results = run_text(std::string(kHead) +
                          "[[flow]]\nname = \"a\"\nsize = 65536\nrate = \"saturate\"\n"
                          "[[flow]]\nname = \"b\"\nsize = 65536\nrate = \"saturate\"\n"
                          "start = \"1ms\"\n");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const report::ScenarioResult& s = results->scenarios.front();
  ASSERT_EQ(s.flows.size(), 2u);
  const auto& a = s.flows[0].series_bps;
  const auto& b = s.flows[1].series_bps;
  ASSERT_EQ(a.size(), 20u);
  ASSERT_EQ(b.size(), 20u);
  for (size_t bin = 0; bin < 10; ++bin) {
    EXPECT_EQ(b[bin], 0.0) << "bin " << bin;  // before 1 ms
    // a alone has the port (bin 0 holds its first packets' way to the receiver).
    if (bin > 0) {
      EXPECT_GT(a[bin], 0.97 * 100e9) << "bin " << bin;
    }
  }
  for (size_t bin = 11; bin < 20; ++bin) {
    EXPECT_GT(b[bin], 0.0) << "bin " << bin;
    // Two flows on one NIC: the tree shares the port equally.
    EXPECT_NEAR(b[bin] / 50e9, 1.0, 0.05) << "bin " << bin;
    EXPECT_NEAR(a[bin] / 50e9, 1.0, 0.05) << "bin " << bin;
  }
  EXPECT_GT(b[10], 0.0);
  // Convergence is judged per epoch: a alone, then both.
  ASSERT_TRUE(s.convergence.present);
  ASSERT_EQ(s.convergence.epochs.size(), 2u);
  EXPECT_EQ(s.convergence.epochs[0].start_ns, 0);
  EXPECT_EQ(s.convergence.epochs[0].active_flows, 1u);
  EXPECT_EQ(s.convergence.epochs[1].start_ns, 1'000'000);
  EXPECT_EQ(s.convergence.epochs[1].active_flows, 2u);
  EXPECT_TRUE(s.convergence.epochs[1].judged);
}

TEST(LateStartSeries, ACbrFlowDeliversNothingBeforeItsStart) {
  auto results = run_text(std::string(kHead) +
                          "[[flow]]\nname = \"cbr\"\nsize = 4096\nrate = \"10Gbps\"\n"
                          "start = \"1ms\"\n");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& series = results->scenarios.front().flows[0].series_bps;
  ASSERT_EQ(series.size(), 20u);
  ASSERT_TRUE(results->scenarios.front().flows[0].offered_bps.has_value());
  const double offered = *results->scenarios.front().flows[0].offered_bps;
  for (size_t bin = 0; bin < 10; ++bin) EXPECT_EQ(series[bin], 0.0) << "bin " << bin;
  for (size_t bin = 11; bin < 20; ++bin) {
    EXPECT_NEAR(series[bin] / offered, 1.0, 0.05) << "bin " << bin;
  }
}

TEST(LateStartSeries, DpaProgramStatsReachTheResults) {
  // pcc_rtt with the reflector on a 2-host incast: the driver stats carry the emulators'.
  auto results = run_text(std::string(kHead) +
                          "[fabric]\nhosts = 2\n"
                          "[dpa]\nprogram = \"pcc_rtt\"\nreceiver_program = \"reflector\"\n"
                          "[[flow]]\nname = \"h0\"\nhost = 0\nsize = 65536\nrate = \"saturate\"\n"
                          "[[flow]]\nname = \"h1\"\nhost = 1\nsize = 65536\nrate = \"saturate\"\n");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const report::ScenarioResult& s = results->scenarios.front();
  auto stat = [&s](const std::string& name) {
    for (const auto& [key, value] : s.driver_stats) {
      if (key == name) return value;
    }
    ADD_FAILURE() << "no driver stat " << name;
    return -1.0;
  };
  EXPECT_GT(stat("dpa_events"), 0.0);
  EXPECT_GT(stat("receiver_dpa_events"), 0.0);
  EXPECT_GT(stat("rtt_samples"), 0.0);
  EXPECT_EQ(stat("dpa_dropped_events"), 0.0);
  // A DPA program without later starts: convergence judged over one epoch, the whole run.
  ASSERT_TRUE(s.convergence.present);
  ASSERT_EQ(s.convergence.epochs.size(), 1u);
  EXPECT_EQ(s.convergence.epochs[0].active_flows, 2u);
}

const report::GateResult* gate_named(const report::ScenarioResult& scenario,
                                     const std::string& name) {
  for (const report::GateResult& gate : scenario.gates) {
    if (gate.name == name) return &gate;
  }
  ADD_FAILURE() << "no gate " << name;
  return nullptr;
}

TEST(LateStartSeries, MaxQueueDepthReadsTheSimulatedSwitchQueue) {
  // ECN marking at the switch: the simulator reports its egress queue, which a 100 MB bound
  // holds (the switch buffers far less).
  auto results = run_text(std::string(kHead) +
                          "[fabric]\nhosts = 2\n[fabric.ecn]\nmin_threshold = \"100KB\"\n"
                          "[[flow]]\nname = \"h0\"\nhost = 0\nsize = 65536\nrate = \"saturate\"\n"
                          "[[flow]]\nname = \"h1\"\nhost = 1\nsize = 65536\nrate = \"saturate\"\n"
                          "start = \"1ms\"\n"
                          "[gates]\nmax_queue_depth = \"100MB\"\n");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const report::GateResult* depth = gate_named(results->scenarios.front(), "max_queue_depth");
  ASSERT_NE(depth, nullptr);
  EXPECT_TRUE(depth->passed) << depth->value;
  EXPECT_GT(depth->value, 0.0);  // two hosts at line rate into one: a queue builds
  EXPECT_LE(depth->value, 100e6);
}

TEST(LateStartSeries, MaxQueueDepthOnASwitchedIncastWithoutEcnOrProgram) {
  auto results = run_text(std::string(kHead) +
                          "[fabric]\nhosts = 2\n"
                          "[[flow]]\nname = \"h0\"\nhost = 0\nsize = 65536\nrate = \"saturate\"\n"
                          "[[flow]]\nname = \"h1\"\nhost = 1\nsize = 65536\nrate = \"saturate\"\n"
                          "start = \"1ms\"\n"
                          "[gates]\nmax_queue_depth = \"100MB\"\n");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const report::GateResult* depth = gate_named(results->scenarios.front(), "max_queue_depth");
  ASSERT_NE(depth, nullptr);
  EXPECT_TRUE(depth->passed) << depth->value;
}

}  // namespace
}  // namespace qb
