#include "qb/engine/block_counters.hpp"

#include <algorithm>

namespace qb::engine {

BlockCounters::BlockCounters(size_t block_count, int block_shift)
    : blocks_(block_count), block_shift_(block_shift), mask_((size_t{1} << block_shift) - 1) {}

BlockCounters::BlockCounters(const BlockCounters& other)
    : blocks_(other.blocks_.size()), block_shift_(other.block_shift_), mask_(other.mask_) {
  for (size_t b = 0; b < blocks_.size(); ++b) {
    if (other.blocks_[b]) std::copy_n(other.blocks_[b].get(), block_size(), allocate(b));
  }
}

BlockCounters& BlockCounters::operator=(const BlockCounters& other) {
  if (this != &other) *this = BlockCounters(other);
  return *this;
}

uint64_t* BlockCounters::allocate(size_t b) {
  blocks_[b] = std::make_unique<uint64_t[]>(block_size());  // value-initialised: zeros
  return blocks_[b].get();
}

void BlockCounters::clear() noexcept {
  for (auto& block : blocks_) {
    if (block) std::fill_n(block.get(), block_size(), uint64_t{0});
  }
}

}  // namespace qb::engine
