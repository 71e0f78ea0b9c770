// Pending wake-ups of the rate-control seam (limiter releases, program timers, RTT probe
// answers), one slot per key: an indexed binary min-heap by (time, key), so setting, moving
// and cancelling a key is O(log n) and equal times come out in key order (deterministic).
// No allocation after reset().
//
// Each heap entry holds its time and key packed in one 128-bit integer (time above, key below),
// so one integer comparison orders two entries and a sift reads no side array: in the
// simulator's incast profiles the sifts' dependent loads and compare branches were the cost.
#pragma once

#include <cstdint>
#include <vector>

namespace qb::drv::sim {

class WakeupHeap {
 public:
  /// Keys 0..keys-1, none pending.
  void reset(uint32_t keys) {
    slot_.assign(keys, kAbsent);
    heap_.clear();
    heap_.reserve(keys);
  }
  void clear() noexcept {
    for (const Entry entry : heap_) slot_[key_of(entry)] = kAbsent;
    heap_.clear();
  }
  bool empty() const noexcept { return heap_.empty(); }
  /// Earliest pending time (INT64_MAX: none).
  int64_t top_time() const noexcept { return heap_.empty() ? INT64_MAX : time_of(heap_[0]); }
  uint32_t top_key() const noexcept { return key_of(heap_[0]); }
  bool pending(uint32_t key) const noexcept { return slot_[key] != kAbsent; }

  /// Key `key` wakes at `time_ps` (pending or not).
  void set(uint32_t key, int64_t time_ps) noexcept {
    const Entry entry = make_entry(time_ps, key);
    const uint32_t at = slot_[key];
    if (at == kAbsent) {
      heap_.push_back(entry);  // capacity reserved in reset()
      up(static_cast<uint32_t>(heap_.size() - 1), entry);
      return;
    }
    // Pending: it moves only the way its new time says (a program re-arms its wake-up for
    // the same time on most events: nothing moves).
    if (entry < heap_[at]) {
      up(at, entry);
    } else if (heap_[at] < entry) {
      down(at, entry);
    }
  }
  void erase(uint32_t key) noexcept {
    const uint32_t at = slot_[key];
    if (at == kAbsent) return;
    slot_[key] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (at == heap_.size()) return;  // it was the last
    // The last entry fills the hole: up when it is earlier than what was there, else down.
    if (last < heap_[at]) {
      up(at, last);
    } else {
      down(at, last);
    }
  }
  void pop() noexcept { erase(key_of(heap_[0])); }

 private:
  __extension__ using Entry = unsigned __int128;  // (time with its sign bit flipped) << 32 | key
  static constexpr uint32_t kAbsent = UINT32_MAX;
  static constexpr uint64_t kSignBit = uint64_t{1} << 63;

  static Entry make_entry(int64_t time_ps, uint32_t key) noexcept {
    // Flipping the sign bit maps signed order onto unsigned order.
    return (static_cast<Entry>(static_cast<uint64_t>(time_ps) ^ kSignBit) << 32) | key;
  }
  static int64_t time_of(Entry entry) noexcept {
    return static_cast<int64_t>(static_cast<uint64_t>(entry >> 32) ^ kSignBit);
  }
  static uint32_t key_of(Entry entry) noexcept { return static_cast<uint32_t>(entry); }

  void place(uint32_t at, Entry entry) noexcept {
    heap_[at] = entry;
    slot_[key_of(entry)] = at;
  }
  /// Puts `entry` at or above `at` (the hole there is overwritten).
  void up(uint32_t at, Entry entry) noexcept {
    while (at > 0) {
      const uint32_t parent = (at - 1) / 2;
      if (!(entry < heap_[parent])) break;
      place(at, heap_[parent]);
      at = parent;
    }
    place(at, entry);
  }
  /// Puts `entry` at or below `at` (the hole there is overwritten).
  void down(uint32_t at, Entry entry) noexcept {
    const auto size = static_cast<uint32_t>(heap_.size());
    while (true) {
      uint32_t child = 2 * at + 1;
      if (child >= size) break;
      if (child + 1 < size && heap_[child + 1] < heap_[child]) ++child;
      if (!(heap_[child] < entry)) break;
      place(at, heap_[child]);
      at = child;
    }
    place(at, entry);
  }

  std::vector<uint32_t> slot_;  // per key: its index in heap_, or kAbsent
  std::vector<Entry> heap_;
};

}  // namespace qb::drv::sim
