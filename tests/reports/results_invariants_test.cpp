// The reader checks what the writer guarantees: an edited or corrupt results file is refused
// naming the field (exit 2 in `report`/`compare`), never drawn or compared as if measured.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

// A consistent results value: one scenario, every judgement held.
Results consistent() {
  Results r = testing::sample_results();
  ScenarioResult& s = r.scenarios.front();
  s.gates.erase(s.gates.begin() + 1);  // the fixture's failed latency gate
  s.passed = true;
  r.passed = true;
  s.queue_depth = {QueueDepthSeries{"port", {1000.0, 2000.0}, {500.0, 1500.0}}};
  return r;
}

void expect_refused(const std::function<void(Results&)>& edit, const std::string& path,
                    const std::string& message_part) {
  Results r = consistent();
  edit(r);
  auto read = results_from_json(results_to_json(r), "edited.json");
  ASSERT_FALSE(read) << "read: " << path;
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_EQ(read.error().where, path) << read.error().to_string();
  EXPECT_EQ(read.error().loc.file, "edited.json");
  EXPECT_NE(read.error().message.find(message_part), std::string::npos) << read.error().to_string();
}

TEST(ResultsInvariants, AConsistentFileReads) {
  auto read = results_from_json(results_to_json(consistent()), "ok.json");
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_TRUE(read->passed);
}

TEST(ResultsInvariants, NegativeQueueDepthsAndRates) {
  expect_refused([](Results& r) { r.scenarios[0].queue_depth[0].max_bytes[1] = -5.0; },
                 "scenarios[0].queue_depth[0].max_bytes[1]", "-5");
  expect_refused([](Results& r) { r.scenarios[0].queue_depth[0].mean_bytes[0] = -1.0; },
                 "scenarios[0].queue_depth[0].mean_bytes[0]", "negative");
  expect_refused([](Results& r) { r.scenarios[0].flows[1].measured_bps = -1e9; },
                 "scenarios[0].flows[1].measured_bps", "negative");
  expect_refused([](Results& r) { r.scenarios[0].flows[0].measured_bps_reps[0] = -1.0; },
                 "scenarios[0].flows[0].measured_bps_reps[0]", "negative");
  expect_refused([](Results& r) { r.scenarios[0].groups[0].expected_bps = -3.0; },
                 "scenarios[0].groups[0].expected_bps", "negative");
  expect_refused([](Results& r) { r.scenarios[0].flows[0].error = -1.5; },
                 "scenarios[0].flows[0].error", ">= -100%");
  expect_refused([](Results& r) { r.scenarios[0].fairness.jain = 1.7; },
                 "scenarios[0].fairness.jain", "0..1");
}

TEST(ResultsInvariants, RepetitionCountsAndMeasuredTimes) {
  // 7 partial repetitions of 2.
  expect_refused(
      [](Results& r) {
        ScenarioResult& s = r.scenarios[0];
        s.repetitions = 2;
        s.repetitions_completed = 0;
        s.repetitions_partial = 7;
        s.measured_ns_reps.assign(7, s.duration_ns / 2);
      },
      "scenarios[0].repetitions_partial", "7 partial repetitions of 2");
  expect_refused([](Results& r) { r.scenarios[0].repetitions_completed = 9; },
                 "scenarios[0].repetitions_completed", "9 repetitions completed of 5");
  expect_refused(
      [](Results& r) {
        ScenarioResult& s = r.scenarios[0];
        s.repetitions_completed = s.repetitions - 1;
        s.repetitions_partial = 1;
        s.measured_ns_reps.assign(s.repetitions, s.duration_ns);
        s.measured_ns_reps[1] = -20;
      },
      "scenarios[0].measured_ns_reps[1]", "outside 0");
  expect_refused([](Results& r) { r.scenarios[0].duration_ns = 0; }, "scenarios[0].duration_ns",
                 "duration");
  expect_refused([](Results& r) { r.scenarios[0].warmup_ns = -1; }, "scenarios[0].warmup_ns",
                 "negative");
}

TEST(ResultsInvariants, PassedMustAgreeWithWhatWasJudged) {
  // An edited `passed: true` beside an invalid measurement must not print PASSED.
  expect_refused(
      [](Results& r) {
        r.scenarios[0].starvation.present = true;
        r.scenarios[0].starvation.invalid = true;
        r.scenarios[0].starvation.unreliable = true;
      },
      "passed", "invalid measurement");
  expect_refused([](Results& r) { r.complete = false; }, "passed", "incomplete");
  expect_refused([](Results& r) { r.scenarios[0].passed = false; }, "passed", "failed");
  expect_refused([](Results& r) { r.scenarios[0].gates[0].passed = false; }, "scenarios[0].passed",
                 "max_share_error");
  // The same facts with passed: false read fine.
  Results failed = consistent();
  failed.scenarios[0].starvation = {true, 200, 1000, 0.2, 0, 0, 0, 0, 0, true, true};
  failed.scenarios[0].passed = true;
  failed.passed = false;
  EXPECT_TRUE(results_from_json(results_to_json(failed), "f.json"));
}

}  // namespace
}  // namespace qb::report
