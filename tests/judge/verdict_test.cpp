// The verdict says what was judged and nothing more (issue 25): judged by default, "off" listed
// as not judged, expectations weighted over the epochs, flows that never started left out,
// sampling noise allowed for, starved classes named, latency gates without samples said so.
// Each test judges a small suite "measured" at rates chosen here, so the answer is known.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/expectation_window.hpp"
#include "qb/judge/judge.hpp"
#include "qb/judge/sampling_noise.hpp"
#include "qb/judge/verdict.hpp"
#include "qb/judge/window_checks.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/shortfall.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::judge {
namespace {

constexpr double G = 1e9;
constexpr int64_t kBinNs = 100'000;

// Two saturating flows on the default leaf of a 100 Gbit/s port (50/50), over 1.2 ms.
const std::string kTwoFlows =
    "[suite]\nwarmup = \"0s\"\nduration = \"1200us\"\nbin = \"100us\"\nrepetitions = 1\n"
    "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
    "[[flow]]\nname = \"a\"\nsize = 65536\nrate = \"saturate\"\n"
    "[[flow]]\nname = \"b\"\nsize = 65536\nrate = \"saturate\"\n";

struct Judged {
  suite::Suite suite;
  std::vector<suite::CompiledScenario> compiled;
  Result<Results> results = make_error(Errc::invalid_config, "not run");
  const ScenarioResult& scenario() const { return results->scenarios.front(); }
};

// Judges `text` as if each flow had been measured at a constant rate in every bin: `gbps`, or
// with `of_expected`, that multiple of its expectation over the window.
std::unique_ptr<Judged> judge_measured(
    const std::string& text, std::vector<double> gbps, uint64_t latency_samples = 1000,
    bool of_expected = false, std::vector<std::pair<std::string, double>> driver_stats = {}) {
  auto out = std::make_unique<Judged>();
  auto suite = suite::load_suite_string(text, "verdict.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  if (!suite.ok()) return nullptr;
  out->suite = std::move(*suite);
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(out->suite, warnings);
  EXPECT_TRUE(compiled.ok()) << compiled.error().to_string();
  if (!compiled.ok()) return nullptr;
  out->compiled = *compiled;

  engine::SuiteRun run;
  run.driver = "sim";
  run.clock = "virtual";
  engine::ScenarioRun scenario;
  scenario.compiled = std::move(compiled->front());
  scenario.seed = 1;
  scenario.repetitions = 1;
  scenario.warmup_ns = out->suite.scenarios.front().warmup_ns;
  scenario.duration_ns = out->suite.scenarios.front().duration_ns;
  scenario.bin_ns = kBinNs;
  const size_t flows = scenario.compiled.plan.flows.size();
  const size_t elements = scenario.compiled.plan.tree.elements.size();
  const size_t bins = static_cast<size_t>(scenario.duration_ns / kBinNs);
  if (of_expected) {
    const SpanExpectation window = expectation_over(scenario.compiled, scenario.warmup_ns,
                                                    scenario.warmup_ns + scenario.duration_ns);
    for (size_t f = 0; f < flows; ++f) gbps[f] *= window.flow_bps[f] / G;
  }
  run.scenarios.push_back(std::move(scenario));

  engine::SuiteMeasurement measurement;
  engine::ScenarioMeasurement m;
  m.repetitions_completed = 1;
  m.bins = bins;
  m.driver_stats = std::move(driver_stats);
  for (size_t f = 0; f < flows; ++f) {
    engine::TrafficMeasurement t;
    t.flows = 1;
    t.series_bps.assign(bins, gbps[f] * G);
    t.measured_bps = gbps[f] * G;
    t.measured_bps_reps = {t.measured_bps};
    t.counts.packets = 1000;
    for (uint64_t i = 0; i < latency_samples; ++i) t.histograms.from_scheduled_ns.record(2'000);
    m.flows.push_back(t);
    m.groups.push_back(t);
  }
  m.element_bps.assign(elements, 0.0);
  measurement.scenarios.push_back(std::move(m));
  out->results = judge_run(out->suite, run, measurement, RunMetadata{});
  EXPECT_TRUE(out->results.ok()) << out->results.error().to_string();
  return out;
}

const GateResult* gate_named(const ScenarioResult& scenario, const std::string& name) {
  for (const GateResult& gate : scenario.gates) {
    if (gate.name == name) return &gate;
  }
  return nullptr;
}

// Item 1: a suite with no [gates] used to end "PASSED: 0 of 0" beside a 40 % share error.
TEST(Verdict, ASuiteWithoutGatesIsJudgedAndFailsBrokenShares) {
  auto judged = judge_measured(kTwoFlows, {70.0, 30.0});
  ASSERT_TRUE(judged);
  const Results& r = *judged->results;
  EXPECT_FALSE(r.passed);
  const GateResult* shares = gate_named(judged->scenario(), "max_share_error");
  ASSERT_NE(shares, nullptr);
  EXPECT_TRUE(shares->judged);
  EXPECT_TRUE(shares->default_limit);
  EXPECT_FALSE(shares->passed);
  EXPECT_EQ(r.verdict.summary.rfind("FAILED: shares not held: ", 0), 0u) << r.verdict.summary;
  EXPECT_NE(r.verdict.summary.find("limit 5%"), std::string::npos) << r.verdict.summary;
}

// A fabric's failed shares name its PFC victims: the worst three by error, then how many more
// (a 320-host fabric can have hundreds; the results list every one).
TEST(Verdict, NamesTheWorstPfcVictimsAndCountsTheRest) {
  auto judged = judge_measured(kTwoFlows, {70.0, 30.0});
  ASSERT_TRUE(judged);
  Results results = *judged->results;
  for (int v = 0; v < 5; ++v) {
    results.scenarios.front().victims.push_back(
        VictimResult{"f" + std::to_string(v), "sw:1->h:1", 1000.0, -0.1 * (v + 1)});
  }
  const std::string summary = verdict_of(results).summary;
  EXPECT_NE(summary.find("(PFC victims: f4 paused at sw:1->h:1 for 1.00 us; f3 paused"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("f2 paused"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("f1 paused"), std::string::npos) << summary;
  EXPECT_NE(summary.find("and 2 more (results: victims))"), std::string::npos) << summary;
}

TEST(Verdict, WhatIsTurnedOffIsListedAsNotJudged) {
  auto judged = judge_measured(kTwoFlows +
                                   "[gates]\nmax_share_error = \"off\"\n"
                                   "max_group_share_error = \"off\"\nmin_jain = \"off\"\n",
                               {70.0, 30.0});
  ASSERT_TRUE(judged);
  const Results& r = *judged->results;
  EXPECT_TRUE(r.passed);
  const GateResult* shares = gate_named(judged->scenario(), "max_share_error");
  ASSERT_NE(shares, nullptr);
  EXPECT_FALSE(shares->judged);
  EXPECT_EQ(shares->detail, "off in the suite");
  ASSERT_EQ(r.verdict.not_judged.size(), 3u);
  EXPECT_EQ(r.verdict.not_judged[0], "max_share_error (off in the suite)");
  EXPECT_EQ(r.verdict.judged, 0u);
  // It never says more than was judged.
  EXPECT_EQ(r.verdict.summary,
            "NOT JUDGED: nothing was judged; not judged: max_share_error (off in the suite); "
            "max_group_share_error (off in the suite); min_jain (off in the suite)");
}

// Item 2: with joins, a flow is compared with its time-weighted expectation, not the share
// after the last join. a alone for 500 us at 100, then 50 for 700 us: 70.83 Gbit/s.
TEST(Verdict, ExpectationsFollowTheJoins) {
  const std::string joins = kTwoFlows.substr(0, kTwoFlows.size() - 1) +
                            "\nstart = \"500us\"\n[gates]\n"
                            "convergence_time = \"off\"\n";
  auto judged = judge_measured(joins, {(500.0 * 100 + 700.0 * 50) / 1200.0, 700.0 * 50 / 1200.0});
  ASSERT_TRUE(judged);
  const ScenarioResult& s = judged->scenario();
  EXPECT_NEAR(s.flows[0].expected_bps, (500.0 * 100 + 700.0 * 50) / 1200.0 * G, 1e3);
  EXPECT_NEAR(s.flows[1].expected_bps, 700.0 * 50 / 1200.0 * G, 1e3);
  EXPECT_NEAR(s.flows[0].error, 0.0, 1e-9);
  EXPECT_NEAR(s.fairness.worst_flow_error, 0.0, 1e-9);
  // The tree element carries the same time-weighted sum.
  EXPECT_NEAR(s.tree.front().expected_bps, 100.0 * G, 1e3);
}

TEST(ExpectationWindow, WeightsEachEpochByItsTimeInTheSpan) {
  auto suite = suite::load_suite_string(
      kTwoFlows.substr(0, kTwoFlows.size() - 1) + "\nstart = \"500us\"\n", "w.toml");
  ASSERT_TRUE(suite.ok());
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(*suite, warnings);
  ASSERT_TRUE(compiled.ok());
  const SpanExpectation before = expectation_over(compiled->front(), 0, 500'000);
  EXPECT_NEAR(before.flow_bps[0], 100 * G, 1e3);
  EXPECT_EQ(before.flow_bps[1], 0.0);
  EXPECT_EQ(before.active_ns[1], 0);
  const SpanExpectation across = expectation_over(compiled->front(), 400'000, 600'000);
  EXPECT_NEAR(across.flow_bps[0], 75 * G, 1e3);
  EXPECT_NEAR(across.flow_bps[1], 25 * G, 1e3);
  EXPECT_EQ(across.active_ns[1], 100'000);
}

// Item 3: a window that ends before a flow starts: not started, no -100 %, no empty worst flow.
TEST(Verdict, AFlowStartingAfterTheWindowIsNotStarted) {
  const std::string late = kTwoFlows.substr(0, kTwoFlows.size() - 1) + "\nstart = \"2ms\"\n";
  auto judged = judge_measured(late, {100.0, 0.0});
  ASSERT_TRUE(judged);
  const ScenarioResult& s = judged->scenario();
  EXPECT_FALSE(s.flows[1].judged);
  EXPECT_EQ(s.flows[1].error, 0.0);
  EXPECT_NE(s.flows[1].not_judged.find("not started"), std::string::npos);
  EXPECT_EQ(s.fairness.worst_flow, "a");
  EXPECT_NEAR(s.fairness.jain, 1.0, 1e-12);
  EXPECT_TRUE(judged->results->passed) << judged->results->verdict.summary;
  EXPECT_NE(judged->results->verdict.summary.find("1 flow(s) not started in the window"),
            std::string::npos)
      << judged->results->verdict.summary;

  // validate says so up front, at the flow's `start`.
  const auto warnings =
      window_warnings(judged->compiled.front(), window_of(judged->suite.scenarios.front()));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].where, "flow[1].start");
  EXPECT_EQ(warnings[0].loc.line, 18u);
  EXPECT_NE(warnings[0].message.find("not started"), std::string::npos);
}

// Item 4: a Poisson flow's own noise is allowed for; a saturating flow's error is not noise.
TEST(SamplingNoise, PoissonFlowsCarryTheirNoise) {
  auto suite = suite::load_suite_string(
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      "[[flow]]\nname = \"p\"\nsize = 1000\nrate = \"1Gbps\"\npattern = \"poisson\"\n"
      "[[flow]]\nname = \"c\"\nsize = 1000\nrate = \"1Gbps\"\n",
      "noise.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(*suite, warnings);
  ASSERT_TRUE(compiled.ok());
  const suite::CompiledScenario& c = compiled->front();
  const int64_t span_ns = 10'000'000;
  const SpanExpectation window = expectation_over(c, 0, span_ns);
  const std::vector<double> noise =
      model_noise(c, NoiseInput{window.flow_bps, window.active_ns, span_ns});
  const double messages = window.flow_bps[0] * 1e-2 / (c.mean_wire_bytes[0] * 8.0);
  // One size: cv = 0, so sqrt(1/N) plus one message of granularity in quadrature.
  EXPECT_NEAR(noise[0], std::sqrt(1.0 / messages + 1.0 / (messages * messages)), 1e-12);
  EXPECT_NEAR(noise[1], 1.0 / messages, 1e-12);  // CBR in bit/s: the edges only
  EXPECT_GT(noise[0], 10 * noise[1]);
  EXPECT_NEAR(noise_quantile(1), 2.5758, 1e-3);
  EXPECT_NEAR(noise_quantile(100), 3.8906, 1e-3);
  // Student's t at 99 %, two-sided (the repetitions' spread): 1, 2 and 9 degrees of freedom.
  EXPECT_NEAR(student_quantile(1), 63.657, 1e-2);
  EXPECT_NEAR(student_quantile(2), 9.925, 1e-3);
  EXPECT_NEAR(student_quantile(9), 3.250, 1e-3);
  EXPECT_NEAR(student_quantile(10000), noise_quantile(1), 1e-3);
  EXPECT_EQ(span_for_noise(10, 0.04, 0.01), 160);
}

TEST(SamplingNoise, AShareGateFailsOnlyBeyondTheNoise) {
  const std::string poisson =
      "[suite]\nwarmup = \"0s\"\nduration = \"1200us\"\nbin = \"100us\"\nrepetitions = 1\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      "[[flow]]\nname = \"p\"\nsize = 1000\nrate = \"1Gbps\"\npattern = \"poisson\"\n"
      "[gates]\nmax_share_error = \"1%\"\nmax_group_share_error = \"off\"\nmin_jain = \"off\"\n";
  // ~140 messages in 1.2 ms: about 8.5 % of noise, so a 5 % error is not evidence.
  auto noisy = judge_measured(poisson, {1.05}, 1000, true);
  ASSERT_TRUE(noisy);
  const GateResult* gate = gate_named(noisy->scenario(), "max_share_error");
  ASSERT_NE(gate, nullptr);
  EXPECT_GT(gate->allowance, 0.1);
  EXPECT_TRUE(gate->passed) << gate->value << " allowance " << gate->allowance;
  // The same 5 % on a saturating flow (exact but for one message) fails.
  auto exact = judge_measured(kTwoFlows + "[gates]\nmax_share_error = \"1%\"\n", {52.5, 47.5});
  ASSERT_TRUE(exact);
  const GateResult* tight = gate_named(exact->scenario(), "max_share_error");
  ASSERT_NE(tight, nullptr);
  EXPECT_LT(tight->allowance, 0.01);
  EXPECT_FALSE(tight->passed);
}

// Item 6: a class a strict TC takes the port from is named, with the key; its latency gate says
// "no samples" rather than comparing 0 ns with the limit.
TEST(Verdict, AStarvedClassIsNamedAndItsLatencyGateHasNoSamples) {
  const std::string starved =
      "[suite]\nwarmup = \"0s\"\nduration = \"1200us\"\nbin = \"100us\"\nrepetitions = 1\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      "[eth]\ntrust = \"dscp\"\nprio_tc = [0, 1, 2, 3, 4, 5, 6, 7]\n"
      "tsa = [\"ets\", \"ets\", \"ets\", \"ets\", \"ets\", \"strict\", \"ets\", \"ets\"]\n"
      "ets = [100, 0, 0, 0, 0, 0, 0, 0]\n"
      "[[flow]]\nname = \"bulk\"\nsize = 65536\nrate = \"saturate\"\ntx_tclass = \"low_latency\"\n"
      "[[flow]]\nname = \"voice\"\nsize = 256\nrate = \"1Gbps\"\ntx_tclass = \"best_effort\"\n"
      "[gates]\n[[gates.latency]]\nflow = \"voice\"\np99 = \"5us\"\n";
  auto judged = judge_measured(starved, {100.0, 0.0}, 0);
  ASSERT_TRUE(judged);
  const ScenarioResult& s = judged->scenario();
  EXPECT_EQ(s.flows[1].expected_bps, 0.0);
  ASSERT_FALSE(s.shortfalls.empty());
  EXPECT_NE(s.shortfalls[0].find("TC0"), std::string::npos) << s.shortfalls[0];
  EXPECT_NE(s.shortfalls[0].find("TC5 (strict, eth.tsa[5])"), std::string::npos) << s.shortfalls[0];
  const auto warnings = suite::starvation_warnings(judged->compiled.front());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].where, "flow[1]");

  const GateResult* latency = gate_named(s, "latency.p99[voice]");
  ASSERT_NE(latency, nullptr);
  EXPECT_FALSE(latency->passed);
  EXPECT_TRUE(std::isnan(latency->value));
  EXPECT_EQ(latency->detail.rfind("no samples", 0), 0u) << latency->detail;
  EXPECT_NE(judged->results->verdict.summary.find("latency.p99[voice]: no samples"),
            std::string::npos)
      << judged->results->verdict.summary;
}

// Item 7: on a lossless fabric, credit back-pressure can hold the shares with no help from the
// program; the convergence judgement then says so and fails.
TEST(Verdict, BackPressureIsNotTheProgramsConvergence) {
  const std::string dcqcn =
      "[suite]\nwarmup = \"0s\"\nduration = \"1200us\"\nbin = \"100us\"\nrepetitions = 1\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      "[fabric]\nhosts = 2\nswitch = true\n[fabric.ecn]\nmin_threshold = \"100KB\"\n"
      "[dpa]\nprogram = \"dcqcn\"\n"
      "[[flow]]\nname = \"h0\"\nhost = 0\nsize = 65536\nrate = \"saturate\"\n"
      "[[flow]]\nname = \"h1\"\nhost = 1\nsize = 65536\nrate = \"saturate\"\n";
  // Two hosts at 50 each from the first bin: "settled in 0 ns".
  auto free = judge_measured(dcqcn, {50.0, 50.0}, 1000, false,
                             {{"backpressure_paused_ns.h0.port", 0.0}});
  ASSERT_TRUE(free);
  const GateResult* settled = gate_named(free->scenario(), "convergence_time");
  ASSERT_NE(settled, nullptr);
  EXPECT_TRUE(settled->passed) << settled->detail;
  // The same rates with host 1 paused by credit half of the 1.2 ms window.
  auto held = judge_measured(dcqcn, {50.0, 50.0}, 1000, false,
                             {{"backpressure_paused_ns", 600'000.0},
                              {"backpressure_paused_ns.h0.port", 0.0},
                              {"backpressure_paused_ns.h1.port", 600'000.0}});
  ASSERT_TRUE(held);
  const Convergence& c = held->scenario().convergence;
  EXPECT_TRUE(c.held_by_backpressure);
  EXPECT_NEAR(c.paused_fraction, 0.5, 1e-9);
  const GateResult* gate = gate_named(held->scenario(), "convergence_time");
  ASSERT_NE(gate, nullptr);
  EXPECT_FALSE(gate->passed);
  EXPECT_NE(gate->detail.find("back-pressure"), std::string::npos) << gate->detail;
  EXPECT_FALSE(held->results->passed);
}

// Gates nothing in the scenario can judge are refused at load, not failed after the run.
TEST(Verdict, GatesThatCanNeverBeJudgedAreConfigErrors) {
  for (const auto& [gate, key] :
       {std::pair{"convergence_time = \"1ms\"\n", "gates.convergence_time"},
        std::pair{"max_queue_depth = \"100KB\"\n", "gates.max_queue_depth"}}) {
    auto suite = suite::load_suite_string(kTwoFlows + "[gates]\n" + gate, "never.toml");
    ASSERT_TRUE(suite.ok()) << suite.error().to_string();
    std::vector<Warning> warnings;
    auto compiled = suite::compile_suite(*suite, warnings);
    ASSERT_FALSE(compiled.ok()) << gate;
    EXPECT_EQ(compiled.error().code, Errc::invalid_config);
    EXPECT_EQ(compiled.error().where, key);
    EXPECT_EQ(compiled.error().loc.line, 19u);
  }
}

}  // namespace
}  // namespace qb::judge
