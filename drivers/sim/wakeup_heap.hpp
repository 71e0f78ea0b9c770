// Pending wake-ups of the rate-control seam (limiter releases, program timers, RTT probe
// answers), one slot per key: an indexed binary min-heap by (time, key), so setting, moving
// and cancelling a key is O(log n) and equal times come out in key order (deterministic).
// No allocation after reset().
#pragma once

#include <cstdint>
#include <vector>

namespace qb::drv::sim {

class WakeupHeap {
 public:
  /// Keys 0..keys-1, none pending.
  void reset(uint32_t keys) {
    time_.assign(keys, 0);
    slot_.assign(keys, kAbsent);
    heap_.clear();
    heap_.reserve(keys);
  }
  void clear() noexcept {
    for (const uint32_t key : heap_) slot_[key] = kAbsent;
    heap_.clear();
  }
  bool empty() const noexcept { return heap_.empty(); }
  /// Earliest pending time (INT64_MAX: none).
  int64_t top_time() const noexcept { return heap_.empty() ? INT64_MAX : time_[heap_[0]]; }
  uint32_t top_key() const noexcept { return heap_[0]; }
  bool pending(uint32_t key) const noexcept { return slot_[key] != kAbsent; }
  int64_t time(uint32_t key) const noexcept { return time_[key]; }

  /// Key `key` wakes at `time_ps` (pending or not).
  void set(uint32_t key, int64_t time_ps) noexcept {
    if (slot_[key] == kAbsent) {
      time_[key] = time_ps;
      slot_[key] = static_cast<uint32_t>(heap_.size());
      heap_.push_back(key);  // capacity reserved in reset()
      up(slot_[key]);
      return;
    }
    // Pending: it moves only the way its new time says (a program re-arms its wake-up for
    // the same time on most events: nothing moves).
    const int64_t old_ps = time_[key];
    time_[key] = time_ps;
    if (time_ps < old_ps) {
      up(slot_[key]);
    } else if (time_ps > old_ps) {
      down(slot_[key]);
    }
  }
  void erase(uint32_t key) noexcept {
    const uint32_t at = slot_[key];
    if (at == kAbsent) return;
    const uint32_t last = heap_.back();
    heap_.pop_back();
    slot_[key] = kAbsent;
    if (last == key) return;
    heap_[at] = last;
    slot_[last] = at;
    up(at);
    down(slot_[last]);
  }
  void pop() noexcept { erase(heap_[0]); }

 private:
  static constexpr uint32_t kAbsent = UINT32_MAX;

  bool before(uint32_t a, uint32_t b) const noexcept {
    return time_[a] < time_[b] || (time_[a] == time_[b] && a < b);
  }
  void place(uint32_t at, uint32_t key) noexcept {
    heap_[at] = key;
    slot_[key] = at;
  }
  void up(uint32_t at) noexcept {
    const uint32_t key = heap_[at];
    while (at > 0) {
      const uint32_t parent = (at - 1) / 2;
      if (!before(key, heap_[parent])) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, key);
  }
  void down(uint32_t at) noexcept {
    const uint32_t key = heap_[at];
    const auto size = static_cast<uint32_t>(heap_.size());
    while (true) {
      uint32_t child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], key)) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, key);
  }

  std::vector<int64_t> time_;   // per key
  std::vector<uint32_t> slot_;  // per key: its index in heap_, or kAbsent
  std::vector<uint32_t> heap_;  // keys
};

}  // namespace qb::drv::sim
