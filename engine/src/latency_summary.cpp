#include "qb/engine/latency_summary.hpp"

#include <algorithm>
#include <array>
#include <iterator>

namespace qb::engine {
namespace {

// Percentile spectrum points, dense towards the tail (plotted on a log 1/(1-p) axis).
constexpr double kSpectrumPercentiles[] = {0,    25,   50,    75,    90,     95,     99,
                                           99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 100};

}  // namespace

LatencySummary summarise(const Histogram& histogram) {
  LatencySummary out;
  out.count = histogram.count();
  if (out.count == 0) return out;
  // The headline percentiles, then the spectrum: one scan of the histogram for all of them.
  constexpr size_t kHeadline = 4;
  constexpr size_t kSpectrum = std::size(kSpectrumPercentiles);
  std::array<double, kHeadline + kSpectrum> percentiles{50, 90, 99, 99.9};
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
  for (size_t k = 0; k < kSpectrum; ++k) {
    out.spectrum.emplace_back(kSpectrumPercentiles[k], values[kHeadline + k]);
  }
  return out;
}

}  // namespace qb::engine
