// The graph model's per-egress queue depth histogram (drivers/sim/depth_histogram.hpp): bucket
// edges at 128-byte steps below 1 KiB and eight per power of two above, percentiles as the upper
// edge of their bucket but never above the deepest depth recorded.
#include "depth_histogram.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace qb::drv::sim {
namespace {

TEST(DepthHistogram, BucketsAndTheirUpperEdges) {
  EXPECT_EQ(DepthHistogram::bucket_of(0), 0u);
  EXPECT_EQ(DepthHistogram::bucket_of(127), 0u);
  EXPECT_EQ(DepthHistogram::bucket_of(128), 1u);
  EXPECT_EQ(DepthHistogram::bucket_of(1023), 7u);
  EXPECT_EQ(DepthHistogram::bucket_of(1024), 8u);
  EXPECT_EQ(DepthHistogram::bucket_of(1151), 8u);
  EXPECT_EQ(DepthHistogram::bucket_of(1152), 9u);
  EXPECT_EQ(DepthHistogram::upper_edge(0), 128);
  EXPECT_EQ(DepthHistogram::upper_edge(7), 1024);
  EXPECT_EQ(DepthHistogram::upper_edge(8), 1152);
  // Every value lies below its bucket's upper edge and at or above the previous bucket's.
  for (const int64_t v : {int64_t{1}, int64_t{500}, int64_t{4194}, int64_t{61440},
                          int64_t{1} << 20, (int64_t{1} << 30) + 12345, int64_t{1} << 50}) {
    const uint32_t b = DepthHistogram::bucket_of(v);
    EXPECT_LT(v, DepthHistogram::upper_edge(b)) << v;
    if (b > 0) {
      EXPECT_GE(v, DepthHistogram::upper_edge(b - 1)) << v;
    }
    // At most 12.5 % wide above 1 KiB.
    if (v >= 1024) {
      EXPECT_LE(DepthHistogram::upper_edge(b) - DepthHistogram::upper_edge(b - 1),
                DepthHistogram::upper_edge(b - 1) / 8)
          << v;
    }
  }
  EXPECT_LT(DepthHistogram::bucket_of(INT64_MAX), DepthHistogram::kBuckets);
}

TEST(DepthHistogram, PercentilesAreUpperEdgesClampedToTheDeepest) {
  DepthHistogram h;
  EXPECT_EQ(h.percentile_bytes(0.5), 0);  // nothing recorded
  for (int i = 0; i < 90; ++i) h.record(100);    // bucket 0: [0, 128)
  for (int i = 0; i < 9; ++i) h.record(5000);    // [4608, 5120)
  h.record(70000);
  EXPECT_EQ(h.samples(), 100u);
  EXPECT_EQ(h.max_bytes(), 70000);
  EXPECT_EQ(h.percentile_bytes(0.50), 128);
  EXPECT_EQ(h.percentile_bytes(0.90), 128);
  EXPECT_EQ(h.percentile_bytes(0.91), 5120);
  EXPECT_EQ(h.percentile_bytes(0.99), 5120);
  EXPECT_EQ(h.percentile_bytes(1.0), 70000);  // its bucket's edge is 73728: clamped
  h.record(-5);  // a negative depth counts as empty
  EXPECT_EQ(h.samples(), 101u);
  h.clear();
  EXPECT_EQ(h.samples(), 0u);
  EXPECT_EQ(h.max_bytes(), 0);
}

}  // namespace
}  // namespace qb::drv::sim
