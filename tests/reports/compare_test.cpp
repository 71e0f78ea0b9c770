// Baseline comparison: the regression rule (beyond the threshold in the bad direction AND
// significant); the test itself is checked in statistics_test.cpp.
#include "qb/reports/compare_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "results_fixture.hpp"

namespace qb::report {
namespace {

// Repetitions that vary as a real-time driver's do, so the statistics apply (the simulator with
// equal seeds is compared exactly: tests/judge/compare_exact_test.cpp).
Results sample_results(size_t reps = 5, double g2_scale = 1.0) {
  Results r = testing::sample_results(reps, g2_scale);
  r.clock = "tsc";
  return r;
}

std::string fmt_name(int i) {
  return "noisy#" + std::to_string(i);
}

const MetricComparison* find(const Comparison& c, const std::string& kind,
                             const std::string& subject, const std::string& metric) {
  for (const auto& m : c.metrics) {
    if (m.kind == kind && m.subject == subject && m.metric == metric) return &m;
  }
  return nullptr;
}

TEST(Compare, PlantedTenPercentThroughputRegressionWithFiveRepetitionsIsFlagged) {
  auto c = compare_results(sample_results(5), sample_results(5, 0.9), {});
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_TRUE(c->regressed());
  const MetricComparison* flow = find(*c, "flow", "g2-qp", "measured_bps");
  ASSERT_NE(flow, nullptr);
  EXPECT_NEAR(flow->change, -0.10, 1e-9);
  EXPECT_NEAR(flow->p_value, 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(flow->min_p_value, 2.0 / 252.0, 1e-12);
  // Testable: g1's flows and group (throughput, error: their repetitions differ) and g2's
  // four; the latency figures and Jain are equal everywhere. q = 2/252 * 10 / 4.
  EXPECT_EQ(c->tested, 10u);
  EXPECT_NEAR(flow->p_adjusted, 2.0 / 252.0 * 10.0 / 4.0, 1e-12);
  EXPECT_TRUE(flow->significant);
  EXPECT_TRUE(flow->regression);
  EXPECT_FALSE(flow->improvement);
  const MetricComparison* error = find(*c, "group", "g2-qp", "abs_error");
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->regression);
  EXPECT_NEAR(error->change, 0.10, 1e-3);  // share error grew by 10 percentage points
  // g2's flow and group, each on throughput and share error; g1 and Jain untouched.
  EXPECT_EQ(c->regressions, 4u);
  EXPECT_FALSE(find(*c, "group", "g1-qp", "measured_bps")->regression);
  EXPECT_FALSE(find(*c, "scenario", "two groups", "jain")->regression);
  EXPECT_TRUE(c->notes.empty());
}

TEST(Compare, SameResultsAreNotFlagged) {
  auto c = compare_results(sample_results(5), sample_results(5), {});
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_FALSE(c->regressed());
  EXPECT_EQ(c->improvements, 0u);
  for (const auto& m : c->metrics) {
    EXPECT_DOUBLE_EQ(m.p_value, 1.0) << m.subject << " " << m.metric;
    EXPECT_DOUBLE_EQ(m.change, 0.0);
  }
  // 3 flows + 2 groups, each 5 metrics (throughput, error, p50/p99/p999), + Jain.
  EXPECT_EQ(c->metrics.size(), 26u);
}

TEST(Compare, SignificantChangeWithinTheThresholdIsNoise) {
  // Another seed: every g2 figure 0.5 % lower, consistently (so significant) but within 5 %.
  auto c = compare_results(sample_results(5), sample_results(5, 0.995), {});
  ASSERT_TRUE(c) << c.error().to_string();
  const MetricComparison* flow = find(*c, "flow", "g2-qp", "measured_bps");
  EXPECT_TRUE(flow->significant);
  EXPECT_FALSE(flow->regression);
  EXPECT_FALSE(c->regressed());
  // A tighter threshold makes the same change a regression.
  auto tight = compare_results(sample_results(5), sample_results(5, 0.995), {.threshold = 0.001});
  ASSERT_TRUE(tight);
  EXPECT_TRUE(tight->regressed());
}

TEST(Compare, ImprovementsAreNotRegressions) {
  Results current = sample_results(5);
  for (auto& flow : current.scenarios[0].flows) {
    for (auto& v : flow.latency_reps.p99_ns) v = v * 8 / 10;  // p99 20 % lower
  }
  current.scenarios[0].fairness.jain_reps = {1.0, 1.0, 1.0, 1.0, 1.0};
  auto c = compare_results(sample_results(5), current, {.threshold = 0.0});
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_FALSE(c->regressed());
  // Three flows' p99, and Jain: +0.001 % is beyond a zero threshold and significant.
  EXPECT_EQ(c->improvements, 4u);
  const MetricComparison* p99 = find(*c, "flow", "g1-qp#0", "latency_p99_ns");
  EXPECT_TRUE(p99->improvement);
  EXPECT_NEAR(p99->change, -0.2, 1e-12);
  const MetricComparison* jain = find(*c, "scenario", "two groups", "jain");
  EXPECT_TRUE(jain->improvement);
  EXPECT_FALSE(jain->regression);
}

TEST(Compare, LatencyIncreaseIsARegressionWhenTestedAlone) {
  Results current = sample_results(5);
  for (auto& v : current.scenarios[0].groups[0].latency_reps.p999_ns) v = v * 12 / 10;
  auto raw = compare_results(sample_results(5), current, {.correct_multiple = false});
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->regressions, 1u);
  EXPECT_TRUE(find(*raw, "group", "g1-qp", "latency_p999_ns")->regression);
  // Corrected: 11 metrics can reach p < 0.05 (the ten rate figures, whose repetitions
  // differ, and this one); one discovery at p = 2/252 among 11: q = 11 * 2/252 = 0.087.
  auto corrected = compare_results(sample_results(5), current, {});
  ASSERT_TRUE(corrected);
  EXPECT_EQ(corrected->tested, 11u);
  const MetricComparison* p999 = find(*corrected, "group", "g1-qp", "latency_p999_ns");
  EXPECT_NEAR(p999->p_adjusted, 11.0 * 2.0 / 252.0, 1e-12);
  EXPECT_FALSE(p999->regression);
}

TEST(Compare, ManyNoisyMetricsDoNotRaiseFalseAlarms) {
  // 100 flows whose repetitions are noise; one of them happens to rank fully separated
  // (p = 2/252) with a 6 % shift. Alone it would be a regression; among 100 tests it is not.
  Results base = sample_results(5), cur = sample_results(5);
  for (int i = 0; i < 100; ++i) {
    std::vector<double> b, c;
    for (int r = 0; r < 5; ++r) {
      b.push_back(1e9 * (1.0 + 0.01 * ((r * 7 + i) % 5)));
      c.push_back(1e9 * (1.0 + 0.01 * ((r * 3 + i) % 5)));
    }
    if (i == 42) {
      for (double& v : c) v *= 1.06 + 0.04;  // shifted above every baseline value
    }
    base.scenarios[0].flows.push_back(testing::flow(fmt_name(i), "g1-qp", 1e9, b));
    cur.scenarios[0].flows.push_back(testing::flow(fmt_name(i), "g1-qp", 1e9, c));
  }
  auto raw = compare_results(base, cur, {.correct_multiple = false});
  ASSERT_TRUE(raw);
  EXPECT_TRUE(find(*raw, "flow", fmt_name(42), "abs_error")->regression);
  auto corrected = compare_results(base, cur, {});
  ASSERT_TRUE(corrected);
  EXPECT_GT(corrected->tested, 200u);
  EXPECT_FALSE(corrected->regressed());
}

TEST(Compare, ThreeRepetitionsFlagAChangeFarBeyondTheirSpreadAndSayWhy) {
  // g2 10 % lower with repetitions 0.001 % apart: no rank test at 3 + 3, the spread rule.
  auto c = compare_results(sample_results(3), sample_results(3, 0.9), {});
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->regressed());
  const MetricComparison* flow = find(*c, "flow", "g2-qp", "measured_bps");
  ASSERT_NE(flow, nullptr);
  EXPECT_GE(flow->p_value, 0.1);
  EXPECT_TRUE(flow->separated);
  EXPECT_TRUE(flow->regression);
  ASSERT_EQ(c->notes.size(), 1u);
  EXPECT_NE(c->notes[0].find("smallest possible p-value is 0.1"), std::string::npos) << c->notes[0];
  // Five against three repetitions: 2 / C(8,3) = 0.036 < 0.05, so it can.
  auto uneven = compare_results(sample_results(5), sample_results(3, 0.9), {});
  ASSERT_TRUE(uneven);
  EXPECT_TRUE(uneven->regressed());
}

TEST(Compare, IncompatibleFilesAreConfigErrors) {
  const Results base = sample_results(5);
  Results other = base;
  other.suite = "another";
  auto c = compare_results(base, other, {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::invalid_config);
  EXPECT_NE(c.error().message.find("another"), std::string::npos);

  other = base;
  other.config_hash = "fedcba9876543210";
  c = compare_results(base, other, {});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("--allow-config-change"), std::string::npos);
  c = compare_results(base, other, {.allow_config_change = true});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->notes.size(), 1u);

  other = base;
  other.scenarios[0].flows[2].name = "g3-qp";
  c = compare_results(base, other, {});
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message.find("flow \"g2-qp\" is in the baseline"), std::string::npos)
      << c.error().message;

  other = base;
  other.scenarios[0].groups.pop_back();
  c = compare_results(base, other, {});
  ASSERT_FALSE(c);

  other = base;
  other.scenarios[0].name = "renamed";
  c = compare_results(base, other, {});
  ASSERT_FALSE(c);

  other = base;
  other.schema = "qosbench.results/2";
  c = compare_results(base, other, {});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::invalid_config);
}

TEST(Compare, FlowOrderDoesNotMatter) {
  Results reordered = sample_results(5, 0.9);
  std::swap(reordered.scenarios[0].flows[0], reordered.scenarios[0].flows[2]);
  auto c = compare_results(sample_results(5), reordered, {});
  ASSERT_TRUE(c);
  EXPECT_TRUE(find(*c, "flow", "g2-qp", "measured_bps")->regression);
  EXPECT_EQ(c->regressions, 4u);
}

TEST(Compare, BadOptionsAreUsageErrors) {
  auto c = compare_results(sample_results(), sample_results(), {.threshold = -1.0});
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().code, Errc::usage);
  c = compare_results(sample_results(), sample_results(), {.alpha = 0.0});
  ASSERT_FALSE(c);
}

TEST(Compare, TableListsRegressionsFirst) {
  auto c = compare_results(sample_results(5), sample_results(5, 0.9), {});
  ASSERT_TRUE(c);
  std::ostringstream out;
  print_comparison(*c, out);
  const std::string text = out.str();
  const size_t header = text.find("verdict");
  const size_t first_regression = text.find("REGRESSION", header);
  const size_t first_ok = text.find("\n  ok ", header);
  ASSERT_NE(first_regression, std::string::npos) << text;
  ASSERT_NE(first_ok, std::string::npos) << text;
  EXPECT_LT(first_regression, first_ok);
  EXPECT_NE(text.find("REGRESSED: 4 regressions"), std::string::npos) << text;
  EXPECT_NE(text.find("-10.00%"), std::string::npos) << text;
}

TEST(Compare, JsonCarriesTheVerdict) {
  auto c = compare_results(sample_results(5), sample_results(5, 0.9), {});
  ASSERT_TRUE(c);
  const std::string json = comparison_to_json(*c);
  EXPECT_NE(json.find("\"schema\": \"qosbench.compare/1\""), std::string::npos);
  EXPECT_NE(json.find("\"regressed\": true"), std::string::npos);
  EXPECT_NE(json.find("\"regressions\": 4"), std::string::npos);
}

}  // namespace
}  // namespace qb::report

namespace qb::report {
namespace {

// g2's throughput repetitions replaced (flow and group, share errors follow).
Results with_g2_reps(Results r, const std::vector<double>& reps) {
  ScenarioResult& s = r.scenarios.front();
  for (auto* reps_of : {&s.flows[2].measured_bps_reps, &s.groups[1].measured_bps_reps}) {
    *reps_of = reps;
  }
  double sum = 0.0;
  for (double v : reps) sum += v;
  s.flows[2].measured_bps = s.groups[1].measured_bps = sum / static_cast<double>(reps.size());
  s.repetitions = s.repetitions_completed = static_cast<uint32_t>(reps.size());
  for (auto& f : s.flows) f.latency_reps = testing::latency_reps(10'000, reps.size());
  for (auto& g : s.groups) g.latency_reps = testing::latency_reps(20'000, reps.size());
  for (auto* other : {&s.flows[0].measured_bps_reps, &s.flows[1].measured_bps_reps}) {
    other->resize(reps.size(), other->front());
  }
  s.groups[0].measured_bps_reps.resize(reps.size(), s.groups[0].measured_bps_reps.front());
  s.fairness.jain_reps.resize(reps.size(), s.fairness.jain);
  return r;
}

// One repetition a side: neither the test nor the spread rule can judge a 10 % drop.
TEST(CompareInconclusive, OneRepetitionASideIsInconclusiveNotAPass) {
  const Results base = with_g2_reps(sample_results(1), {4.096e9});
  const Results cur = with_g2_reps(sample_results(1), {4.096e9 * 0.9});
  auto c = compare_results(base, cur, {});
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_FALSE(c->regressed());
  const MetricComparison* flow = find(*c, "flow", "g2-qp", "measured_bps");
  ASSERT_NE(flow, nullptr);
  EXPECT_TRUE(flow->inconclusive);
  EXPECT_GE(c->inconclusive, 2u);  // flow and group throughput at least
  EXPECT_TRUE(c->failed());
  EXPECT_STREQ(c->verdict(), "INCONCLUSIVE");
  std::ostringstream table;
  print_comparison(*c, table);
  EXPECT_NE(table.str().find("INCONCLUSIVE"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("--allow-inconclusive"), std::string::npos) << table.str();
  // The opt-out: still listed, no longer failing.
  ComparisonOptions allow;
  allow.allow_inconclusive = true;
  auto allowed = compare_results(base, cur, allow);
  ASSERT_TRUE(allowed);
  EXPECT_EQ(allowed->inconclusive, c->inconclusive);
  EXPECT_FALSE(allowed->failed());
  EXPECT_STREQ(allowed->verdict(), "NO REGRESSION");
  // An improvement nothing can judge fails nothing.
  auto better = compare_results(cur, base, {});
  ASSERT_TRUE(better);
  EXPECT_FALSE(find(*better, "flow", "g2-qp", "measured_bps")->inconclusive);
}

// Three a side with spreads more than a tenth of the change: the spread rule cannot separate
// them, the test has no power at 3 + 3: INCONCLUSIVE.
TEST(CompareInconclusive, SpreadsOverlappingTheChangeAreInconclusive) {
  const Results base = with_g2_reps(sample_results(3), {4.00e9, 4.10e9, 4.20e9});
  const Results cur = with_g2_reps(sample_results(3), {3.60e9, 3.70e9, 3.80e9});  // -9.8 %
  auto c = compare_results(base, cur, {});
  ASSERT_TRUE(c);
  const MetricComparison* flow = find(*c, "flow", "g2-qp", "measured_bps");
  ASSERT_NE(flow, nullptr);
  EXPECT_FALSE(flow->separated);
  EXPECT_FALSE(flow->regression);
  EXPECT_TRUE(flow->inconclusive);
  EXPECT_TRUE(c->failed());
}

// Spreads as wide as the change (the ranges overlap): no more decidable at 3 + 3. With 5 + 5
// the test has power: a change it does not find significant is "not sig.", not INCONCLUSIVE.
TEST(CompareInconclusive, OverlappingSpreadsAreInconclusiveUnlessTheTestHasPower) {
  const Results wide = with_g2_reps(sample_results(3), {3.5e9, 4.1e9, 4.7e9});
  const Results cur = with_g2_reps(sample_results(3), {3.4e9, 3.7e9, 4.1e9});  // -8 %
  auto overlapping = compare_results(wide, cur, {});
  ASSERT_TRUE(overlapping);
  EXPECT_TRUE(find(*overlapping, "flow", "g2-qp", "measured_bps")->inconclusive);

  const Results base5 = with_g2_reps(sample_results(5), {4.0e9, 4.6e9, 3.6e9, 4.4e9, 3.9e9});
  const Results cur5 = with_g2_reps(sample_results(5), {3.3e9, 4.5e9, 3.5e9, 4.3e9, 3.2e9});
  auto powered = compare_results(base5, cur5, {});
  ASSERT_TRUE(powered);
  const MetricComparison* flow = find(*powered, "flow", "g2-qp", "measured_bps");
  EXPECT_GT(flow->p_value, 0.05);
  EXPECT_LT(flow->change, -0.05);
  EXPECT_FALSE(flow->inconclusive);
  EXPECT_FALSE(powered->failed());
}

// An interrupted run's partial repetition (rates over the part it measured, here far lower)
// is after the completed ones and left out of the statistics, with a note.
TEST(ComparePartial, PartialRepetitionsAreLeftOutAndSaidSo) {
  const Results base = sample_results(3);
  Results cur = sample_results(3);
  ScenarioResult& s = cur.scenarios.front();
  for (auto& f : s.flows) {
    f.measured_bps_reps.push_back(f.measured_bps_reps.front() * 0.5);
    f.latency_reps = testing::latency_reps(10'000, 4);
    f.latency_reps.p99_ns.back() = 90'000;  // a far worse tail in the cut-off repetition
  }
  for (auto& g : s.groups) {
    g.measured_bps_reps.push_back(g.measured_bps_reps.front() * 0.5);
    g.latency_reps = testing::latency_reps(20'000, 4);
  }
  s.fairness.jain_reps.push_back(0.5);
  s.repetitions_partial = 1;
  s.measured_ns_reps = {100'000'000, 100'000'000, 100'000'000, 30'000'000};
  cur.complete = false;
  auto c = compare_results(base, cur, {});
  ASSERT_TRUE(c) << c.error().to_string();
  EXPECT_FALSE(c->failed());
  const MetricComparison* flow = find(*c, "flow", "g2-qp", "measured_bps");
  ASSERT_NE(flow, nullptr);
  EXPECT_EQ(flow->current_reps.size(), 3u);
  EXPECT_DOUBLE_EQ(flow->current, flow->baseline);
  EXPECT_EQ(find(*c, "scenario", "two groups", "jain")->current_reps.size(), 3u);
  EXPECT_EQ(find(*c, "flow", "g2-qp", "latency_p99_ns")->current_reps.size(), 3u);
  bool said = false;
  for (const auto& note : c->notes) {
    said = said || note.find("1 interrupted (partial) repetition is left out") != std::string::npos;
  }
  EXPECT_TRUE(said);
  // Kept in, the half-rate repetition would pull the mean 12.5 % down.
  cur.scenarios.front().repetitions_partial = 0;
  cur.scenarios.front().repetitions_completed = 4;
  auto kept = compare_results(base, cur, {});
  ASSERT_TRUE(kept);
  const MetricComparison* distorted = find(*kept, "flow", "g2-qp", "measured_bps");
  EXPECT_EQ(distorted->current_reps.size(), 4u);
  EXPECT_NEAR(distorted->change, -0.125, 1e-3);
}

}  // namespace
}  // namespace qb::report

namespace qb::report {
namespace {

// A simulator run against a verbs run of the same suite: compared, but never without a word
// naming both drivers (in the comparison's notes and its printed table).
TEST(CompareDrivers, DifferentDriversAreNamedInTheNotes) {
  Results base = sample_results(3);
  Results cur = sample_results(3);
  base.driver = "sim";
  cur.driver = "verbs";
  auto c = compare_results(base, cur, {});
  ASSERT_TRUE(c) << c.error().to_string();
  bool named = false;
  for (const std::string& note : c->notes) {
    named = named || (note.find("\"sim\"") != std::string::npos &&
                      note.find("\"verbs\"") != std::string::npos);
  }
  EXPECT_TRUE(named);
  EXPECT_FALSE(c->exact);  // never the exact comparison across drivers
  std::ostringstream table;
  print_comparison(*c, table);
  EXPECT_NE(table.str().find("the drivers differ"), std::string::npos) << table.str();
}

}  // namespace
}  // namespace qb::report
