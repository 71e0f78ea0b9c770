#include "qb/engine/zeroed_counters.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

namespace qb::engine {

ZeroedCounters::ZeroedCounters(size_t size) : size_(size) {
  if (size == 0) return;
  mapped_bytes_ = size * sizeof(uint64_t);
  void* memory =
      ::mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  data_ = static_cast<uint64_t*>(memory);
}

ZeroedCounters::~ZeroedCounters() { release(); }

void ZeroedCounters::release() noexcept {
  if (data_ != nullptr) ::munmap(data_, mapped_bytes_);
  data_ = nullptr;
  size_ = 0;
  mapped_bytes_ = 0;
}

ZeroedCounters::ZeroedCounters(const ZeroedCounters& other) : ZeroedCounters(other.size_) {
  if (size_ != 0) std::memcpy(data_, other.data_, size_ * sizeof(uint64_t));
}

ZeroedCounters& ZeroedCounters::operator=(const ZeroedCounters& other) {
  if (this != &other) {
    ZeroedCounters copy(other);
    *this = std::move(copy);
  }
  return *this;
}

ZeroedCounters::ZeroedCounters(ZeroedCounters&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)) {}

ZeroedCounters& ZeroedCounters::operator=(ZeroedCounters&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
  }
  return *this;
}

void ZeroedCounters::clear_range(size_t first, size_t last) noexcept {
  last = std::min(last, size_);
  if (first < last) std::memset(data_ + first, 0, (last - first) * sizeof(uint64_t));
}

}  // namespace qb::engine
