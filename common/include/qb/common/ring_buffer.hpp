// A fixed-capacity FIFO for one thread (the simulator's event rings, the DPDK worker's
// send queues and completion buffers): power-of-two capacity, so an index is a mask away from
// its slot; no allocation after reset(), every call O(1) and noexcept. Not a concurrent
// (SPSC) ring: producer and consumer are the same thread.
//
// Positions count every push since reset() (64 bits: they never wrap in practice), so an
// entry keeps its position while it is in the ring; the DPDK worker uses that to find an
// entry again after more were pushed behind it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qb {

template <class T>
class RingBuffer {
 public:
  /// Empties the ring and sizes it to the smallest power of two >= min_capacity (at least 1).
  void reset(size_t min_capacity) {
    size_t capacity = 1;
    while (capacity < min_capacity) capacity <<= 1;
    slots_.assign(capacity, T{});
    mask_ = capacity - 1;
    head_ = tail_ = 0;
  }
  /// Empties the ring, keeping its capacity.
  void clear() noexcept { head_ = tail_ = 0; }

  bool empty() const noexcept { return head_ == tail_; }
  bool full() const noexcept { return tail_ - head_ == slots_.size(); }
  size_t size() const noexcept { return static_cast<size_t>(tail_ - head_); }
  size_t capacity() const noexcept { return slots_.size(); }
  size_t free() const noexcept { return capacity() - size(); }

  /// The oldest entry (!empty()).
  const T& front() const noexcept { return slots_[head_ & mask_]; }
  /// The i-th entry from the front (i < size()).
  const T& at(size_t i) const noexcept { return slots_[(head_ + i) & mask_]; }

  /// Appends a copy (!full(): the caller checks; a push into a full ring overwrites the front).
  void push(const T& value) noexcept { slots_[tail_++ & mask_] = value; }
  /// Appends a slot and returns it for the caller to fill in place (!full()).
  T& push_slot() noexcept { return slots_[tail_++ & mask_]; }
  /// Removes the front entry (!empty()).
  void pop() noexcept { ++head_; }
  /// Removes the first n entries (n <= size()).
  void drop(size_t n) noexcept { head_ += n; }

  /// The position the next push gets.
  uint64_t tail_position() const noexcept { return tail_; }
  /// The entry at an absolute position still in the ring (head <= position < tail).
  T& at_position(uint64_t position) noexcept { return slots_[position & mask_]; }

 private:
  std::vector<T> slots_;
  uint64_t mask_ = 0;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
};

}  // namespace qb
