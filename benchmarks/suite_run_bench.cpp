// Simulated packets per wall-second, end to end (engine worker loop + simulator + measurement),
// on the shipped suites, one repetition on one core. Target: >= 10 M packets/s (a 100 Gbit/s
// port at 4 KiB MTU is ~3 Mpps, so that is 3x faster than real time).
#include <benchmark/benchmark.h>

#include <string>

#include "qb/drivers/registry.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace {

void run_suite_benchmark(benchmark::State& state, const std::string& config) {
  auto suite = qb::suite::load_suite_file(std::string(QB_SOURCE_DIR) + "/configs/" + config);
  if (!suite) {
    state.SkipWithError(suite.error().to_string().c_str());
    return;
  }
  auto sim = qb::drv::configure_driver("sim", qb::ConfigTable("driver.sim"));
  if (!sim) {
    state.SkipWithError(sim.error().to_string().c_str());
    return;
  }
  qb::engine::RunOptions options;
  options.jobs = 1;
  options.repetitions = 1;
  options.duration_ns = 20'000'000;
  double packets = 0;
  for (auto _ : state) {
    // What `qosbench run` does per suite: compile, then run.
    std::vector<qb::Warning> warnings;
    auto compiled = qb::suite::compile_suite(*suite, warnings);
    if (!compiled) {
      state.SkipWithError(compiled.error().to_string().c_str());
      return;
    }
    auto run = qb::engine::run_suite(*suite, std::move(*compiled), *sim, options);
    if (!run) {
      state.SkipWithError(run.error().to_string().c_str());
      return;
    }
    for (const auto& [name, value] : run->scenarios.front().reps.front().driver_stats) {
      if (name == "packets") packets += value;
    }
  }
  state.counters["packets_per_s"] = benchmark::Counter(packets, benchmark::Counter::kIsRate);
}

void BM_SuiteTwoGroups(benchmark::State& state) {
  run_suite_benchmark(state, "mlx5_two_groups.toml");
}
void BM_SuiteImix256Flows(benchmark::State& state) {
  run_suite_benchmark(state, "imix_256_flows.toml");
}
BENCHMARK(BM_SuiteTwoGroups)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SuiteImix256Flows)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
