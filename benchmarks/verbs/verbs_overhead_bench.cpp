// The verbs driver's overhead per message: `qosbench run`'s own path (engine worker loop:
// generators, post, poll, counters, latency histograms; the driver: work requests, completions,
// rings) against the fake ConnectX completing every work request at once, so the figure is
// the software's cost alone. Target: <= 50 ns per message per worker (perftest's software
// post_send loop tops out near 10 M messages/s, ~100 ns each).
//
//   build/benchmarks/verbs/verbs_overhead_bench
//
// ns_per_message = workers x measured seconds / messages completed; messages_per_s is the sum
// over workers. On a 2-core machine the 2-worker figure only means something when nothing else
// runs.
#include <benchmark/benchmark.h>

#include <string>

#include "qb/drivers/registry.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace {

void BM_VerbsInstantFake(benchmark::State& state, const std::string& config) {
  const auto workers = static_cast<uint32_t>(state.range(0));
  auto suite = qb::suite::load_suite_file(std::string(QB_SOURCE_DIR) + "/configs/" + config);
  if (!suite) {
    state.SkipWithError(suite.error().to_string().c_str());
    return;
  }
  auto driver = qb::drv::configure_driver(
      "verbs", qb::ConfigTable("driver.verbs"),
      {qb::ConfigOverride{"provider", "fake", "bench"},
       qb::ConfigOverride{"fake_timing", "instant", "bench"},
       qb::ConfigOverride{"workers", std::to_string(workers), "bench"}});
  if (!driver) {
    state.SkipWithError(driver.error().to_string().c_str());
    return;
  }
  qb::engine::RunOptions options;
  options.jobs = 1;
  options.repetitions = 1;
  options.workers = workers;
  constexpr int64_t kDurationNs = 200'000'000;
  options.duration_ns = kDurationNs;
  double messages = 0;
  double measured_s = 0;
  for (auto _ : state) {
    std::vector<qb::Warning> warnings;
    auto compiled = qb::suite::compile_suite(*suite, warnings);
    if (!compiled) {
      state.SkipWithError(compiled.error().to_string().c_str());
      return;
    }
    auto run = qb::engine::run_suite(*suite, std::move(*compiled), *driver, options);
    if (!run) {
      state.SkipWithError(run.error().to_string().c_str());
      return;
    }
    for (const auto& scenario : run->scenarios) {
      for (const auto& rep : scenario.reps) {
        for (const auto& [name, value] : rep.driver_stats) {
          if (name == "send_completions") messages += value;
        }
        // Warmup included: the driver works then too.
        measured_s += static_cast<double>(scenario.warmup_ns + rep.measured_ns) / 1e9;
      }
    }
  }
  state.counters["messages_per_s"] = messages / measured_s;
  state.counters["ns_per_message_per_worker"] = measured_s * 1e9 * workers / messages;
}

void BM_VerbsTwoGroups(benchmark::State& state) {
  BM_VerbsInstantFake(state, "mlx5_two_groups.toml");
}
BENCHMARK(BM_VerbsTwoGroups)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
