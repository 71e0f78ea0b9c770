// compare knows determinism (issue 25, item 8): two simulator runs with the same seed are exact,
// so a change beyond the threshold is a regression at one repetition, with no test; with other
// seeds the statistics stay (and one repetition a side cannot decide).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qb/judge/compare.hpp"

namespace qb::judge {
namespace {

Results one_flow_run(const std::string& clock, uint64_t seed, std::vector<double> reps_bps) {
  Results r;
  r.suite = "s";
  r.config_hash = "h";
  r.driver = "sim";
  r.clock = clock;
  ScenarioResult s;
  s.name = "s";
  s.seed = seed;
  s.repetitions = static_cast<uint32_t>(reps_bps.size());
  s.repetitions_completed = s.repetitions;
  FlowResult f;
  f.name = "g1";
  f.expected_bps = 100e9;
  double sum = 0.0;
  for (double v : reps_bps) sum += v;
  f.measured_bps = sum / static_cast<double>(reps_bps.size());
  f.error = f.measured_bps / f.expected_bps - 1.0;
  f.measured_bps_reps = reps_bps;
  s.flows.push_back(f);
  s.fairness.jain = 1.0;
  s.fairness.jain_reps.assign(reps_bps.size(), 1.0);
  r.scenarios.push_back(s);
  return r;
}

const MetricComparison& metric(const Comparison& c, const std::string& name) {
  for (const auto& m : c.metrics) {
    if (m.kind == "flow" && m.metric == name) return m;
  }
  ADD_FAILURE() << "no metric " << name;
  return c.metrics.front();
}

TEST(CompareExact, SameSeedOnTheSimulatorIsExactAtOneRepetition) {
  const Results base = one_flow_run("virtual", 1, {100e9});
  const Results cur = one_flow_run("virtual", 1, {72e9});  // one weight 3 -> 1: -28 %
  auto c = compare_results(base, cur, ComparisonOptions{});
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_TRUE(c->exact);
  const MetricComparison& rate = metric(*c, "measured_bps");
  EXPECT_TRUE(rate.regression);
  EXPECT_FALSE(rate.inconclusive);
  EXPECT_EQ(c->inconclusive, 0u);
  EXPECT_STREQ(c->verdict(), "REGRESSED");
  // A change within the threshold is no regression, however exact.
  auto small = compare_results(base, one_flow_run("virtual", 1, {98e9}), ComparisonOptions{});
  ASSERT_TRUE(small.ok());
  EXPECT_FALSE(small->regressed());
}

TEST(CompareExact, OtherSeedsOrARealClockKeepTheStatistics) {
  const Results base = one_flow_run("virtual", 1, {100e9});
  auto seeds = compare_results(base, one_flow_run("virtual", 2, {72e9}), ComparisonOptions{});
  ASSERT_TRUE(seeds.ok());
  EXPECT_FALSE(seeds->exact);
  EXPECT_TRUE(metric(*seeds, "measured_bps").inconclusive);  // 1 repetition a side: no power
  auto real = compare_results(one_flow_run("tsc", 1, {100e9}), one_flow_run("tsc", 1, {72e9}),
                              ComparisonOptions{});
  ASSERT_TRUE(real.ok());
  EXPECT_FALSE(real->exact);
}

TEST(CompareExact, ThreeAgreeingRepetitionsAreCountedAsDecidedBySpread) {
  // Other seeds, three repetitions a side that agree: the test cannot reach alpha, the spread
  // rule decides, and the count says so (no "0 metrics tested" above REGRESSION rows).
  const Results base = one_flow_run("virtual", 1, {100e9, 100.001e9, 99.999e9});
  const Results cur = one_flow_run("virtual", 2, {72e9, 72.001e9, 71.999e9});
  auto c = compare_results(base, cur, ComparisonOptions{});
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->exact);
  EXPECT_TRUE(metric(*c, "measured_bps").regression);
  EXPECT_EQ(c->tested, 0u);
  EXPECT_GE(c->spread_decided, 1u);
}

}  // namespace
}  // namespace qb::judge
