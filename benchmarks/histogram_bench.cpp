// Cost of the latency histogram: record() is on the per-completion path, percentiles are not.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "qb/common/rng.hpp"
#include "qb/engine/histogram.hpp"

namespace {

/// Latencies spread over several decades (lognormal around ~8 us), so record() touches many
/// buckets the way a real run does.
std::vector<int64_t> latency_ring(size_t size) {
  qb::Rng rng(42);
  std::vector<int64_t> ring(size);
  for (auto& v : ring) {
    const double u1 = 1.0 - rng.next_unit();
    const double u2 = rng.next_unit();
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    v = static_cast<int64_t>(std::exp(9.0 + 1.5 * z));
  }
  return ring;
}

// One record per iteration: the reported time is ns per value.
void BM_HistogramRecord(benchmark::State& state) {
  constexpr size_t kRing = 1 << 14;
  const std::vector<int64_t> ring = latency_ring(kRing);
  qb::engine::Histogram histogram;
  size_t i = 0;
  for (auto _ : state) {
    histogram.record(ring[i]);
    i = (i + 1) & (kRing - 1);
  }
  benchmark::DoNotOptimize(histogram.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_HistogramRecord);

void BM_HistogramPercentile(benchmark::State& state) {
  const std::vector<int64_t> ring = latency_ring(1 << 20);
  qb::engine::Histogram histogram;
  for (int64_t v : ring) histogram.record(v);
  const double p = static_cast<double>(state.range(0)) / 1000.0;
  for (auto _ : state) benchmark::DoNotOptimize(histogram.value_at_percentile(p));
}
BENCHMARK(BM_HistogramPercentile)->Arg(50'000)->Arg(99'000)->Arg(99'990);

void BM_HistogramMerge(benchmark::State& state) {
  const std::vector<int64_t> ring = latency_ring(1 << 16);
  qb::engine::Histogram a, b;
  for (int64_t v : ring) b.record(v);
  for (auto _ : state) benchmark::DoNotOptimize(a.merge(b));
}
BENCHMARK(BM_HistogramMerge);

}  // namespace
