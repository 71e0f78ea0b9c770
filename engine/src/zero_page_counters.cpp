#include "qb/engine/zero_page_counters.hpp"

#include <sys/mman.h>

#include <new>

namespace qb::engine {

ZeroPageCounters::ZeroPageCounters(size_t size) : size_(size) {
  if (size == 0) return;
  // Private anonymous memory reads as zeros and gets a physical page only when first written;
  // MAP_NORESERVE: the whole layout is a bound, not a commitment (most of it is never written).
  void* memory = mmap(nullptr, reserved_bytes(), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  counters_ = static_cast<Counter*>(memory);
}

ZeroPageCounters::~ZeroPageCounters() {
  if (counters_ != nullptr) munmap(counters_, reserved_bytes());
}

}  // namespace qb::engine
