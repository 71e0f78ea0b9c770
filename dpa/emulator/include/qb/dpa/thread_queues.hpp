// The DPA threads' queues in the emulator (qb/dpa/emulator.hpp): per thread, the end times of
// the events it holds (waiting or running), oldest first. A thread's queue is FIFO and every
// handler costs the same, so its end times never decrease and an event's start and end are
// known when it arrives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qb::dpa {

/// Where an admitted event runs on its thread.
struct ThreadSlot {
  uint64_t start_ns = 0;
  uint64_t end_ns = 0;
};

class ThreadQueues {
 public:
  /// `threads` threads holding at most `capacity` events each; all memory is allocated here.
  void reset(uint32_t threads, uint32_t capacity);
  /// Every thread idle and empty (keeps the memory).
  void clear() noexcept;

  /// What the held events spend after `now_ns` (no arrival after it yet): handler time, and
  /// the waits of those not started by then.
  struct Beyond {
    uint64_t busy_ns = 0;
    uint64_t wait_ns = 0;
  };
  Beyond beyond(uint64_t now_ns, uint64_t cost_ns) const noexcept;

  /// An event for `thread` arriving at `arrival_ns` that takes `cost_ns`: false when the thread
  /// already holds `capacity` events that end after `arrival_ns`, else its slot (queued).
  /// Arrivals must not go back in time: events that ended by `arrival_ns` are forgotten.
  bool admit(uint32_t thread, uint64_t arrival_ns, uint64_t cost_ns, ThreadSlot& slot) noexcept {
    Thread& state = threads_[thread];
    uint64_t* ends_ns = ends_ns_.data() + static_cast<std::size_t>(thread) * capacity_;
    // The oldest events finish first: free their slots up to the arrival.
    while (state.count > 0 && ends_ns[state.head] <= arrival_ns) {
      state.head = state.head + 1 == capacity_ ? 0 : state.head + 1;
      --state.count;
    }
    if (state.count == capacity_) return false;
    slot.start_ns = arrival_ns > state.last_end_ns ? arrival_ns : state.last_end_ns;
    slot.end_ns = slot.start_ns + cost_ns;
    uint32_t tail = state.head + state.count;
    if (tail >= capacity_) tail -= capacity_;
    ends_ns[tail] = slot.end_ns;
    ++state.count;
    state.last_end_ns = slot.end_ns;
    return true;
  }

 private:
  struct Thread {
    uint32_t head = 0;         // index of the oldest held event in its ring
    uint32_t count = 0;        // events held (waiting or running)
    uint64_t last_end_ns = 0;  // when the thread is next free
  };

  uint32_t capacity_ = 0;
  std::vector<Thread> threads_;
  std::vector<uint64_t> ends_ns_;  // threads * capacity rings of end times
};

}  // namespace qb::dpa
