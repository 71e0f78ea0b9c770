// The rate-control seam's pending wake-ups (drivers/sim/wakeup_heap.hpp, private to the drivers).
#include "wakeup_heap.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <utility>

#include "qb/common/rng.hpp"

namespace qb::drv::sim {
namespace {

TEST(WakeupHeap, ComesOutByTimeThenKey) {
  WakeupHeap heap;
  heap.reset(4);
  EXPECT_EQ(heap.top_time(), INT64_MAX);
  heap.set(3, 50);
  heap.set(1, 50);
  heap.set(2, 10);
  heap.set(0, 70);
  heap.set(0, 20);  // moved earlier
  heap.erase(2);
  EXPECT_FALSE(heap.pending(2));
  const std::pair<uint32_t, int64_t> expected[] = {{0, 20}, {1, 50}, {3, 50}};
  for (const auto& [key, time] : expected) {
    ASSERT_FALSE(heap.empty());
    EXPECT_EQ(heap.top_key(), key);
    EXPECT_EQ(heap.top_time(), time);
    heap.pop();
  }
  EXPECT_TRUE(heap.empty());
}

TEST(WakeupHeap, AgreesWithAnOrderedMapUnderRandomUse) {
  constexpr uint32_t kKeys = 64;
  WakeupHeap heap;
  heap.reset(kKeys);
  std::map<std::pair<int64_t, uint32_t>, bool> reference;  // (time, key)
  std::map<uint32_t, int64_t> time_of;
  Rng rng(11);
  for (int step = 0; step < 20000; ++step) {
    const auto key = static_cast<uint32_t>(rng.next_below(kKeys));
    const uint64_t op = rng.next_below(4);
    if (op < 2) {
      const auto time = static_cast<int64_t>(rng.next_below(1000));
      if (time_of.count(key) != 0) reference.erase({time_of[key], key});
      reference[{time, key}] = true;
      time_of[key] = time;
      heap.set(key, time);
    } else if (op == 2) {
      if (time_of.count(key) != 0) reference.erase({time_of[key], key});
      time_of.erase(key);
      heap.erase(key);
    } else if (!reference.empty()) {
      const auto [time, top] = reference.begin()->first;
      ASSERT_EQ(heap.top_key(), top);
      ASSERT_EQ(heap.top_time(), time);
      reference.erase(reference.begin());
      time_of.erase(top);
      heap.pop();
    }
    ASSERT_EQ(heap.empty(), reference.empty());
  }
  heap.clear();
  EXPECT_TRUE(heap.empty());
  for (uint32_t key = 0; key < kKeys; ++key) EXPECT_FALSE(heap.pending(key));
}

}  // namespace
}  // namespace qb::drv::sim
