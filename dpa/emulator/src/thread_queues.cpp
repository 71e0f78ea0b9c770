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

}  // namespace qb::dpa
