#include "qb/common/ring_buffer.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace qb {
namespace {

TEST(RingBuffer, CapacityIsThePowerOfTwoAtOrAboveTheRequest) {
  RingBuffer<int> ring;
  ring.reset(0);
  EXPECT_EQ(ring.capacity(), 1u);
  ring.reset(5);
  EXPECT_EQ(ring.capacity(), 8u);
  ring.reset(8);
  EXPECT_EQ(ring.capacity(), 8u);
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(ring.free(), 8u);
}

TEST(RingBuffer, FirstInFirstOutAcrossTheWrap) {
  RingBuffer<uint32_t> ring;
  ring.reset(4);
  uint32_t pushed = 0;
  uint32_t popped = 0;
  // Pushes and pops out of step so head and tail wrap the slots many times.
  for (int round = 0; round < 100; ++round) {
    while (!ring.full()) ring.push(pushed++);
    EXPECT_EQ(ring.size(), 4u);
    EXPECT_EQ(ring.free(), 0u);
    for (size_t i = 0; i < ring.size(); ++i) EXPECT_EQ(ring.at(i), popped + i);
    const int take = 1 + round % 4;
    for (int k = 0; k < take; ++k) {
      EXPECT_EQ(ring.front(), popped++);
      ring.pop();
    }
  }
  EXPECT_EQ(pushed - popped, ring.size());
}

TEST(RingBuffer, PushSlotFillsInPlaceAndDropRemovesSeveral) {
  RingBuffer<uint64_t> ring;
  ring.reset(8);
  for (uint64_t v = 0; v < 6; ++v) ring.push_slot() = v * 10;
  ring.drop(4);
  EXPECT_EQ(ring.size(), 2u);
  EXPECT_EQ(ring.front(), 40u);
  EXPECT_EQ(ring.at(1), 50u);
}

TEST(RingBuffer, PositionsStayWithTheirEntry) {
  RingBuffer<int> ring;
  ring.reset(4);
  ring.push(1);
  ring.pop();
  const uint64_t position = ring.tail_position();
  EXPECT_EQ(position, 1u);
  ring.push(7);
  ring.push(8);
  ring.push(9);
  ring.at_position(position) += 100;  // found again after more were pushed behind it
  EXPECT_EQ(ring.front(), 107);
  EXPECT_EQ(ring.tail_position(), 4u);
}

TEST(RingBuffer, ClearKeepsTheCapacityAndResetEmpties) {
  RingBuffer<int> ring;
  ring.reset(3);
  ring.push(1);
  ring.push(2);
  ring.clear();
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(ring.capacity(), 4u);
  EXPECT_EQ(ring.tail_position(), 0u);
  ring.push(3);
  ring.reset(16);
  EXPECT_TRUE(ring.empty());
  EXPECT_EQ(ring.capacity(), 16u);
}

}  // namespace
}  // namespace qb
