// Loader time vs. flow count: a suite of N [[flow]] entries, one leaf. Linear in N (duplicate
// flow names are found with a hash map; 100k flows took 23 s with the pairwise check).
#include <benchmark/benchmark.h>

#include <string>

#include "qb/suite/suite_loader.hpp"

namespace {

std::string suite_with_flows(int64_t flows) {
  std::string text =
      "[[sched.node]]\nname = \"root\"\n[[sched.leaf]]\nname = \"a\"\nparent = \"root\"\n"
      "bw_share = 1\n";
  for (int64_t i = 0; i < flows; ++i) {
    text += "[[flow]]\nname = \"f" + std::to_string(i) +
            "\"\nleaf = \"a\"\nsize = 4096\nrate = \"saturate\"\n";
  }
  return text;
}

void BM_LoadSuiteFlows(benchmark::State& state) {
  const std::string text = suite_with_flows(state.range(0));
  for (auto _ : state) {
    auto suite = qb::suite::load_suite_string(text, "flows.toml");
    if (!suite) {
      state.SkipWithError(suite.error().to_string().c_str());
      return;
    }
    benchmark::DoNotOptimize(suite);
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_LoadSuiteFlows)
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->Complexity(benchmark::oN);

}  // namespace
