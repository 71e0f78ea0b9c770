// A fixed array of 64-bit counters in anonymous memory that the kernel zero-fills one page at a
// time, on the first write to it. Why: a run holds two latency histograms per flow, each laid
// out for about 25k counters (200 KB), of which a latency distribution touches a few pages.
// Memory grows only with the pages written, as a block-allocated array would, but a counter is
// one plain index into one pointer, with no "is the block there yet" test per recorded value.
// Arrays are cut from larger mappings and reused: the owner gives an array back all zero (a
// histogram clears the counters it used), so a reused array needs no clearing of its own.
// Under AddressSanitizer they come from the heap instead (ASan watches heap blocks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace qb::engine {

class ZeroPageCounters {
 public:
  /// A counter is its own type, not a bare uint64_t: under type-based alias analysis a write to
  /// one then cannot change the owner's uint64_t fields, so a loop of records keeps the running
  /// sum and extremes in registers instead of reloading them after every counter write.
  struct Counter {
    uint64_t count;
  };

  ZeroPageCounters() = default;
  /// `size` counters, all zero. Throws std::bad_alloc when the address space cannot be mapped.
  explicit ZeroPageCounters(size_t size);
  /// The owner must have set every counter back to zero: the array is reused as it is.
  ~ZeroPageCounters() { release(); }
  /// A moved-from object holds no counters (size 0).
  ZeroPageCounters(ZeroPageCounters&& other) noexcept
      : counters_(std::exchange(other.counters_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  /// Gives this object's array back (all zero, as for the destructor) and takes other's.
  ZeroPageCounters& operator=(ZeroPageCounters&& other) noexcept;
  // Not copyable: a whole copy would write every page. The owner copies the range it knows
  // is in use (the histogram's min..max).
  ZeroPageCounters(const ZeroPageCounters&) = delete;
  ZeroPageCounters& operator=(const ZeroPageCounters&) = delete;

  Counter* data() noexcept { return counters_; }
  const Counter* data() const noexcept { return counters_; }
  size_t size() const noexcept { return size_; }
  /// The most memory the counters can take (the fixed bound).
  size_t reserved_bytes() const noexcept { return size_ * sizeof(Counter); }

 private:
  void release() noexcept;

  Counter* counters_ = nullptr;
  size_t size_ = 0;
};

}  // namespace qb::engine
