// A fixed-capacity FIFO (power-of-two capacity), no allocation after reset().
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qb::drv::dpdk {

template <class T>
class Fifo {
 public:
  void reset(size_t min_capacity) {
    size_t capacity = 1;
    while (capacity < min_capacity) capacity <<= 1;
    slots_.assign(capacity, T{});
    mask_ = capacity - 1;
    head_ = tail_ = 0;
  }
  bool empty() const noexcept { return head_ == tail_; }
  size_t size() const noexcept { return static_cast<size_t>(tail_ - head_); }
  size_t capacity() const noexcept { return slots_.size(); }
  size_t free() const noexcept { return capacity() - size(); }
  const T& front() const noexcept { return slots_[head_ & mask_]; }
  void push(const T& value) noexcept { slots_[tail_++ & mask_] = value; }
  /// The next slot, already pushed: the caller fills it in place (no copy of a local).
  T& push_slot() noexcept { return slots_[tail_++ & mask_]; }
  void pop() noexcept { ++head_; }
  /// The i-th entry from the front (i < size()).
  const T& peek(size_t i) const noexcept { return slots_[(head_ + i) & mask_]; }
  /// Positions count every push since reset(): the next push gets tail_position().
  uint64_t tail_position() const noexcept { return tail_; }
  /// The entry at an absolute position still in the FIFO (head <= position < tail).
  T& at_position(uint64_t position) noexcept { return slots_[position & mask_]; }
  /// Drops the first n (<= size()) entries.
  void drop(size_t n) noexcept { head_ += n; }

 private:
  std::vector<T> slots_;
  uint64_t mask_ = 0;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
};

}  // namespace qb::drv::dpdk
