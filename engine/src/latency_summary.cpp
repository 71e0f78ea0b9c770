#include "qb/engine/latency_summary.hpp"

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
  out.p50_ns = histogram.value_at_percentile(50);
  out.p90_ns = histogram.value_at_percentile(90);
  out.p99_ns = histogram.value_at_percentile(99);
  out.p999_ns = histogram.value_at_percentile(99.9);
  out.max_ns = histogram.max();
  out.min_ns = histogram.min();
  out.mean_ns = histogram.mean();
  for (double p : kSpectrumPercentiles) {
    out.spectrum.emplace_back(p, histogram.value_at_percentile(p));
  }
  return out;
}

}  // namespace qb::engine
