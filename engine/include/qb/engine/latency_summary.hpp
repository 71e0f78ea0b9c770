// Latency figures as the results carry them: percentiles and a spectrum of one histogram, and
// per-repetition percentiles. Plain data (the reports render it).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "qb/engine/histogram.hpp"

namespace qb::engine {

struct LatencySummary {
  uint64_t count = 0;
  int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0, min_ns = 0;
  double mean_ns = 0.0;
  /// (percentile, value) pairs for percentile spectra: 0 .. 99.999, 100.
  std::vector<std::pair<double, int64_t>> spectrum;
};

/// Per-repetition latency percentiles (from the scheduled send time), one entry per repetition.
struct LatencyReps {
  std::vector<int64_t> p50_ns, p90_ns, p99_ns, p999_ns;
};

LatencySummary summarise(const Histogram& histogram);

}  // namespace qb::engine
