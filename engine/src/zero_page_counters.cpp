#include "qb/engine/zero_page_counters.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

// Under AddressSanitizer the counters come from the heap instead: ASan watches heap blocks (a
// bad counter index hits a redzone), not mmap'd memory.
#if defined(__SANITIZE_ADDRESS__)
#define QB_COUNTERS_ON_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QB_COUNTERS_ON_HEAP 1
#endif
#endif

namespace qb::engine {
namespace {

#ifndef QB_COUNTERS_ON_HEAP
// Arrays are cut from chunks of up to this many (and up to kChunkBytes) and never unmapped: a
// mapping per histogram made the kernel split and merge its memory areas on every one (a run of
// 65536 flows spent a third of its time there). A page written stays with its array for the
// next histogram that reuses it.
constexpr size_t kArraysPerChunk = 32;
constexpr size_t kChunkBytes = size_t{8} << 20;  // larger layouts: fewer per chunk

/// Arrays given back (all zero again), by size, for the next histograms. Process-wide and
/// never destroyed: histograms may outlive any static.
struct Pool {
  std::mutex mutex;
  std::vector<std::pair<size_t, ZeroPageCounters::Counter*>> free;
  size_t arrays = 0;  // ever cut: `free` has room for all of them
};

Pool& pool() {
  static Pool* const instance = new Pool;
  return *instance;
}

size_t page_rounded(size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}
#endif

}  // namespace

ZeroPageCounters::ZeroPageCounters(size_t size) : size_(size) {
  if (size == 0) return;
#ifdef QB_COUNTERS_ON_HEAP
  counters_ = static_cast<Counter*>(std::calloc(size, sizeof(Counter)));
  if (counters_ == nullptr) throw std::bad_alloc();
#else
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  for (size_t i = p.free.size(); i-- > 0;) {
    if (p.free[i].first == size) {
      counters_ = p.free[i].second;
      p.free[i] = p.free.back();
      p.free.pop_back();
      return;
    }
  }
  // Private anonymous memory reads as zeros and gets a physical page only when first written;
  // MAP_NORESERVE: the layouts are a bound, not a commitment (most of them is never written).
  // (Under vm.overcommit_memory=2 the kernel commits them anyway: docs/suite-format.md.)
  const size_t array_bytes = page_rounded(size * sizeof(Counter));
  const size_t per_chunk = std::clamp<size_t>(kChunkBytes / array_bytes, 1, kArraysPerChunk);
  const size_t chunk_bytes = array_bytes * per_chunk;
  // Room for every array there will be, first: release() must never allocate.
  if (p.free.capacity() < p.arrays + per_chunk) {
    p.free.reserve(std::max(p.arrays + per_chunk, 2 * p.free.capacity()));
  }
  void* memory = mmap(nullptr, chunk_bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  // No transparent huge pages: with THP "always" the first write in a 2 MiB range would take
  // the whole 2 MiB, every histogram its whole layout. Best effort: without THP it fails.
  (void)madvise(memory, chunk_bytes, MADV_NOHUGEPAGE);
  auto* const base = static_cast<char*>(memory);
  p.arrays += per_chunk;
  for (size_t a = 1; a < per_chunk; ++a) {
    p.free.emplace_back(size, reinterpret_cast<Counter*>(base + a * array_bytes));
  }
  counters_ = reinterpret_cast<Counter*>(base);
#endif
}

ZeroPageCounters& ZeroPageCounters::operator=(ZeroPageCounters&& other) noexcept {
  if (this != &other) {
    release();
    counters_ = std::exchange(other.counters_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void ZeroPageCounters::release() noexcept {
  if (counters_ == nullptr) return;
#ifdef QB_COUNTERS_ON_HEAP
  // The owner's promise, checked where the sanitizer runs are (the pool would reuse the array
  // as it is): a counter left set would show up in the next histogram.
  for (size_t i = 0; i < size_; ++i) {
    if (counters_[i].count != 0) {
      std::fprintf(stderr, "ZeroPageCounters: counter %zu of %zu given back non-zero\n", i, size_);
      std::abort();
    }
  }
  std::free(counters_);
#else
  Pool& p = pool();
  const std::lock_guard lock(p.mutex);
  // Room was reserved when the array's chunk was cut: no allocation here.
  p.free.emplace_back(size_, counters_);
#endif
  counters_ = nullptr;
  size_ = 0;
}

}  // namespace qb::engine
