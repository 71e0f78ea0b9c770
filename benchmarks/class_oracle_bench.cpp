// expected_rates_with_classes() on a fabric: 8 hosts through one switch, each host's NIC with
// 16 leaves and 8 flows per leaf (1024 flows), flows spread over 4 VLs (VLArb with high_limit and
// weights off the 64-credit grid, so notes and the back-pressure rounds both happen), and the same
// plan with ETS 60/40 + a strict TC on the NICs only.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "qb/policies/class_oracle.hpp"

namespace {

using namespace qb::policy;

QosPlan make_plan(bool switched, uint32_t hosts) {
  QosPlan plan;
  plan.tree = SchedTree::with_root();
  std::vector<uint32_t> leaves;
  for (uint32_t l = 0; l < 16; ++l) {
    leaves.push_back(
        plan.tree.add_child(0, "l" + std::to_string(l), true, 1 + l % 5, l % 3 == 0 ? 5e9 : 0.0));
  }
  plan.port_rate_bps = 100e9;
  plan.hosts = hosts;
  plan.switched = switched;
  plan.switch_rate_bps = 100e9;
  PortQos vlarb;
  vlarb.kind = PortQos::Kind::vlarb;
  vlarb.ib.tables.vlarb_high = {{0, 255}};
  vlarb.ib.tables.vlarb_low = {{1, 32}, {2, 100}, {3, 192}};
  vlarb.ib.tables.high_limit = 6;
  PortQos ets;
  ets.kind = PortQos::Kind::ets;
  ets.eth = default_eth_port_qos();
  ets.eth.tsa.fill(TcSelect::ets);
  ets.eth.ets_percent = {60, 40, 0, 0, 0, 0, 0, 0};
  ets.eth.tsa[5] = TcSelect::strict;
  plan.nic_qos = switched ? vlarb : ets;
  plan.switch_qos = vlarb;
  for (uint32_t h = 0; h < hosts; ++h) {
    for (uint32_t l = 0; l < leaves.size(); ++l) {
      for (uint32_t q = 0; q < 8; ++q) {
        FlowPlan flow;
        flow.name = "h" + std::to_string(h) + "l" + std::to_string(l) + "q" + std::to_string(q);
        flow.leaf = leaves[l];
        flow.host = h;
        const uint32_t vl = (l + q) % 4;
        flow.arb_class = static_cast<uint8_t>(switched ? vl : (q % 2 == 0 ? 0 : (q == 1 ? 5 : 1)));
        flow.switch_arb_class = static_cast<uint8_t>(vl);
        plan.flows.push_back(flow);
      }
    }
  }
  return plan;
}

void run(benchmark::State& state, const QosPlan& plan) {
  std::vector<double> offered(plan.flows.size(), kUnlimited);
  for (size_t i = 0; i < offered.size(); i += 3) offered[i] = 1e9;  // a CBR third
  const std::vector<double> packet(plan.flows.size(), 4122.0);
  for (auto _ : state) {
    auto result = expected_rates_with_classes(plan, offered, packet);
    benchmark::DoNotOptimize(result.flows.flow_bps.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(plan.flows.size()));
}

void BM_ClassOracleEtsOneHost(benchmark::State& state) {
  run(state, make_plan(false, 1));
}
BENCHMARK(BM_ClassOracleEtsOneHost);

void BM_ClassOracleSwitchedVlArb8Hosts(benchmark::State& state) {
  run(state, make_plan(true, 8));
}
BENCHMARK(BM_ClassOracleSwitchedVlArb8Hosts);

}  // namespace
