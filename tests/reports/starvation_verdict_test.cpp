// Starved workers in the results: the worst repetition is kept, the 1 % and 10 % bounds decide
// "unreliable" and "invalid", the warning names the loss, an invalid run cannot pass, and the
// field is written only when measured (older files and simulator results have none).
#include "qb/judge/starvation_verdict.hpp"

#include <gtest/gtest.h>

#include "qb/engine/starvation.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

engine::RepetitionMeasurement rep(int64_t lost_ns, int64_t run_ns) {
  engine::RepetitionMeasurement r;
  r.ran = true;
  r.starvation.measured = true;
  r.starvation.run_ns = run_ns;
  r.starvation.lost_ns = lost_ns;
  r.starvation.run_delay_ns = lost_ns;
  r.starvation.stalls = 3;
  r.starvation.longest_stall_ns = 4'000'000;
  r.starvation.involuntary_switches = 17;
  return r;
}

TEST(StarvationVerdict, VirtualTimeIsNotPresent) {
  engine::ScenarioRun run;
  run.reps.resize(2);
  for (auto& r : run.reps) r.ran = true;
  EXPECT_FALSE(starvation_of(run).present);
}

TEST(StarvationVerdict, TheWorstRepetitionIsJudgedAgainstTheBounds) {
  engine::ScenarioRun run;
  run.reps = {rep(1'000'000, 1'000'000'000), rep(300'000'000, 1'000'000'000)};
  const Starvation s = starvation_of(run);
  ASSERT_TRUE(s.present);
  EXPECT_EQ(s.lost_ns, 300'000'000);
  EXPECT_DOUBLE_EQ(s.lost_fraction, 0.3);
  EXPECT_TRUE(s.unreliable);
  EXPECT_TRUE(s.invalid);
  EXPECT_EQ(s.stalls, 3u);
  EXPECT_EQ(s.involuntary_switches, 17);
}

TEST(StarvationVerdict, BelowTheBoundsNothingIsSaid) {
  engine::ScenarioRun run;
  run.reps = {rep(5'000'000, 1'000'000'000)};  // 0.5 %
  EXPECT_FALSE(starvation_of(run).unreliable);
  run.reps = {rep(50'000'000, 1'000'000'000)};  // 5 %: said, still valid
  EXPECT_TRUE(starvation_of(run).unreliable);
  EXPECT_FALSE(starvation_of(run).invalid);
  run.reps = {rep(101'000'000, 1'000'000'000)};  // 10.1 %
  EXPECT_TRUE(starvation_of(run).invalid);
}

TEST(StarvationVerdict, TheWarningSaysWhatWasLost) {
  engine::ScenarioRun run;
  run.reps = {rep(312'000'000, 1'020'000'000)};
  const std::string message = starvation_message("two groups", starvation_of(run));
  EXPECT_NE(message.find("scenario \"two groups\": the worker lost 312"), std::string::npos)
      << message;
  EXPECT_NE(message.find("to other processes; figures unreliable"), std::string::npos) << message;
  EXPECT_NE(message.find("(30.6 %)"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid measurement"), std::string::npos) << message;
}

TEST(StarvationVerdict, AnInvalidScenarioMakesTheRunInvalid) {
  Results results = testing::sample_results();
  EXPECT_FALSE(starved_invalid(results));
  results.scenarios.front().starvation.present = true;
  results.scenarios.front().starvation.unreliable = true;
  EXPECT_FALSE(starved_invalid(results));
  results.scenarios.front().starvation.invalid = true;
  EXPECT_TRUE(starved_invalid(results));
}

TEST(StarvationVerdict, WrittenOnlyWhenMeasuredAndReadBack) {
  Results results = testing::sample_results();
  const std::string without = results_to_json(results);
  EXPECT_EQ(without.find("\"starvation\""), std::string::npos);
  auto old = results_from_json(without, "old.json");  // a file from before the field
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_FALSE(old->scenarios.front().starvation.present);

  Starvation& s = results.scenarios.front().starvation;
  s.present = true;
  s.lost_ns = 312'000'000;
  s.run_ns = 1'020'000'000;
  s.lost_fraction = 0.306;
  s.involuntary_switches = 95;
  s.unreliable = true;
  s.invalid = true;
  auto read = results_from_json(results_to_json(results), "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const Starvation& back = read->scenarios.front().starvation;
  EXPECT_TRUE(back.present);
  EXPECT_EQ(back.lost_ns, 312'000'000);
  EXPECT_EQ(back.involuntary_switches, 95);
  EXPECT_TRUE(back.invalid);
  EXPECT_TRUE(starved_invalid(*read));
}

}  // namespace
}  // namespace qb::report
