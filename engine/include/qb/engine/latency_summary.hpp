// Latency figures as the results carry them: percentiles and a spectrum of one histogram, and
// per-repetition percentiles. Plain data (the reports render it).
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "qb/engine/histogram.hpp"

namespace qb::engine {

/// The headline percentiles of every latency figure (p50, p90, p99, p99.9), in this order:
/// LatencySummary's and LatencyReps' p50_ns .. p999_ns.
inline constexpr std::array<double, 4> kHeadlinePercentiles{50, 90, 99, 99.9};

/// Which figures are lower bounds: messages still outstanding at the window's end, older than
/// the figure, are enough to reach its rank (censored_at_age()).
struct LatencyCensored {
  bool p50 = false, p90 = false, p99 = false, p999 = false, max = false;
  bool any() const noexcept { return p50 || p90 || p99 || p999 || max; }
};

struct LatencySummary {
  uint64_t count = 0;
  int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0, max_ns = 0, min_ns = 0;
  double mean_ns = 0.0;
  double stdev_ns = 0.0;  // from the buckets' midpoints (within the histogram's precision)
  /// Messages posted and not yet delivered at the measured window's end (summed over
  /// repetitions), and the age then of the oldest of them, from its scheduled send time.
  uint64_t outstanding = 0;
  int64_t oldest_outstanding_ns = 0;
  LatencyCensored censored;
  /// Saturating flows: the messages each QP keeps posted (the suite's `outstanding`), which
  /// sets their latency (Little's law); 0 for rate-driven flows and mixed aggregates.
  uint32_t outstanding_limit = 0;
  /// (percentile, value) pairs for percentile spectra: 0 .. 99.999, 100.
  std::vector<std::pair<double, int64_t>> spectrum;
};

/// Per-repetition latency percentiles (from the scheduled send time), one entry per repetition.
struct LatencyReps {
  std::vector<int64_t> p50_ns, p90_ns, p99_ns, p999_ns;
};

/// `outstanding_age`: the ages at the window's end of the messages not delivered by then (may
/// be empty). The percentiles are the delivered messages'; each is flagged censored when the
/// outstanding messages older than it reach its rank among delivered + those.
LatencySummary summarise(const Histogram& delivered, const Histogram* outstanding_age = nullptr);

/// The censoring rule for one percentile p (in [0, 100]) whose value over `delivered` is
/// `value_ns`: true when the messages of `outstanding_age` older than `value_ns` (their
/// latency is at least their age) would move the p-th percentile of delivered + them above
/// `value_ns` by more ranks than its own sampling noise, sqrt(n p (1 - p)); `value_ns` is then
/// only a lower bound. Outstanding messages younger than it are in flight as usual (the window
/// took in as many from the warm-up) and do not count. For p = 100 (the maximum) the noise is
/// 0: any outstanding message older than every delivered one censors it.
bool censored_at_age(const Histogram& delivered, const Histogram& outstanding_age, double p,
                     int64_t value_ns);

}  // namespace qb::engine
