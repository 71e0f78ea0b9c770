// expected_rates() on a large tree: root -> 16 nodes -> 16 leaves each (256 leaves),
// 16 flows per leaf (4096 flows). Weights 1-10, a cap on every third element, and a mix of
// saturating and CBR flows, so water-filling needs several rounds at every level.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "qb/common/rng.hpp"
#include "qb/policies/oracle.hpp"
#include "qb/policies/sched_tree.hpp"

namespace {

using qb::policy::FlowDemand;
using qb::policy::SchedElementSpec;
using qb::policy::SchedTree;

constexpr double kPort = 100e9;

SchedTree make_tree(uint32_t nodes, uint32_t leaves_per_node) {
  qb::Rng rng(42);
  std::vector<SchedElementSpec> specs;
  SchedElementSpec root;
  root.name = "root";
  root.where = "sched.node[0]";
  specs.push_back(root);
  uint32_t count = 0;
  auto element = [&](std::string name, std::string parent, bool is_leaf) {
    SchedElementSpec spec;
    spec.name = std::move(name);
    spec.parent = std::move(parent);
    spec.is_leaf = is_leaf;
    spec.bw_share = static_cast<uint32_t>(1 + rng.next_below(10));
    spec.has_bw_share = true;
    if (++count % 3 == 0) {
      spec.max_avg_bw_bps = 1e6 * static_cast<double>(1000 + rng.next_below(20000));
      spec.has_max_avg_bw = true;
    }
    specs.push_back(std::move(spec));
  };
  for (uint32_t n = 0; n < nodes; ++n) {
    element("n" + std::to_string(n), "root", false);
    for (uint32_t l = 0; l < leaves_per_node; ++l) {
      element("l" + std::to_string(n) + "." + std::to_string(l), "n" + std::to_string(n), true);
    }
  }
  std::vector<qb::Warning> warnings;
  auto tree = qb::policy::compile_sched_tree(specs, kPort, warnings);
  if (!tree.ok()) return {};
  return std::move(tree).value();
}

std::vector<FlowDemand> make_flows(const SchedTree& tree, uint32_t flows_per_leaf,
                                   double saturating_fraction) {
  qb::Rng rng(7);
  std::vector<FlowDemand> flows;
  for (const uint32_t leaf : tree.leaves()) {
    for (uint32_t f = 0; f < flows_per_leaf; ++f) {
      const bool saturating = rng.next_unit() < saturating_fraction;
      flows.push_back({leaf, saturating ? qb::policy::kUnlimited : rng.next_unit() * 100e6});
    }
  }
  return flows;
}

void BM_ExpectedRates(benchmark::State& state) {
  const SchedTree tree = make_tree(16, 16);
  const auto flows = make_flows(tree, 16, static_cast<double>(state.range(0)) / 100.0);
  for (auto _ : state) {
    auto result = qb::policy::expected_rates(tree, flows, kPort);
    benchmark::DoNotOptimize(result.flow_bps.data());
  }
  state.counters["flows"] = static_cast<double>(flows.size());
  state.counters["leaves"] = static_cast<double>(tree.leaves().size());
}
// Argument: percentage of saturating flows (the rest are CBR below their share).
BENCHMARK(BM_ExpectedRates)->Arg(100)->Arg(50)->Arg(0)->Unit(benchmark::kMicrosecond);

void BM_CompileSchedTree(benchmark::State& state) {
  // The 273-element tree above, as specs (compilation cost, for comparison).
  std::vector<SchedElementSpec> specs;
  SchedElementSpec root;
  root.name = "root";
  specs.push_back(root);
  for (uint32_t n = 0; n < 16; ++n) {
    SchedElementSpec node;
    node.name = "n" + std::to_string(n);
    node.parent = "root";
    specs.push_back(node);
    for (uint32_t l = 0; l < 16; ++l) {
      SchedElementSpec leaf;
      leaf.name = node.name + "." + std::to_string(l);
      leaf.parent = node.name;
      leaf.is_leaf = true;
      specs.push_back(leaf);
    }
  }
  for (auto _ : state) {
    std::vector<qb::Warning> warnings;
    auto tree = qb::policy::compile_sched_tree(specs, kPort, warnings);
    benchmark::DoNotOptimize(tree.ok());
  }
}
BENCHMARK(BM_CompileSchedTree)->Unit(benchmark::kMicrosecond);

}  // namespace
