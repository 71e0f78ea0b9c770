// The simulator at the largest value of each key it converts (issue 26, item 3): in the 3000 h
// days, cnp_interval = "3000h" wrapped to a CNP for every mark and retransmit_timeout = "3000h"
// fired 38 316 times in 4 ms. At each key's largest accepted value the run must be what the
// key says: an interval as long as that sends one CNP per flow, a timer that long never fires,
// a handler that long keeps its thread busy to the end of the run and no longer.
// (tests/suite/unit_bounds_test.cpp: the same keys at load.)
#include <gtest/gtest.h>

#include <string>

#include "../support/run_and_judge.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb {
namespace {

Result<judge::Results> run_text(const std::string& text) {
  auto suite = suite::load_suite_string(text, "bounds_run.toml");
  if (!suite) return std::move(suite).error();
  engine::RunOptions options;
  options.jobs = 1;
  options.repetitions = 1;
  return testing_support::run_and_judge(*suite, "sim", options);
}

double stat(const judge::ScenarioResult& scenario, const std::string& name) {
  for (const auto& [key, value] : scenario.driver_stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no driver stat " << name;
  return -1.0;
}

// Two hosts into one switch port, marking from the first byte queued: every packet is marked.
std::string incast(const std::string& fabric_keys, const std::string& dpa_keys) {
  return "[suite]\nwarmup = \"0s\"\nduration = \"1ms\"\nbin = \"100us\"\n"
         "[port]\nrate = \"100Gbps\"\nmtu = 4096\n"
         "[fabric]\nhosts = 2\nswitch = true\n" +
         fabric_keys +
         "[fabric.ecn]\nmin_threshold = 1\n"
         "[dpa]\nprogram = \"dcqcn\"\n" +
         dpa_keys +
         "[[flow]]\nname = \"a\"\nhost = 0\nsize = 65536\nrate = \"saturate\"\n"
         "[[flow]]\nname = \"b\"\nhost = 1\nsize = 65536\nrate = \"saturate\"\n";
}

TEST(UnitBoundsRun, TheLongestCnpIntervalSendsOneCnpPerFlow) {
  auto results = run_text(incast("cnp_interval = \"1000s\"\n", ""));
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& scenario = results->scenarios.front();
  EXPECT_GT(stat(scenario, "ecn_marks"), 100.0);
  EXPECT_EQ(stat(scenario, "cnps"), 2.0);  // the first mark of each flow, then never again
}

TEST(UnitBoundsRun, TheLongestRetransmitTimeoutNeverFiresInARun) {
  auto results = run_text(incast(
      "mode = \"lossy\"\nbuffer = \"16KB\"\nretransmit_timeout = \"8796093022208ns\"\n", ""));
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& scenario = results->scenarios.front();
  EXPECT_GT(stat(scenario, "switch_drops"), 0.0);
  EXPECT_EQ(stat(scenario, "retransmit_timeouts"), 0.0);
}

TEST(UnitBoundsRun, TheLongestHandlerKeepsItsThreadBusyToTheEndAndNoLonger) {
  auto results = run_text(incast("", "handler_cost = \"1ms\"\nqueue_events = 1048576\n"));
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& scenario = results->scenarios.front();
  const double end_ns = stat(scenario, "virtual_time_ns");
  EXPECT_GT(stat(scenario, "dpa_events"), 1.0);
  EXPECT_LE(stat(scenario, "dpa_thread_utilisation"), 1.0);
  EXPECT_GT(stat(scenario, "dpa_thread_utilisation"), 0.9);  // busy from the first event on
  EXPECT_LE(stat(scenario, "dpa_queue_delay_max_ns"), end_ns);
  EXPECT_LE(stat(scenario, "dpa_queue_delay_mean_ns"), end_ns);
}

TEST(UnitBoundsRun, TheLongestTxSampleIntervalSamplesNothingInARun) {
  std::string text = incast("", "tx_sample_interval = \"1000s\"\n");
  text.replace(text.find("\"dcqcn\""), 7, "\"pcc_rtt\"");
  auto results = run_text(text);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& scenario = results->scenarios.front();
  EXPECT_GT(stat(scenario, "dpa_events"), 1.0);
  EXPECT_EQ(stat(scenario, "dpa_dropped_events"), 0.0);
}

TEST(UnitBoundsRun, TheFastestSwitchAndTheLongestPropagationDelayStillDeliver) {
  std::string text = incast("switch_rate = \"4294967295Mbps\"\n", "");
  text.replace(text.find("mtu = 4096\n"), 11, "mtu = 4096\npropagation_delay = \"1ms\"\n");
  text.replace(text.find("duration = \"1ms\""), 16, "duration = \"4ms\"");
  auto results = run_text(text);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& scenario = results->scenarios.front();
  EXPECT_GT(stat(scenario, "packets"), 0.0);
  for (const auto& flow : scenario.flows) EXPECT_GT(flow.measured_bps, 0.0) << flow.name;
}

}  // namespace
}  // namespace qb
