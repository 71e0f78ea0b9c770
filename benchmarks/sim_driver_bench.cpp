// The sim driver: simulated packets per wall-clock second, driven by a minimal engine-like
// loop (windows refilled on tx_done, completions polled in batches of 64).
// Target: >= 10 M packets/s on one core.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <vector>

#include "qb/drivers/driver.hpp"
#include "sim_driver.hpp"

namespace {

using namespace qb;

policy::QosPlan base_plan() {
  policy::QosPlan plan;
  plan.tree = policy::SchedTree::with_root();
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = 100e9;
  return plan;
}

void add_flows(policy::QosPlan& plan, uint32_t leaf, uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) {
    policy::FlowPlan flow;
    flow.name = "qp#" + std::to_string(plan.flows.size());
    flow.leaf = leaf;
    plan.flows.push_back(flow);
  }
}

// The man page's tree (g1 7, g2 3 capped at 4096 Mbit/s), 4 QPs on each.
policy::QosPlan man_page_plan() {
  policy::QosPlan plan = base_plan();
  const uint32_t g1 = plan.tree.add_child(0, "g1", true, 7);
  const uint32_t g2 = plan.tree.add_child(0, "g2", true, 3, 4096e6);
  add_flows(plan, g1, 4);
  add_flows(plan, g2, 4);
  return plan;
}

// 16 nodes x 16 leaves, one QP each (256 QPs); every other node capped.
policy::QosPlan wide_plan() {
  policy::QosPlan plan = base_plan();
  std::vector<uint32_t> leaves;
  for (uint32_t n = 0; n < 16; ++n) {
    const uint32_t node =
        plan.tree.add_child(0, "n" + std::to_string(n), false, 1 + n % 4, n % 2 == 0 ? 5e9 : 0.0);
    for (uint32_t l = 0; l < 16; ++l) {
      leaves.push_back(
          plan.tree.add_child(node, "l" + std::to_string(leaves.size()), true, 1 + l % 3));
    }
  }
  for (const uint32_t leaf : leaves) add_flows(plan, leaf, 1);
  return plan;
}

void run(benchmark::State& state, const policy::QosPlan& plan, uint32_t bytes, uint32_t window) {
  auto driver = drv::make_sim_driver();
  drv::Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = 1000;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  if (!driver->open(topology).ok() || !driver->apply(plan).ok() || !driver->start().ok()) {
    state.SkipWithError("driver set-up failed");
    return;
  }
  drv::Queue& queue = driver->queue(0);
  drv::Clock& clock = driver->clock(0);
  const auto flows = static_cast<uint32_t>(plan.flows.size());
  std::vector<uint64_t> sequence(flows, 0);
  std::vector<drv::Message> burst;
  burst.reserve(static_cast<size_t>(flows) * window);
  for (uint32_t f = 0; f < flows; ++f) {
    for (uint32_t i = 0; i < window; ++i) burst.push_back(drv::Message{f, bytes, 0, sequence[f]++});
  }
  std::array<drv::Completion, 64> batch;
  uint64_t packets = 0;
  int64_t deadline_ns = 0;
  constexpr int64_t kSliceNs = 10'000;  // one benchmark iteration = 10 us of virtual time
  for (auto _ : state) {
    deadline_ns += kSliceNs;
    while (clock.now_ns() < deadline_ns) {
      if (!burst.empty()) {
        queue.tx_burst(burst);
        burst.clear();
      }
      uint32_t n = 0;
      do {
        n = queue.poll(batch);
        for (uint32_t i = 0; i < n; ++i) {
          const drv::Completion& c = batch[i];
          if (c.kind == drv::Completion::Kind::tx_done) {
            burst.push_back(drv::Message{c.flow, bytes, clock.now_ns(), sequence[c.flow]++});
          } else {
            ++packets;
          }
        }
      } while (n == batch.size());
      if (burst.empty()) clock.wait_until(deadline_ns);
    }
  }
  state.counters["packets_per_s"] =
      benchmark::Counter(static_cast<double>(packets), benchmark::Counter::kIsRate);
  state.counters["virtual_ns"] = static_cast<double>(clock.now_ns());
  (void)driver->stop();
  driver->close();
}

void BM_ManPage8Qps(benchmark::State& state) {
  run(state, man_page_plan(), static_cast<uint32_t>(state.range(0)), 16);
}
void BM_Wide256Qps(benchmark::State& state) {
  run(state, wide_plan(), static_cast<uint32_t>(state.range(0)), 4);
}

}  // namespace

// Arg: message bytes (4096 = one packet per message; 65536 = 16 packets per message).
BENCHMARK(BM_ManPage8Qps)->Arg(4096)->Arg(65536);
BENCHMARK(BM_Wide256Qps)->Arg(4096)->Arg(65536);
