// Cost of one generator step (ns per next()): paid once per message on the sender.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "qb/common/rng.hpp"
#include "qb/generators/arrival_process.hpp"
#include "qb/generators/size_distribution.hpp"

namespace {

using qb::gen::ArrivalProcess;
using qb::gen::ArrivalSpec;
using qb::gen::SizeSampler;
using qb::gen::SizeSpec;

ArrivalSpec spec_of(ArrivalSpec::Kind kind) {
  ArrivalSpec spec;
  spec.kind = kind;
  spec.rate_bps = 10e9;
  if (kind == ArrivalSpec::Kind::onoff) {
    spec.on_ns = 1'000'000;
    spec.off_ns = 3'000'000;
  }
  return spec;
}

void run_arrival(benchmark::State& state, ArrivalSpec::Kind kind) {
  ArrivalProcess process(spec_of(kind), 1000.0);
  qb::Rng rng(1);
  int64_t t = process.first_ns(0, rng);
  for (auto _ : state) {
    t = process.next_ns(t, 1000, rng);
    benchmark::DoNotOptimize(t);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_ArrivalCbr(benchmark::State& state) {
  run_arrival(state, ArrivalSpec::Kind::cbr);
}
void BM_ArrivalPoisson(benchmark::State& state) {
  run_arrival(state, ArrivalSpec::Kind::poisson);
}
void BM_ArrivalOnOff(benchmark::State& state) {
  run_arrival(state, ArrivalSpec::Kind::onoff);
}
BENCHMARK(BM_ArrivalCbr);
BENCHMARK(BM_ArrivalPoisson);
BENCHMARK(BM_ArrivalOnOff);

void run_size(benchmark::State& state, const SizeSpec& spec) {
  SizeSampler sampler(spec);
  qb::Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(sampler.next(rng));
  state.SetItemsProcessed(state.iterations());
}

void BM_SizeFixed(benchmark::State& state) {
  run_size(state, SizeSpec::fixed(4096));
}
void BM_SizeUniform(benchmark::State& state) {
  run_size(state, SizeSpec::uniform(64, 9000));
}
void BM_SizeImix(benchmark::State& state) {
  run_size(state, SizeSpec::classic_imix());
}
BENCHMARK(BM_SizeFixed);
BENCHMARK(BM_SizeUniform);
BENCHMARK(BM_SizeImix);

}  // namespace
