#include "policy_results.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace qb::judge {
namespace {

const char* tsa_name(policy::TcSelect tsa) {
  switch (tsa) {
    case policy::TcSelect::strict:
      return "strict";
    case policy::TcSelect::ets:
      return "ets";
    case policy::TcSelect::vendor:
      break;
  }
  return "vendor";
}

std::vector<VlArbEntryResult> vlarb_entries(const std::vector<policy::VlArbEntry>& table) {
  std::vector<VlArbEntryResult> out;
  out.reserve(table.size());
  for (const auto& entry : table) out.push_back({entry.vl, entry.weight});
  return out;
}

PortArbitrationResult port_result(const policy::PortQos& qos, const char* port, bool decides,
                                  double capacity_bps) {
  PortArbitrationResult out;
  out.port = port;
  out.decides = decides;
  out.capacity_bps = capacity_bps;
  if (qos.kind == policy::PortQos::Kind::ets) {
    const policy::EthPortQos& eth = qos.eth;
    out.kind = "ets";
    out.trust = eth.trust == policy::EthTrust::dscp ? "dscp" : "pcp";
    out.prio_tc.assign(eth.prio_tc.begin(), eth.prio_tc.end());
    const auto groups = policy::ets_groups(eth);
    for (uint32_t tc = 0; tc < 8; ++tc) {
      EtsTcResult result;
      result.tc = tc;
      result.tsa = tsa_name(eth.tsa[tc]);
      result.ets_percent = eth.ets_percent[tc];
      if (eth.tc_max_rate_bps[tc] > 0) result.max_rate_bps = eth.tc_max_rate_bps[tc];
      result.group = groups[tc];
      out.tcs.push_back(std::move(result));
    }
  } else {
    const policy::IbArbitration& ib = qos.ib;
    out.kind = "vlarb";
    out.sl2vl.assign(ib.tables.sl2vl.begin(), ib.tables.sl2vl.end());
    out.vlarb_high = vlarb_entries(ib.tables.vlarb_high);
    out.vlarb_low = vlarb_entries(ib.tables.vlarb_low);
    out.high_limit = ib.tables.high_limit;
    out.op_vls = ib.op_vls;
  }
  return out;
}

}  // namespace

ElementResult element_result(const policy::SchedTree& tree, size_t element, double demand_bps,
                             double expected_bps, double measured_bps) {
  const auto& e = tree.elements[element];
  ElementResult result;
  result.name = e.name;
  if (e.parent != policy::SchedTree::kNoParent) result.parent = tree.elements[e.parent].name;
  result.is_leaf = e.is_leaf;
  result.bw_share = e.bw_share;
  result.weight = e.weight;
  if (e.max_avg_bw_bps > 0) result.cap_bps = e.max_avg_bw_bps;
  result.demand_bps = demand_bps;
  result.expected_bps = expected_bps;
  result.measured_bps = measured_bps;
  return result;
}

std::vector<PortArbitrationResult> arbitration_results(const policy::QosPlan& plan) {
  std::vector<PortArbitrationResult> out;
  if (plan.nic_qos.kind != policy::PortQos::Kind::none) {
    out.push_back(port_result(plan.nic_qos, "nic", !plan.switched, plan.port_rate_bps));
  }
  if (plan.switched && plan.switch_qos.kind != policy::PortQos::Kind::none) {
    out.push_back(port_result(plan.switch_qos, "switch", true, plan.switch_rate_bps));
  }
  return out;
}

std::vector<HostTreeResult> host_tree_results(const suite::CompiledScenario& compiled,
                                              const std::vector<FlowResult>& flows) {
  const policy::QosPlan& plan = compiled.plan;
  const policy::SchedTree& tree = plan.tree;
  std::vector<HostTreeResult> out;
  if (plan.host_count() < 2 || tree.elements.empty()) return out;
  const size_t n = tree.elements.size();
  constexpr double kUnbounded = std::numeric_limits<double>::infinity();
  std::vector<uint32_t> deepest_first(n);
  std::iota(deepest_first.begin(), deepest_first.end(), 0U);
  std::stable_sort(deepest_first.begin(), deepest_first.end(), [&](uint32_t a, uint32_t b) {
    return tree.elements[a].depth > tree.elements[b].depth;
  });
  for (uint32_t host = 0; host < plan.host_count(); ++host) {
    // Per element, this host's flows below it: leaves first, then each parent from its
    // children (deepest first: the spec order may list a child before its parent).
    std::vector<double> expected(n, 0.0), measured(n, 0.0), demand(n, 0.0);
    for (size_t f = 0; f < plan.flows.size() && f < flows.size(); ++f) {
      if (plan.flows[f].host != host) continue;
      const uint32_t leaf = plan.flows[f].leaf;
      if (leaf >= n) continue;
      expected[leaf] += flows[f].expected_bps;
      measured[leaf] += flows[f].measured_bps;
      demand[leaf] += f < compiled.offered_bps.size() ? compiled.offered_bps[f] : kUnbounded;
    }
    for (const uint32_t e : deepest_first) {
      const auto& element = tree.elements[e];
      if (element.max_avg_bw_bps > 0) demand[e] = std::min(demand[e], element.max_avg_bw_bps);
      if (element.parent >= n) continue;
      expected[element.parent] += expected[e];
      measured[element.parent] += measured[e];
      demand[element.parent] += demand[e];
    }
    HostTreeResult host_tree;
    host_tree.host = host;
    for (size_t e = 0; e < n; ++e) {
      host_tree.tree.push_back(element_result(tree, e, demand[e], expected[e], measured[e]));
    }
    out.push_back(std::move(host_tree));
  }
  return out;
}

}  // namespace qb::judge
