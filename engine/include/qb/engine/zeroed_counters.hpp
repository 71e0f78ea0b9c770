// A fixed-size array of zero-initialised 64-bit counters backed by anonymous memory pages.
// Why: a run holds two latency histograms per flow, each with ~25k counters of which a latency
// distribution touches a few hundred. Anonymous pages read as zero and become real memory only
// when written, so a histogram costs what it records instead of its whole layout, and creating
// or freeing one needs no memset. The size is fixed at construction; nothing grows later.
#pragma once

#include <cstddef>
#include <cstdint>

namespace qb::engine {

class ZeroedCounters {
 public:
  ZeroedCounters() = default;
  explicit ZeroedCounters(size_t size);
  ~ZeroedCounters();
  ZeroedCounters(const ZeroedCounters& other);
  ZeroedCounters& operator=(const ZeroedCounters& other);
  ZeroedCounters(ZeroedCounters&& other) noexcept;
  ZeroedCounters& operator=(ZeroedCounters&& other) noexcept;

  size_t size() const noexcept { return size_; }
  uint64_t& operator[](size_t i) noexcept { return data_[i]; }
  uint64_t operator[](size_t i) const noexcept { return data_[i]; }
  /// Zeroes [first, last) (callers pass the range they know they wrote).
  void clear_range(size_t first, size_t last) noexcept;
  /// Bytes reserved (the fixed footprint; resident memory is what was written).
  size_t reserved_bytes() const noexcept { return mapped_bytes_; }

 private:
  void release() noexcept;
  uint64_t* data_ = nullptr;
  size_t size_ = 0;
  size_t mapped_bytes_ = 0;
};

}  // namespace qb::engine
