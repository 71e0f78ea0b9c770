// The DPA threads' queues: allocation and reset (admit() is inline, on post()'s path).
#include "qb/dpa/thread_queues.hpp"

#include <algorithm>

namespace qb::dpa {

void ThreadQueues::reset(uint32_t threads, uint32_t capacity) {
  // Build the new state aside so a failed allocation leaves this one as it was.
  std::vector<Thread> new_threads(threads);
  std::vector<uint64_t> new_ends_ns(static_cast<size_t>(threads) * capacity);
  threads_.swap(new_threads);
  ends_ns_.swap(new_ends_ns);
  capacity_ = capacity;
}

void ThreadQueues::clear() noexcept {
  std::fill(threads_.begin(), threads_.end(), Thread{});
  std::fill(ends_ns_.begin(), ends_ns_.end(), uint64_t{0});
}

ThreadQueues::Beyond ThreadQueues::beyond(uint64_t now_ns, uint64_t cost_ns) const noexcept {
  Beyond out;
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    const Thread& state = threads_[t];
    const uint64_t* ends_ns = ends_ns_.data() + t * capacity_;
    for (uint32_t i = 0; i < state.count; ++i) {
      uint32_t slot = state.head + i;
      if (slot >= capacity_) slot -= capacity_;
      const uint64_t end_ns = ends_ns[slot];
      if (end_ns <= now_ns) continue;
      const uint64_t start_ns = end_ns - cost_ns;
      out.busy_ns += end_ns - std::max(start_ns, now_ns);
      if (start_ns > now_ns) out.wait_ns += start_ns - now_ns;
    }
  }
  return out;
}

}  // namespace qb::dpa
