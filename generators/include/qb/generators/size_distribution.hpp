// Message/frame size distributions: fixed, uniform range, IMIX, weighted list.
// Deterministic for a given Rng stream.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/common/rng.hpp"

namespace qb::gen {

struct WeightedSize {
  uint32_t size_bytes = 0;
  uint32_t weight = 0;
};

struct SizeSpec {
  enum class Kind { fixed, uniform, imix, weighted };
  Kind kind = Kind::fixed;
  uint32_t fixed_bytes = 0;  // fixed
  uint32_t min_bytes = 0;    // uniform: inclusive range
  uint32_t max_bytes = 0;
  std::vector<WeightedSize> table;  // imix and weighted (imix defaults to 7:4:1 of 64/594/1518)

  static SizeSpec fixed(uint32_t bytes);
  static SizeSpec uniform(uint32_t min_bytes, uint32_t max_bytes);
  static SizeSpec classic_imix();  // 64 B x7, 594 B x4, 1518 B x1
  static SizeSpec weighted(std::vector<WeightedSize> table);

  double mean_bytes() const noexcept;
  uint32_t largest_bytes() const noexcept;
  /// Input checks (empty table, zero weights everywhere, min > max, zero sizes).
  Status validate() const;
};

/// Draws sizes from a SizeSpec (validate() it first; an invalid spec draws 0 B rather than
/// crashing). Allocation only at construction; fixed sizes consume no random numbers.
class SizeSampler {
 public:
  explicit SizeSampler(const SizeSpec& spec);
  uint32_t next(Rng& rng) noexcept;

 private:
  SizeSpec::Kind kind_;
  uint32_t fixed_bytes_;
  uint32_t min_bytes_;
  uint64_t span_bytes_;                      // max - min + 1 (2^32 for the full range)
  std::vector<uint32_t> sizes_;              // weighted tables, zero weights dropped
  std::vector<uint64_t> cumulative_weight_;  // strictly increasing (scan or binary search)
};

}  // namespace qb::gen
