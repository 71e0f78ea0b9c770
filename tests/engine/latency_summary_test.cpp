// Latency summaries with messages still outstanding at the window's end: the percentiles are the
// delivered messages', censored ("≥") when outstanding messages older than them reach their
// rank beyond its sampling noise; min, mean and stdev beside them.
#include "qb/engine/latency_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace qb::engine {
namespace {

// 1000 delivered messages: 990 at 1 us, 10 at 2 ms (p99 is 1 us, p99.9 is 2 ms).
Histogram delivered() {
  Histogram h;
  h.record_n(1'000, 990);
  h.record_n(2'000'000, 10);
  return h;
}

TEST(LatencyCensoring, ExactWhenNoOutstandingIsOlderThanThePercentile) {
  const Histogram h = delivered();
  Histogram young;  // in flight as usual: younger than every percentile
  young.record_n(500, 16);
  const LatencySummary s = summarise(h, &young);
  EXPECT_EQ(s.outstanding, 16u);
  EXPECT_EQ(s.oldest_outstanding_ns, 500);
  EXPECT_EQ(s.p99_ns, h.value_at_percentile(99));
  EXPECT_FALSE(s.censored.any());
}

TEST(LatencyCensoring, ALowerBoundWhereOlderOutstandingReachTheRank) {
  const Histogram h = delivered();
  // 16 messages stuck for 50 ms: among 1016, the 99th percentile's rank (1006) is one of them.
  Histogram stuck;
  stuck.record_n(50'000'000, 16);
  const LatencySummary s = summarise(h, &stuck);
  EXPECT_EQ(s.outstanding, 16u);
  EXPECT_EQ(s.oldest_outstanding_ns, 50'000'000);
  // The figures stay the delivered messages'; the flags say which are only lower bounds.
  EXPECT_EQ(s.p50_ns, h.value_at_percentile(50));
  EXPECT_EQ(s.p99_ns, h.value_at_percentile(99));
  EXPECT_FALSE(s.censored.p50);  // rank 508 of 1016: 990 delivered at or below it
  EXPECT_FALSE(s.censored.p90);
  EXPECT_TRUE(s.censored.p99);
  EXPECT_TRUE(s.censored.p999);
  EXPECT_TRUE(s.censored.max);
}

TEST(LatencyCensoring, OlderOutstandingWithinThePercentilesNoiseCensorNothingButTheMax) {
  const Histogram h = delivered();
  Histogram one;
  one.record(10'000);  // older than p99 (1 us), younger than p99.9 (2 ms)
  // p99: rank ceil(0.99 x 1001) = 991, one more than the 990 delivered at 1 us: within the
  // p99's sampling noise (sqrt(1001 x 0.99 x 0.01) = 3.1 ranks), so exact.
  EXPECT_FALSE(censored_at_age(h, one, 99, h.value_at_percentile(99)));
  // Four of them: rank 994, four short of it, beyond 3.2 ranks of noise: a lower bound.
  Histogram four;
  four.record_n(10'000, 4);
  EXPECT_TRUE(censored_at_age(h, four, 99, h.value_at_percentile(99)));
  // p50: rank 502, 990 delivered at or below: exact.
  EXPECT_FALSE(censored_at_age(h, four, 50, h.value_at_percentile(50)));
  // p99.9 (2 ms) and the maximum are older than them: exact.
  EXPECT_FALSE(censored_at_age(h, four, 99.9, h.value_at_percentile(99.9)));
  EXPECT_FALSE(censored_at_age(h, four, 100, h.max()));
  // The maximum has no noise: one message older than every delivered one censors it.
  Histogram oldest;
  oldest.record(3'000'000);
  EXPECT_TRUE(censored_at_age(h, oldest, 100, h.max()));
  // A message within the value's bucket is not older than it.
  Histogram same;
  same.record_n(1'000, 16);
  EXPECT_FALSE(censored_at_age(h, same, 99, h.value_at_percentile(99)));
}

TEST(LatencyCensoring, NothingDeliveredIsCensoredEverywhere) {
  const Histogram none;
  Histogram stuck;
  stuck.record_n(9'000'000, 3);
  const LatencySummary s = summarise(none, &stuck);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.outstanding, 3u);
  EXPECT_EQ(s.oldest_outstanding_ns, 9'000'000);
  EXPECT_TRUE(s.censored.p50 && s.censored.p99 && s.censored.max);
}

TEST(LatencySummary, StdevBesideMinAndMean) {
  Histogram h;
  h.record_n(1'000, 2);
  h.record_n(3'000, 2);  // mean 2 us, stdev 1 us (within the buckets' 0.1 %)
  const LatencySummary s = summarise(h);
  EXPECT_EQ(s.min_ns, 1'000);
  EXPECT_DOUBLE_EQ(s.mean_ns, 2'000.0);
  EXPECT_NEAR(s.stdev_ns, 1'000.0, 2.0);
  EXPECT_EQ(s.outstanding, 0u);
  EXPECT_FALSE(s.censored.any());
  Histogram one;
  one.record(5);
  EXPECT_EQ(summarise(one).stdev_ns, 0.0);
}

}  // namespace
}  // namespace qb::engine
