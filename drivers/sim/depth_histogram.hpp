// The queue depths one egress saw, as a log-linear histogram of fixed size (the graph model keeps
// one per switch egress, so a fabric of thousands of channels needs no per-byte buckets):
// below 1 KiB in 128-byte steps, above it eight buckets per power of two (12.5 % wide at most).
// A percentile is the upper edge of its bucket, never above the deepest depth recorded.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>

namespace qb::drv::sim {

class DepthHistogram {
 public:
  void clear() noexcept {
    counts_.fill(0);
    samples_ = 0;
    max_bytes_ = 0;
  }
  void record(int64_t bytes) noexcept {
    bytes = std::max<int64_t>(bytes, 0);
    ++counts_[bucket_of(bytes)];
    ++samples_;
    max_bytes_ = std::max(max_bytes_, bytes);
  }
  uint64_t samples() const noexcept { return samples_; }
  int64_t max_bytes() const noexcept { return max_bytes_; }
  /// The depth at or below which `fraction` of the samples lie (0 without samples).
  int64_t percentile_bytes(double fraction) const noexcept {
    if (samples_ == 0) return 0;
    const auto wanted = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(samples_))));
    uint64_t seen = 0;
    for (uint32_t b = 0; b < kBuckets; ++b) {
      seen += counts_[b];
      if (seen >= wanted) return std::min(upper_edge(b), max_bytes_);
    }
    return max_bytes_;
  }

  static constexpr uint32_t kBuckets = 8 + 8 * 54;  // up to 2^63 bytes

  static uint32_t bucket_of(int64_t bytes) noexcept {
    const auto v = static_cast<uint64_t>(bytes);
    if (v < 1024) return static_cast<uint32_t>(v / 128);
    const auto msb = static_cast<uint32_t>(63 - std::countl_zero(v));  // >= 10
    const auto sub = static_cast<uint32_t>((v >> (msb - 3)) & 7U);
    return 8 + (msb - 10) * 8 + sub;
  }
  /// One past the largest depth of bucket `b`, in bytes (saturating).
  static int64_t upper_edge(uint32_t b) noexcept {
    if (b < 8) return static_cast<int64_t>(b + 1) * 128;
    const uint32_t msb = 10 + (b - 8) / 8;
    const uint32_t sub = (b - 8) % 8;
    if (msb >= 60) return INT64_MAX;
    return static_cast<int64_t>(uint64_t{8 + sub + 1} << (msb - 3));
  }

 private:
  std::array<uint64_t, kBuckets> counts_{};
  uint64_t samples_ = 0;
  int64_t max_bytes_ = 0;
};

}  // namespace qb::drv::sim
