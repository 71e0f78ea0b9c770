// A run interrupted before any repetition measured anything (Ctrl-C during a verbs `listen`
// wait, or in the first warm-up) has no figures: its results say "nothing measured", not 0 bit/s
// and -100 % for every flow with a Jain index of 0, and its verdict judges nothing.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>

#include "../support/run_and_judge.hpp"
#include "qb/judge/verdict.hpp"
#include "qb/reports/console_report.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb {
namespace {

TEST(NothingMeasured, InterruptedBeforeTheFirstRepetitionJudgesNothing) {
  auto suite = suite::load_suite_file(QB_SOURCE_DIR "/configs/mlx5_two_groups.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options;
  options.jobs = 1;
  std::atomic<bool> interrupted{true};  // as a signal before the first repetition started
  options.interrupted = &interrupted;
  auto results = testing_support::run_and_judge(*suite, "sim", options);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  ASSERT_EQ(results->scenarios.size(), 1u);
  const judge::ScenarioResult& scenario = results->scenarios[0];
  EXPECT_TRUE(judge::nothing_measured(scenario));
  EXPECT_FALSE(results->passed);
  for (const judge::FlowResult& flow : scenario.flows) {
    EXPECT_FALSE(flow.judged) << flow.name;
    EXPECT_EQ(flow.error, 0.0) << flow.name;
    EXPECT_EQ(flow.not_judged, judge::kNothingMeasured) << flow.name;
  }
  for (const judge::GroupResult& group : scenario.groups) EXPECT_FALSE(group.judged);
  EXPECT_EQ(scenario.fairness.jain, 1.0);  // not the 0 of zeros over expectations
  EXPECT_TRUE(scenario.fairness.jain_reps.empty());
  ASSERT_FALSE(scenario.gates.empty());
  for (const judge::GateResult& gate : scenario.gates) {
    EXPECT_FALSE(gate.judged) << gate.name;
  }
  const judge::Verdict verdict = judge::verdict_of(*results);
  EXPECT_EQ(verdict.judged, 0u);
  EXPECT_EQ(verdict.summary.rfind("NOT JUDGED: nothing measured", 0), 0u) << verdict.summary;

  std::ostringstream console;
  report::print_console(*results, console, {});
  EXPECT_NE(console.str().find(judge::kNothingMeasured), std::string::npos) << console.str();
  EXPECT_EQ(console.str().find("-100.0"), std::string::npos) << console.str();
}

TEST(NothingMeasured, AMeasuredScenarioKeepsItsFigures) {
  auto suite = suite::load_suite_file(QB_SOURCE_DIR "/configs/mlx5_two_groups.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options;
  options.jobs = 1;
  options.repetitions = 1;
  options.duration_ns = 2'000'000;
  auto results = testing_support::run_and_judge(*suite, "sim", options);
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  EXPECT_FALSE(judge::nothing_measured(results->scenarios[0]));
  EXPECT_TRUE(results->scenarios[0].flows[0].judged);
}

}  // namespace
}  // namespace qb
