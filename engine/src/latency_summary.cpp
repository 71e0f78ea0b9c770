#include "qb/engine/latency_summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

namespace qb::engine {
namespace {

// Percentile spectrum points, dense towards the tail (plotted on a log 1/(1-p) axis).
constexpr double kSpectrumPercentiles[] = {0,    25,   50,    75,    90,     95,     99,
                                           99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 100};

// The rank Histogram::values_at_percentiles answers for p among `total` samples.
uint64_t rank_of(double p, uint64_t total) {
  if (!(p < 100.0)) return total;
  if (!(p > 0.0)) p = 0.0;
  const double target = p / 100.0 * static_cast<double>(total);
  const auto rank = static_cast<uint64_t>(std::ceil(target - target * 1e-12));
  return std::clamp<uint64_t>(rank, 1, total);
}

// Samples of `h` in buckets at or below value_ns (whose lowest value is <= it), and above it.
std::pair<uint64_t, uint64_t> split_at(const Histogram& h, int64_t value_ns) {
  uint64_t at_or_below = 0, above = 0;
  h.for_each_bucket([&](int64_t lowest, int64_t, uint64_t count) {
    (lowest <= value_ns ? at_or_below : above) += count;
  });
  return {at_or_below, above};
}

double stdev_of(const Histogram& h, double mean_ns, uint64_t count) {
  if (count < 2) return 0.0;
  double squares = 0.0;
  h.for_each_bucket([&](int64_t lowest, int64_t highest, uint64_t n) {
    const double mid = (static_cast<double>(lowest) + static_cast<double>(highest)) / 2.0;
    squares += static_cast<double>(n) * (mid - mean_ns) * (mid - mean_ns);
  });
  return std::sqrt(squares / static_cast<double>(count));
}

}  // namespace

bool censored_at_age(const Histogram& delivered, const Histogram& outstanding_age, double p,
                     int64_t value_ns) {
  if (outstanding_age.empty()) return false;
  const uint64_t older = split_at(outstanding_age, value_ns).second;
  if (older == 0) return false;
  // Delivered + the older outstanding, each of those at least its age (above value_ns): the
  // p-th percentile stays value_ns while the delivered samples up to it still reach its rank
  // among them all. A shortfall within the percentile's own sampling noise (the binomial
  // spread of its rank) is not a finding: a few in-flight messages of a healthy flow make it.
  const uint64_t total = delivered.count() + older;
  const uint64_t rank = rank_of(p, total);
  const uint64_t at_or_below = split_at(delivered, value_ns).first;
  if (at_or_below >= rank) return false;
  const double q = std::clamp(p / 100.0, 0.0, 1.0);
  const double noise_ranks = std::sqrt(static_cast<double>(total) * q * (1.0 - q));
  return static_cast<double>(rank - at_or_below) > noise_ranks;
}

LatencySummary summarise(const Histogram& histogram, const Histogram* outstanding_age) {
  LatencySummary out;
  out.count = histogram.count();
  if (outstanding_age != nullptr && !outstanding_age->empty()) {
    out.outstanding = outstanding_age->count();
    out.oldest_outstanding_ns = outstanding_age->max();
    // Nothing delivered: every figure is unknown, at least what the oldest has waited.
    if (out.count == 0) out.censored = LatencyCensored{true, true, true, true, true};
  }
  if (out.count == 0) return out;
  // The headline percentiles, then the spectrum: one scan of the histogram for all of them.
  constexpr size_t kHeadline = kHeadlinePercentiles.size();
  constexpr size_t kSpectrum = std::size(kSpectrumPercentiles);
  std::array<double, kHeadline + kSpectrum> percentiles{};
  std::copy(kHeadlinePercentiles.begin(), kHeadlinePercentiles.end(), percentiles.begin());
  std::copy(std::begin(kSpectrumPercentiles), std::end(kSpectrumPercentiles),
            percentiles.begin() + kHeadline);
  std::array<int64_t, kHeadline + kSpectrum> values{};
  histogram.values_at_percentiles(percentiles, values);
  out.p50_ns = values[0];
  out.p90_ns = values[1];
  out.p99_ns = values[2];
  out.p999_ns = values[3];
  out.max_ns = histogram.max();
  out.min_ns = histogram.min();
  out.mean_ns = histogram.mean();
  out.stdev_ns = stdev_of(histogram, out.mean_ns, out.count);
  for (size_t k = 0; k < kSpectrum; ++k) {
    out.spectrum.emplace_back(kSpectrumPercentiles[k], values[kHeadline + k]);
  }
  if (out.outstanding != 0) {
    const Histogram& ages = *outstanding_age;
    out.censored.p50 = censored_at_age(histogram, ages, kHeadlinePercentiles[0], out.p50_ns);
    out.censored.p90 = censored_at_age(histogram, ages, kHeadlinePercentiles[1], out.p90_ns);
    out.censored.p99 = censored_at_age(histogram, ages, kHeadlinePercentiles[2], out.p99_ns);
    out.censored.p999 = censored_at_age(histogram, ages, kHeadlinePercentiles[3], out.p999_ns);
    out.censored.max = censored_at_age(histogram, ages, 100, out.max_ns);
  }
  return out;
}

}  // namespace qb::engine
