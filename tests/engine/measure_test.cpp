// engine::measure: flows, groups, classes and tree elements from one run, measured once.
#include "qb/engine/measure.hpp"

#include <gtest/gtest.h>

#include "../support/run_suite_on.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::engine {
namespace {

constexpr const char* kSuite = R"(
[suite]
duration = "5ms"
warmup = "1ms"
bin = "1ms"
repetitions = 2
[port]
rate = "100Gbps"
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "root"
bw_share = 3
[[sched.leaf]]
name = "b"
parent = "root"
bw_share = 1
[[flow]]
name = "a"
leaf = "a"
count = 2
size = 4096
rate = "saturate"
[[flow]]
name = "b"
leaf = "b"
size = 4096
rate = "saturate"
)";

// kSuite run on the simulator, one job (the suite outlives the run, which points into it).
Result<SuiteRun> run_measure_suite() {
  static const Result<suite::Suite> suite = suite::load_suite_string(kSuite, "measure.toml");
  if (!suite) return suite.error();
  RunOptions options;
  options.jobs = 1;
  return testing_support::run_suite_on(*suite, "sim", options);
}

TEST(Measure, GroupsClassesAndElementsAddUpTheirFlows) {
  auto run = run_measure_suite();
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  const ScenarioMeasurement m = measure(run->scenarios.front());

  ASSERT_EQ(m.repetitions_completed, 2u);
  ASSERT_EQ(m.flows.size(), 3u);
  ASSERT_EQ(m.groups.size(), 2u);
  EXPECT_EQ(m.bins, 5u);
  for (const auto& flow : m.flows) {
    EXPECT_EQ(flow.measured_bps_reps.size(), 2u);
    EXPECT_GT(flow.measured_bps, 0.0);
    EXPECT_GT(flow.latency.count, 0u);
    EXPECT_EQ(flow.latency_reps.p50_ns.size(), 2u);
  }
  EXPECT_EQ(m.groups[0].flows, 2u);
  EXPECT_DOUBLE_EQ(m.groups[0].measured_bps, m.flows[0].measured_bps + m.flows[1].measured_bps);
  EXPECT_EQ(m.groups[0].counts.packets, m.flows[0].counts.packets + m.flows[1].counts.packets);
  EXPECT_EQ(m.groups[0].histograms.from_scheduled_ns.count(),
            m.flows[0].histograms.from_scheduled_ns.count() +
                m.flows[1].histograms.from_scheduled_ns.count());
  EXPECT_EQ(m.groups[1].flows, 1u);
  EXPECT_DOUBLE_EQ(m.groups[1].measured_bps, m.flows[2].measured_bps);
  // One port, one host, no port QoS: no classes.
  EXPECT_TRUE(m.classes.empty());
  // The tree: root carries everything, each leaf its flows; 3:1 by weight.
  const auto& tree = run->scenarios.front().compiled.plan.tree;
  const uint32_t root = tree.root();
  EXPECT_DOUBLE_EQ(m.element_bps[root],
                   m.flows[0].measured_bps + m.flows[1].measured_bps + m.flows[2].measured_bps);
  EXPECT_NEAR(m.element_bps[tree.find("a")] / m.element_bps[tree.find("b")], 3.0, 0.05);
}

TEST(Measure, DriverStatsAreTheRepetitionsMeanAndTheirMax) {
  auto run = run_measure_suite();
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  ScenarioRun& scenario = run->scenarios.front();
  ASSERT_EQ(scenario.reps.size(), 2u);
  scenario.reps[0].driver_stats = {{"deepest", 1000.0}, {"only_first", 4.0}};
  scenario.reps[1].driver_stats = {{"deepest", 3000.0}};
  const ScenarioMeasurement m = measure(scenario);
  const std::vector<std::pair<std::string, double>> mean = {{"deepest", 2000.0},
                                                            {"only_first", 2.0}};
  const std::vector<std::pair<std::string, double>> max = {{"deepest", 3000.0},
                                                           {"only_first", 4.0}};
  EXPECT_EQ(m.driver_stats, mean);
  EXPECT_EQ(m.driver_stats_max, max);
}

}  // namespace
}  // namespace qb::engine
