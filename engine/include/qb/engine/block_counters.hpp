// A fixed-size array of 64-bit counters stored as equal blocks that are allocated (zeroed) the
// first time a counter in them is written. Why: a run holds two latency histograms per flow, each
// laid out for 25k counters, of which a latency distribution touches a few blocks. Reads of an
// unallocated block see zeros; the bound on memory is the full layout, and allocation happens at
// most once per block, never per recorded value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace qb::engine {

class BlockCounters {
 public:
  BlockCounters() = default;
  /// `block_count` blocks of 2^block_shift counters each.
  BlockCounters(size_t block_count, int block_shift);
  BlockCounters(const BlockCounters& other);
  BlockCounters& operator=(const BlockCounters& other);
  BlockCounters(BlockCounters&&) noexcept = default;
  BlockCounters& operator=(BlockCounters&&) noexcept = default;

  size_t size() const noexcept { return blocks_.size() << block_shift_; }
  size_t block_size() const noexcept { return size_t{1} << block_shift_; }
  size_t block_count() const noexcept { return blocks_.size(); }

  uint64_t get(size_t i) const noexcept {
    const uint64_t* block = blocks_[i >> block_shift_].get();
    return block == nullptr ? 0 : block[i & mask_];
  }
  /// The counter, allocating its block on first use.
  uint64_t& at(size_t i) {
    uint64_t* block = blocks_[i >> block_shift_].get();
    if (block == nullptr) [[unlikely]]
      block = allocate(i >> block_shift_);
    return block[i & mask_];
  }
  /// The block's counters, or nullptr when it was never written.
  const uint64_t* block(size_t b) const noexcept { return blocks_[b].get(); }
  uint64_t* mutable_block(size_t b) { return blocks_[b] ? blocks_[b].get() : allocate(b); }
  /// Zeroes every counter (allocated blocks are kept for reuse).
  void clear() noexcept;
  /// The most memory the counters can take (the fixed bound).
  size_t reserved_bytes() const noexcept { return size() * sizeof(uint64_t); }

 private:
  uint64_t* allocate(size_t b);
  std::vector<std::unique_ptr<uint64_t[]>> blocks_;
  int block_shift_ = 0;
  size_t mask_ = 0;
};

}  // namespace qb::engine
