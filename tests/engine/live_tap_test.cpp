// The live view's parts that do not need a driver: how LiveTap puts the workers' interval
// counters together (in order, only once every worker has published, what one worker never
// reached at the end), the default interval and the progress fraction.
#include "live_tap.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace qb::engine {
namespace {

std::vector<LiveGroupCounters> bytes(uint64_t g0, uint64_t g1) {
  return {LiveGroupCounters{1, 2, g0, g0 + 10}, LiveGroupCounters{1, 2, g1, g1 + 10}};
}

TEST(LiveTap, HandsAnIntervalOverOnceEveryWorkerPublishedItInOrder) {
  std::vector<LiveInterval> seen;
  const IntervalSink sink = [&](const LiveInterval& i) { seen.push_back(i); };
  LiveTap tap(3, 1, 2, 2, sink);
  tap.publish(0, 0, 100, false, true, bytes(5, 7));  // worker A, interval 0
  EXPECT_TRUE(seen.empty());
  tap.publish(1, 100, 200, false, true, bytes(1, 1));  // worker A ahead, interval 1
  EXPECT_TRUE(seen.empty());
  tap.publish(0, 0, 103, false, true, bytes(50, 70));  // worker B, interval 0
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].scenario, 3u);
  EXPECT_EQ(seen[0].repetition, 1u);
  EXPECT_EQ(seen[0].index, 0u);
  EXPECT_EQ(seen[0].start_ns, 0);
  EXPECT_EQ(seen[0].end_ns, 103);  // the later snapshot of the two
  ASSERT_EQ(seen[0].groups.size(), 2u);
  EXPECT_EQ(seen[0].groups[0].payload_bytes, 55u);
  EXPECT_EQ(seen[0].groups[1].payload_bytes, 77u);
  EXPECT_EQ(seen[0].groups[1].wire_bytes, 97u);
  EXPECT_EQ(seen[0].groups[0].messages, 2u);
  EXPECT_FALSE(seen[0].last);
  tap.publish(1, 103, 200, true, true, bytes(2, 2));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1].index, 1u);
  EXPECT_EQ(seen[1].groups[0].payload_bytes, 3u);
  EXPECT_FALSE(seen[1].last);  // only B ended there
}

TEST(LiveTap, FinishHandsOverWhatOnlySomeWorkersReachedMarkedIncompleteAndLast) {
  std::vector<LiveInterval> seen;
  const IntervalSink sink = [&](const LiveInterval& i) { seen.push_back(i); };
  LiveTap tap(0, 0, 2, 1, sink);
  const std::vector<LiveGroupCounters> one{LiveGroupCounters{1, 1, 100, 120}};
  tap.publish(0, 0, 10, false, true, one);
  tap.publish(0, 0, 10, false, true, one);
  tap.publish(1, 10, 14, true, false, one);  // A cut short in interval 1
  tap.publish(1, 10, 20, false, true, one);  // B went on to 2 before it saw the flag
  tap.publish(2, 20, 22, true, false, one);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_FALSE(seen[1].complete);
  EXPECT_FALSE(seen[1].last);
  tap.finish();
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2].index, 2u);
  EXPECT_TRUE(seen[2].last);
  EXPECT_FALSE(seen[2].complete);
  EXPECT_EQ(seen[2].groups[0].payload_bytes, 100u);
  tap.finish();  // nothing left
  EXPECT_EQ(seen.size(), 3u);
}

TEST(LiveTap, OneWorkerEndingNormallyMarksItsLastIntervalLastAndComplete) {
  std::vector<LiveInterval> seen;
  const IntervalSink sink = [&](const LiveInterval& i) { seen.push_back(i); };
  LiveTap tap(0, 0, 1, 1, sink);
  const std::vector<LiveGroupCounters> one{LiveGroupCounters{1, 1, 8, 9}};
  tap.publish(0, 0, 10, false, true, one);
  tap.publish(1, 10, 20, true, true, one);
  tap.finish();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_FALSE(seen[0].last);
  EXPECT_TRUE(seen[1].last);
  EXPECT_TRUE(seen[1].complete);
  EXPECT_DOUBLE_EQ(seen[1].seconds(), 10e-9);
}

TEST(LiveInterval, DefaultIsATenthRoundedDownToOneTwoOrFive) {
  EXPECT_EQ(default_live_interval_ns(100'000'000), 10'000'000);        // 100 ms -> 10 ms
  EXPECT_EQ(default_live_interval_ns(60'000'000), 5'000'000);          // 60 ms -> 5 ms
  EXPECT_EQ(default_live_interval_ns(8'000'000), 500'000);             // 8 ms -> 0.5 ms
  EXPECT_EQ(default_live_interval_ns(30'000'000'000), 1'000'000'000);  // at most 1 s
  EXPECT_EQ(default_live_interval_ns(3'000'000'000), 200'000'000);
  EXPECT_EQ(default_live_interval_ns(5'000), 1'000);  // at least 1 us
  EXPECT_EQ(default_live_interval_ns(0), 1'000);
}

TEST(RunProgress, FractionOfThePlannedTimeCoveredClampedToOne) {
  RunProgress progress;
  EXPECT_EQ(progress.fraction(), 0.0);
  progress.add_planned(200);
  progress.add_covered(50);
  EXPECT_DOUBLE_EQ(progress.fraction(), 0.25);
  progress.add_covered(500);
  EXPECT_DOUBLE_EQ(progress.fraction(), 1.0);
}

}  // namespace
}  // namespace qb::engine
