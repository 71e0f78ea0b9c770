// The fabric expectation on HPCC's 320-host fat tree (simulation/mix/fat.txt: 16 hosts per ToR,
// 20 ToRs, 20 aggregation and 16 core switches; 100 Gbit/s host links, 400 Gbit/s fabric links),
// every host sending to another by a seeded permutation: routing (ECMP) and the expectation apart.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <limits>

#include "qb/fabric/expectation.hpp"
#include "qb/fabric/generators.hpp"
#include "qb/fabric/routing.hpp"
#include "qb/fabric/traffic.hpp"

namespace {

using namespace qb::fabric;

Topology hpcc_fat_tree() {
  FatTreeSpec spec;
  spec.pods = 5;
  spec.tors_per_pod = 4;
  spec.aggs_per_pod = 4;
  spec.hosts_per_tor = 16;
  spec.cores_per_agg = 4;
  spec.host_rate_bps = 100e9;
  spec.fabric_rate_bps = 400e9;
  auto t = fat_tree(spec, {"bench", {}});
  if (!t) std::abort();
  return std::move(*t);
}

std::vector<FlowEndpoints> permutation(uint32_t hosts, uint64_t seed) {
  TrafficTemplate spec;
  for (uint32_t h = 0; h < hosts; ++h) spec.sources.push_back(h);
  spec.pattern = DestinationPattern::permutation;
  spec.seed = seed;
  return std::move(*expand_template(spec));
}

void BM_Route_Hpcc320_Permutation(benchmark::State& state) {
  const Topology t = hpcc_fat_tree();
  const auto flows = permutation(t.host_count(), 1);
  for (auto _ : state) {
    auto routes = route_flows(t, flows, RoutingSpec{});
    benchmark::DoNotOptimize(routes);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(flows.size()));
}
BENCHMARK(BM_Route_Hpcc320_Permutation)->Unit(benchmark::kMicrosecond);

// range(0): 0 per-ingress round robin, 1 per-flow; range(1): flows per host pair.
void BM_Expectation_Hpcc320_Permutation(benchmark::State& state) {
  const Topology t = hpcc_fat_tree();
  auto ends = permutation(t.host_count(), 1);
  const auto copies = static_cast<size_t>(state.range(1));
  std::vector<FlowEndpoints> all;
  for (size_t c = 0; c < copies; ++c) all.insert(all.end(), ends.begin(), ends.end());
  const auto routes = route_flows(t, all, RoutingSpec{});
  if (!routes) std::abort();
  const std::vector<FabricFlow> flows(all.size());
  PortPolicy policy;
  policy.fairness = state.range(0) == 0 ? Fairness::per_ingress : Fairness::per_flow;
  uint32_t rounds = 0, coupled = 0, sweeps = 0;
  for (auto _ : state) {
    auto rates = expected_fabric_rates(t, flows, *routes, policy);
    if (!rates) std::abort();
    rounds = rates->freeze_rounds;
    coupled = rates->coupled_flows;
    sweeps = rates->sweeps;
    benchmark::DoNotOptimize(rates->flow_bps.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(flows.size()));
  state.counters["flows"] = static_cast<double>(flows.size());
  state.counters["rounds"] = rounds;
  state.counters["coupled"] = coupled;
  state.counters["sweeps"] = sweeps;
}
BENCHMARK(BM_Expectation_Hpcc320_Permutation)
    ->ArgsProduct({{0, 1}, {1, 4}})
    ->Unit(benchmark::kMillisecond);

// Every host of the first range(1) hosts to every other (320: 102080 flows, the all-to-all
// suites), per-ingress (range(0) = 0) and per-flow (1). Per-ingress is coupled throughout
// (~400-700 sweeps) and has more than one fixed point (settled = 0): 32 hosts ~0.2 s, 100 hosts
// ~13 s, 320 hosts many minutes (docs/performance.md); run the large ones alone, e.g.
// --benchmark_filter=AllToAll/0/100/.
void BM_Expectation_Hpcc320_AllToAll(benchmark::State& state) {
  const Topology t = hpcc_fat_tree();
  TrafficTemplate spec;
  const auto hosts = static_cast<uint32_t>(state.range(1));
  for (uint32_t h = 0; h < hosts; ++h) spec.sources.push_back(h);
  spec.pattern = DestinationPattern::all_to_all;
  const auto ends = std::move(*expand_template(spec));
  const auto routes = route_flows(t, ends, RoutingSpec{});
  if (!routes) std::abort();
  const std::vector<FabricFlow> flows(ends.size());
  PortPolicy policy;
  policy.fairness = state.range(0) == 0 ? Fairness::per_ingress : Fairness::per_flow;
  uint32_t rounds = 0, coupled = 0, sweeps = 0, bracket = 0;
  double floor = 0.0, bracket_gap = 0.0;
  bool settled = true;
  for (auto _ : state) {
    auto rates = expected_fabric_rates(t, flows, *routes, policy);
    if (!rates) std::abort();
    rounds = rates->freeze_rounds;
    coupled = rates->coupled_flows;
    sweeps = rates->sweeps;
    bracket = rates->bracket_sweeps;
    settled = rates->settled;
    floor = rates->rounding_floor;
    bracket_gap = rates->bracket_gap;
    benchmark::DoNotOptimize(rates->flow_bps.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(flows.size()));
  state.counters["flows"] = static_cast<double>(flows.size());
  state.counters["rounds"] = rounds;
  state.counters["coupled"] = coupled;
  state.counters["sweeps"] = sweeps;
  state.counters["bracket"] = bracket;
  state.counters["settled"] = settled ? 1 : 0;
  state.counters["bracket_gap"] = bracket_gap;  // the bounds' largest relative gap
  state.counters["floor"] = floor;  // settled at rounding's floor this far from the fixed point
}
BENCHMARK(BM_Expectation_Hpcc320_AllToAll)
    ->ArgsProduct({{0, 1}, {32, 100, 320}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
