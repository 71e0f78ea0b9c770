// Convergence judged on the per-flow time series (reports/src/convergence.cpp) against the
// oracle per set of active flows, on hand-built series whose answer is known bin by bin; and
// the gates that read it (judge.cpp: convergence_time, max_queue_depth, the settled share and
// Jain gates).
#include "convergence.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::judge {
namespace {

constexpr int64_t kBin = 100'000;  // 100 us
constexpr double G = 1e9;

suite::CompiledScenario epochs_of(std::vector<suite::ExpectationEpoch> epochs) {
  suite::CompiledScenario compiled;
  compiled.expected.flow_bps = epochs.back().flow_bps;
  compiled.epochs = std::move(epochs);
  return compiled;
}

// Flow f's series in Gbit/s.
ScenarioResult result_of(const std::vector<std::vector<double>>& series_gbps,
                         int64_t warmup_ns = 0) {
  ScenarioResult out;
  out.warmup_ns = warmup_ns;
  out.bin_ns = kBin;
  for (size_t f = 0; f < series_gbps.size(); ++f) {
    FlowResult flow;
    flow.name = "f" + std::to_string(f);
    for (const double gbps : series_gbps[f]) flow.series_bps.push_back(gbps * G);
    out.flows.push_back(std::move(flow));
  }
  return out;
}

// a alone from 0, b joins at 500 us; 12 bins of 100 us (the last one is left out).
const suite::CompiledScenario kJoin = epochs_of({{0, {100 * G, 0.0}}, {500'000, {50 * G, 50 * G}}});

// Bins:        0    1    2    3    4  | 5   6   7   8   9   10 | 11 (left out)
const std::vector<double> kA{60, 90, 100, 100, 100, 80, 70, 52, 50, 49, 50, 0};
const std::vector<double> kB{0, 0, 0, 0, 0, 10, 30, 48, 50, 50, 50, 0};

TEST(Convergence, AbsentWithoutLaterStartsOrAProgram) {
  suite::CompiledScenario compiled;
  compiled.expected.flow_bps = {100 * G};
  ScenarioResult out = result_of({{100, 100, 100}});
  judge_convergence(compiled, 0.05, out);
  EXPECT_FALSE(out.convergence.present);
  EXPECT_TRUE(out.convergence.epochs.empty());
}

TEST(Convergence, TimeIsFromTheEpochsStartToItsFirstSettledBin) {
  ScenarioResult out = result_of({kA, kB});
  judge_convergence(kJoin, 0.05, out);
  const Convergence& c = out.convergence;
  ASSERT_TRUE(c.present);
  EXPECT_DOUBLE_EQ(c.tolerance, 0.05);
  ASSERT_EQ(c.epochs.size(), 2u);
  // Epoch 0: bins 0..4; bin 1 is 10% off, settled from bin 2 (200 us).
  EXPECT_EQ(c.epochs[0].start_ns, 0);
  EXPECT_EQ(c.epochs[0].active_flows, 1u);
  EXPECT_TRUE(c.epochs[0].judged);
  EXPECT_TRUE(c.epochs[0].converged);
  EXPECT_EQ(c.epochs[0].time_ns, 200'000);
  // Epoch 1: bins 5..10; bin 6 is off, settled from bin 7 (700 us): 200 us after the join.
  EXPECT_EQ(c.epochs[1].start_ns, 500'000);
  EXPECT_EQ(c.epochs[1].active_flows, 2u);
  EXPECT_TRUE(c.epochs[1].judged);
  EXPECT_TRUE(c.epochs[1].converged);
  EXPECT_EQ(c.epochs[1].time_ns, 200'000);
  EXPECT_TRUE(c.converged);
  EXPECT_EQ(c.worst_time_ns, 200'000);
  // Settled figures: the last epoch's bins 7..10 against 50/50.
  EXPECT_EQ(c.settled_from_ns, 700'000);
  const double ratio_a = (52 + 50 + 49 + 50) / 4.0 / 50.0;  // 1.005
  const double ratio_b = (48 + 50 + 50 + 50) / 4.0 / 50.0;  // 0.99
  EXPECT_NEAR(c.worst_flow_error_settled, 0.01, 1e-12);
  EXPECT_EQ(c.worst_flow_settled, "f1");
  EXPECT_NEAR(
      c.jain_settled,
      (ratio_a + ratio_b) * (ratio_a + ratio_b) / (2.0 * (ratio_a * ratio_a + ratio_b * ratio_b)),
      1e-12);
  EXPECT_NEAR(c.jain_settled, jain_index({ratio_a, ratio_b}), 1e-15);
}

TEST(Convergence, TheToleranceDecidesTheSettledBin) {
  // At 1%: bin 9 (49/50) is off, epoch 1 settles at bin 10; at 12% epoch 0 settles at bin 1.
  ScenarioResult tight = result_of({kA, kB});
  judge_convergence(kJoin, 0.01, tight);
  ASSERT_EQ(tight.convergence.epochs.size(), 2u);
  EXPECT_EQ(tight.convergence.epochs[1].time_ns, 500'000);
  EXPECT_EQ(tight.convergence.settled_from_ns, 1'000'000);
  EXPECT_DOUBLE_EQ(tight.convergence.tolerance, 0.01);
  ScenarioResult loose = result_of({kA, kB});
  judge_convergence(kJoin, 0.12, loose);
  EXPECT_EQ(loose.convergence.epochs[0].time_ns, 100'000);
}

TEST(Convergence, TheLastBinIsLeftOut) {
  // Its zeros would keep epoch 1 from settling; they do not count.
  ScenarioResult out = result_of({kA, kB});
  judge_convergence(kJoin, 0.05, out);
  EXPECT_TRUE(out.convergence.epochs[1].converged);
  // A drop in the last judged bin (10) does count.
  std::vector<double> a = kA;
  a[10] = 40;
  ScenarioResult dropped = result_of({a, kB});
  judge_convergence(kJoin, 0.05, dropped);
  EXPECT_FALSE(dropped.convergence.epochs[1].converged);
}

TEST(Convergence, AnEpochThatNeverSettles) {
  std::vector<double> a = kA;
  std::vector<double> b = kB;
  a[10] = 70;  // the epoch ends off its share
  b[10] = 30;
  ScenarioResult out = result_of({a, b});
  judge_convergence(kJoin, 0.05, out);
  const Convergence& c = out.convergence;
  ASSERT_EQ(c.epochs.size(), 2u);
  EXPECT_TRUE(c.epochs[0].converged);
  EXPECT_TRUE(c.epochs[1].judged);
  EXPECT_FALSE(c.epochs[1].converged);
  EXPECT_EQ(c.epochs[1].time_ns, 0);
  EXPECT_FALSE(c.converged);
  EXPECT_EQ(c.worst_time_ns, 200'000);  // over the epochs that converged
  // It never settled: its shares are judged over its second half (bins 8..10), where b ends
  // 13 % short (50, 50, 30 against 50).
  EXPECT_EQ(c.settled_from_ns, 800'000);
  EXPECT_NEAR(c.worst_flow_error_settled, 20.0 / 150.0, 1e-12);
  EXPECT_EQ(c.worst_flow_settled, "f1");
  EXPECT_GT(c.jain_settled, 0.9);
  // Every (flow, epoch) pair is a row of the share judgement: a in epoch 0, a and b in 1.
  EXPECT_EQ(c.settled_shares.size(), 3u);
}

TEST(Convergence, AnEpochWithoutAWholeBinIsNotJudged) {
  // b joins at 550 us, c at 590 us: [550, 590) holds no whole bin. Epoch 0 is bins 0..4,
  // epoch 2 bins 6..10; bin 5 straddles the joins and is nobody's.
  const suite::CompiledScenario compiled =
      epochs_of({{0, {100 * G, 0.0, 0.0}},
                 {550'000, {50 * G, 50 * G, 0.0}},
                 {590'000, {100 * G / 3, 100 * G / 3, 100 * G / 3}}});
  const double third = 100.0 / 3;
  ScenarioResult out =
      result_of({{100, 100, 100, 100, 100, 0, third, third, third, third, third, 0},
                 {0, 0, 0, 0, 0, 0, third, third, third, third, third, 0},
                 {0, 0, 0, 0, 0, 0, third, third, third, third, third, 0}});
  judge_convergence(compiled, 0.05, out);
  const Convergence& c = out.convergence;
  ASSERT_EQ(c.epochs.size(), 3u);
  EXPECT_TRUE(c.epochs[0].judged);
  EXPECT_EQ(c.epochs[0].time_ns, 0);
  EXPECT_FALSE(c.epochs[1].judged);
  EXPECT_FALSE(c.epochs[1].converged);
  EXPECT_EQ(c.epochs[1].active_flows, 2u);
  EXPECT_TRUE(c.epochs[2].judged);
  EXPECT_TRUE(c.epochs[2].converged);
  EXPECT_EQ(c.epochs[2].time_ns, 600'000 - 590'000);
  EXPECT_TRUE(c.converged);  // the unjudged epoch does not count against it
  EXPECT_EQ(c.settled_from_ns, 600'000);
  EXPECT_NEAR(c.worst_flow_error_settled, 0.0, 1e-12);
  EXPECT_NEAR(c.jain_settled, 1.0, 1e-12);
}

TEST(Convergence, BinsCountFromTheWarmupsEnd) {
  // Warm-up 1 ms; b joins at 1.25 ms: epoch 0 has measured bins 0..1, epoch 1 bins 3..10.
  const suite::CompiledScenario compiled =
      epochs_of({{0, {100 * G, 0.0}}, {1'250'000, {50 * G, 50 * G}}});
  ScenarioResult out = result_of({{100, 100, 100, 80, 50, 50, 50, 50, 50, 50, 50, 0},
                                  {0, 0, 0, 20, 50, 50, 50, 50, 50, 50, 50, 0}},
                                 1'000'000);
  judge_convergence(compiled, 0.05, out);
  const Convergence& c = out.convergence;
  ASSERT_EQ(c.epochs.size(), 2u);
  EXPECT_TRUE(c.epochs[0].converged);
  EXPECT_EQ(c.epochs[0].time_ns, 1'000'000);  // settled in the first measured bin
  EXPECT_TRUE(c.epochs[1].converged);
  EXPECT_EQ(c.epochs[1].time_ns, 1'400'000 - 1'250'000);  // bin 4 starts at 1.4 ms
  EXPECT_EQ(c.settled_from_ns, 1'400'000);
}

TEST(Convergence, ADpaProgramWithoutLaterStartsIsOneEpoch) {
  suite::CompiledScenario compiled;
  compiled.expected.flow_bps = {50 * G, 50 * G};
  compiled.plan.congestion.dpa.program = "pcc_rtt";
  ScenarioResult out = result_of({{90, 60, 50, 50, 0}, {10, 40, 50, 50, 0}});
  judge_convergence(compiled, 0.05, out);
  const Convergence& c = out.convergence;
  ASSERT_TRUE(c.present);
  ASSERT_EQ(c.epochs.size(), 1u);
  EXPECT_EQ(c.epochs[0].start_ns, 0);
  EXPECT_EQ(c.epochs[0].active_flows, 2u);
  EXPECT_EQ(c.epochs[0].time_ns, 200'000);
  EXPECT_TRUE(c.converged);
  EXPECT_EQ(c.settled_from_ns, 200'000);
}

TEST(Convergence, TheSettledWindowNeverReachesBackBeforeTheLastEpoch) {
  // b joins at 1.05 ms, inside the last judged bin (10): the last epoch is not judged.
  const suite::CompiledScenario compiled =
      epochs_of({{0, {100 * G, 0.0}}, {1'050'000, {50 * G, 50 * G}}});
  ScenarioResult out = result_of({std::vector<double>(12, 100.0), std::vector<double>(12, 0.0)});
  judge_convergence(compiled, 0.05, out);
  const Convergence& c = out.convergence;
  ASSERT_EQ(c.epochs.size(), 2u);
  EXPECT_FALSE(c.epochs[1].judged);
  EXPECT_EQ(c.epochs[1].not_judged, "no whole time bin inside the window");
  // Only epoch 0 is judged, against its own shares (a alone at 100): b's later share is not
  // read back into it.
  ASSERT_EQ(c.settled_shares.size(), 1u);
  EXPECT_EQ(c.settled_shares[0].flow, "f0");
  EXPECT_DOUBLE_EQ(c.settled_shares[0].error, 0.0);
}

// ---- the gates -------------------------------------------------------------------------------

struct Judged {
  suite::Suite suite;
  Result<Results> results = make_error(Errc::invalid_config, "not run");
};

// A two-flow suite (b joins at 500 us), "measured" as the given series, judged with its gates.
// `driver_stats` are the repetitions' mean and, unless `driver_stats_max` is given, their max.
std::unique_ptr<Judged> judge_series(
    const std::string& gates, const std::vector<std::vector<double>>& series_gbps,
    std::vector<std::pair<std::string, double>> driver_stats,
    std::optional<std::vector<std::pair<std::string, double>>> driver_stats_max = std::nullopt) {
  auto out = std::make_unique<Judged>();
  auto suite = suite::load_suite_string(
      "[suite]\nwarmup = \"0s\"\nduration = \"1200us\"\nbin = \"100us\"\nrepetitions = 1\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      // A switch: max_queue_depth judges its egress queue (without one the gate is refused).
      "[fabric]\nswitch = true\n"
      "[[flow]]\nname = \"a\"\nsize = 65536\nrate = \"saturate\"\n"
      "[[flow]]\nname = \"b\"\nsize = 65536\nrate = \"saturate\"\nstart = \"500us\"\n"
      "[gates]\n" +
          gates,
      "gates.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  if (!suite.ok()) return nullptr;
  out->suite = std::move(*suite);
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(out->suite, warnings);
  EXPECT_TRUE(compiled.ok()) << compiled.error().to_string();
  if (!compiled.ok()) return nullptr;

  engine::SuiteRun run;
  run.driver = "sim";
  engine::ScenarioRun scenario;
  scenario.compiled = std::move(compiled->front());
  scenario.seed = 1;
  scenario.repetitions = 1;
  scenario.warmup_ns = 0;
  scenario.duration_ns = 1'200'000;
  scenario.bin_ns = kBin;
  const size_t flows = scenario.compiled.plan.flows.size();
  const size_t elements = scenario.compiled.plan.tree.elements.size();
  run.scenarios.push_back(std::move(scenario));

  engine::SuiteMeasurement measurement;
  engine::ScenarioMeasurement m;
  m.repetitions_completed = 1;
  m.bins = series_gbps.front().size();
  m.driver_stats_max = driver_stats_max.value_or(driver_stats);
  m.driver_stats = std::move(driver_stats);
  for (size_t f = 0; f < flows; ++f) {
    engine::TrafficMeasurement t;
    t.flows = 1;
    double sum = 0.0;
    for (const double gbps : series_gbps[f]) {
      t.series_bps.push_back(gbps * G);
      sum += gbps * G;
    }
    t.measured_bps = sum / static_cast<double>(series_gbps[f].size());
    t.measured_bps_reps = {t.measured_bps};
    t.counts.packets = 1000;
    m.flows.push_back(t);
    m.groups.push_back(t);
  }
  m.element_bps.assign(elements, 0.0);
  measurement.scenarios.push_back(std::move(m));
  out->results = judge_run(out->suite, run, measurement, RunMetadata{});
  return out;
}

const GateResult* gate_named(const ScenarioResult& scenario, const std::string& name) {
  for (const GateResult& gate : scenario.gates) {
    if (gate.name == name) return &gate;
  }
  ADD_FAILURE() << "no gate " << name;
  return nullptr;
}

TEST(ConvergenceGates, ConvergenceTimeAndQueueDepthPass) {
  auto judged = judge_series(
      "convergence_time = \"300us\"\nmax_queue_depth = \"100KB\"\nmax_share_error = 0.02\n"
      "min_jain = 0.99\n",
      {kA, kB}, {{"switch_queue_max_bytes", 50'000.0}});
  ASSERT_TRUE(judged);
  ASSERT_TRUE(judged->results.ok()) << judged->results.error().to_string();
  const ScenarioResult& s = judged->results->scenarios.front();
  ASSERT_TRUE(s.convergence.present);
  const GateResult* time = gate_named(s, "convergence_time");
  ASSERT_NE(time, nullptr);
  EXPECT_TRUE(time->passed);
  EXPECT_DOUBLE_EQ(time->value, 200'000.0);
  EXPECT_DOUBLE_EQ(time->threshold, 300'000.0);
  EXPECT_EQ(time->unit, "ns");
  EXPECT_EQ(time->kind, GateKind::duration);
  EXPECT_EQ(time->bound, GateBound::at_most);
  const GateResult* depth = gate_named(s, "max_queue_depth");
  ASSERT_NE(depth, nullptr);
  EXPECT_TRUE(depth->passed);
  EXPECT_DOUBLE_EQ(depth->value, 50'000.0);
  EXPECT_DOUBLE_EQ(depth->threshold, 100'000.0);
  EXPECT_EQ(depth->unit, "B");
  EXPECT_EQ(depth->kind, GateKind::bytes);
  // The share and Jain gates read the settled window (bins 7..10), not the whole run's means.
  const GateResult* share = gate_named(s, "max_share_error");
  ASSERT_NE(share, nullptr);
  EXPECT_TRUE(share->passed);
  EXPECT_NEAR(share->value, 0.01, 1e-12);
  EXPECT_NE(share->detail.find("worst flow: b (-1.000%"), std::string::npos) << share->detail;
  EXPECT_NE(share->detail.find("after each change settled"), std::string::npos) << share->detail;
  EXPECT_GT(s.fairness.worst_flow_error, 0.02);  // the whole run's means would fail it
  const GateResult* jain = gate_named(s, "min_jain");
  ASSERT_NE(jain, nullptr);
  EXPECT_TRUE(jain->passed);
  EXPECT_DOUBLE_EQ(jain->value, s.convergence.jain_settled);
  EXPECT_EQ(jain->detail, "settled");
  EXPECT_TRUE(s.passed);
}

TEST(ConvergenceGates, ConvergenceTimeFailsWithInfinityWhenNotConverged) {
  std::vector<double> a = kA;
  std::vector<double> b = kB;
  a[10] = 70;
  b[10] = 30;
  auto judged = judge_series("convergence_time = \"300us\"\n", {a, b}, {});
  ASSERT_TRUE(judged);
  ASSERT_TRUE(judged->results.ok()) << judged->results.error().to_string();
  const ScenarioResult& s = judged->results->scenarios.front();
  const GateResult* time = gate_named(s, "convergence_time");
  ASSERT_NE(time, nullptr);
  EXPECT_FALSE(time->passed);
  EXPECT_TRUE(std::isinf(time->value));
  EXPECT_GT(time->value, 0.0);
  EXPECT_FALSE(s.passed);
  EXPECT_FALSE(judged->results->passed);
}

TEST(ConvergenceGates, ConvergenceTimeFailsWhenSlowerThanTheThreshold) {
  auto judged = judge_series("convergence_time = \"150us\"\n", {kA, kB}, {});
  ASSERT_TRUE(judged);
  ASSERT_TRUE(judged->results.ok()) << judged->results.error().to_string();
  const GateResult* time = gate_named(judged->results->scenarios.front(), "convergence_time");
  ASSERT_NE(time, nullptr);
  EXPECT_FALSE(time->passed);
  EXPECT_DOUBLE_EQ(time->value, 200'000.0);
}

TEST(ConvergenceGates, MaxQueueDepthFailsWithoutTheDriversFigureOrAboveIt) {
  {
    auto judged = judge_series("max_queue_depth = \"100KB\"\n", {kA, kB}, {{"packets", 5.0}});
    ASSERT_TRUE(judged);
    ASSERT_TRUE(judged->results.ok()) << judged->results.error().to_string();
    const ScenarioResult& s = judged->results->scenarios.front();
    const GateResult* depth = gate_named(s, "max_queue_depth");
    ASSERT_NE(depth, nullptr);
    EXPECT_FALSE(depth->passed);
    EXPECT_TRUE(std::isinf(depth->value));
    EXPECT_FALSE(s.passed);
  }
  {
    auto judged =
        judge_series("max_queue_depth = 1000\n", {kA, kB}, {{"switch_queue_max_bytes", 1001.0}});
    ASSERT_TRUE(judged);
    ASSERT_TRUE(judged->results.ok());
    const GateResult* depth = gate_named(judged->results->scenarios.front(), "max_queue_depth");
    ASSERT_NE(depth, nullptr);
    EXPECT_FALSE(depth->passed);
    EXPECT_DOUBLE_EQ(depth->value, 1001.0);
    EXPECT_DOUBLE_EQ(depth->threshold, 1000.0);
  }
  {
    // One repetition's queue above the limit fails the gate, though their mean is below it.
    auto judged = judge_series("max_queue_depth = 1000\n", {kA, kB},
                               {{"switch_queue_max_bytes", 900.0}},
                               {{{"switch_queue_max_bytes", 1100.0}}});
    ASSERT_TRUE(judged);
    ASSERT_TRUE(judged->results.ok());
    const GateResult* depth = gate_named(judged->results->scenarios.front(), "max_queue_depth");
    ASSERT_NE(depth, nullptr);
    EXPECT_FALSE(depth->passed);
    EXPECT_DOUBLE_EQ(depth->value, 1100.0);
  }
}

}  // namespace
}  // namespace qb::judge
