// Messages that never complete do not vanish from latency: on the simulator, a flow of the lossy
// incast that stops delivering (tail-drop lockout) has outstanding messages at the window's end,
// older than its delivered tail, and its tail percentiles are lower bounds; a healthy suite's
// in-flight messages censor nothing. The measured figures themselves do not move.
#include <gtest/gtest.h>

#include <string>

#include "../support/run_and_judge.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb {
namespace {

Result<judge::Results> run_config(const std::string& name, engine::RunOptions options = {}) {
  auto suite = suite::load_suite_file(QB_SOURCE_DIR "/configs/" + name);
  if (!suite.ok()) return std::move(suite).error();
  return testing_support::run_and_judge(*suite, "sim", options);
}

TEST(LatencyOutstanding, AStuckFlowOfTheLossyIncastShowsAsStuck) {
  auto results = run_config("incast_lossy_no_cc.toml");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const auto& scenario = results->scenarios.front();
  const judge::FlowResult* stuck = nullptr;
  for (const auto& flow : scenario.flows) {
    const auto& l = flow.latency;
    // A saturating flow never has more outstanding than its QP keeps posted (per repetition).
    EXPECT_LE(l.outstanding, uint64_t{l.outstanding_limit} * scenario.repetitions_completed)
        << flow.name;
    EXPECT_EQ(l.outstanding_limit, 16u) << flow.name;  // the suite's default `outstanding`
    EXPECT_EQ(flow.latency_from_sent.outstanding, 0u) << flow.name;  // send times unknown
    // Delivered some, then stopped: the oldest waits longer than any delivered message took.
    if (l.count > 0 && l.outstanding > 0 && l.oldest_outstanding_ns > 10 * l.max_ns &&
        stuck == nullptr) {
      stuck = &flow;
    }
  }
  ASSERT_NE(stuck, nullptr) << "no flow of the lossy incast stopped delivering";
  const auto& l = stuck->latency;
  EXPECT_TRUE(l.censored.p99) << stuck->name << " p99 " << l.p99_ns << " oldest "
                              << l.oldest_outstanding_ns << " outstanding " << l.outstanding;
  EXPECT_TRUE(l.censored.p999) << stuck->name;
  EXPECT_TRUE(l.censored.max) << stuck->name;
  // The group's figures add its flows' outstanding messages up.
  for (const auto& group : scenario.groups) {
    if (group.name != stuck->group) continue;
    EXPECT_GE(group.latency.outstanding, l.outstanding);
    EXPECT_GE(group.latency.oldest_outstanding_ns, l.oldest_outstanding_ns);
  }
}

TEST(LatencyOutstanding, InFlightMessagesOfAHealthySuiteCensorNothing) {
  auto results = run_config("mlx5_two_groups.toml");
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  for (const auto& scenario : results->scenarios) {
    for (const auto& flow : scenario.flows) {
      const auto& l = flow.latency;
      // Saturating QPs always have messages in flight at the end: counted, young, harmless.
      EXPECT_GT(l.outstanding, 0u) << flow.name;
      EXPECT_LE(l.oldest_outstanding_ns, l.max_ns) << flow.name;
      EXPECT_FALSE(l.censored.any()) << flow.name;
      EXPECT_GT(l.stdev_ns, 0.0) << flow.name;
      EXPECT_LE(l.stdev_ns, static_cast<double>(l.max_ns - l.min_ns)) << flow.name;
    }
  }
}

TEST(LatencyOutstanding, TheSameWhateverTheJobCount) {
  engine::RunOptions one;
  one.jobs = 1;
  engine::RunOptions two;
  two.jobs = 2;
  auto a = run_config("incast_lossy_no_cc.toml", one);
  auto b = run_config("incast_lossy_no_cc.toml", two);
  ASSERT_TRUE(a.ok() && b.ok());
  const auto& fa = a->scenarios.front().flows;
  const auto& fb = b->scenarios.front().flows;
  ASSERT_EQ(fa.size(), fb.size());
  for (size_t f = 0; f < fa.size(); ++f) {
    EXPECT_EQ(fa[f].latency.outstanding, fb[f].latency.outstanding) << fa[f].name;
    EXPECT_EQ(fa[f].latency.oldest_outstanding_ns, fb[f].latency.oldest_outstanding_ns);
  }
}

}  // namespace
}  // namespace qb
