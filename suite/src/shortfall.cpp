#include "qb/suite/shortfall.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "qb/common/units.hpp"

namespace qb::suite {
namespace {

constexpr double kShortFraction = 0.5;  // below half of what it could use: worth a sentence
constexpr double kStarvedFraction = 1e-6;

const char* tsa_name(policy::TcSelect tsa) {
  switch (tsa) {
    case policy::TcSelect::strict:
      return "strict";
    case policy::TcSelect::ets:
      return "ETS";
    case policy::TcSelect::vendor:
      return "vendor";
  }
  return "?";
}

std::string key(const std::string& scenario_where, const std::string& section_where,
                const std::string& fallback) {
  if (!section_where.empty()) return section_where;
  return scenario_where.empty() ? fallback : scenario_where + "." + fallback;
}

struct ClassLoad {
  double offered_bps = 0.0;  // +inf: a saturating flow
  double expected_bps = 0.0;
  size_t first_flow = std::numeric_limits<size_t>::max();
};

std::vector<ClassLoad> class_loads(const CompiledScenario& compiled,
                                   const std::vector<double>& flow_bps) {
  const policy::QosPlan& plan = compiled.plan;
  std::vector<ClassLoad> loads(policy::kMaxArbClasses);
  for (size_t f = 0; f < plan.flows.size(); ++f) {
    ClassLoad& load = loads[plan.deciding_class_of(plan.flows[f])];
    load.offered_bps += compiled.offered_bps[f];
    load.expected_bps += flow_bps[f];
    load.first_flow = std::min(load.first_flow, f);
  }
  return loads;
}

// Ethernet ETS: classes in a higher arbitration group are served first (strict TCs, and mlx5's
// vendor TCs above every ETS TC), and a per-TC cap holds a class whatever it offers.
void ets_shortfalls(const CompiledScenario& compiled, const std::vector<ClassLoad>& loads,
                    std::vector<Shortfall>& out) {
  const policy::QosPlan& plan = compiled.plan;
  const policy::EthPortQos& eth = plan.deciding_port_qos().eth;
  const auto groups = policy::ets_groups(eth);
  const double capacity = plan.deciding_port_capacity_bps();
  const Scenario& scenario = *compiled.scenario;
  const std::string eth_key = key(scenario.where, scenario.eth.where, "eth");
  for (uint32_t tc = 0; tc < 8; ++tc) {
    const ClassLoad& load = loads[tc];
    if (load.first_flow == std::numeric_limits<size_t>::max() || !(load.offered_bps > 0.0)) {
      continue;
    }
    const double nominal =
        eth.tsa[tc] == policy::TcSelect::ets ? capacity * eth.ets_percent[tc] / 100.0 : capacity;
    const double could_use = std::min(load.offered_bps, nominal);
    if (!(load.expected_bps < kShortFraction * could_use)) continue;
    std::vector<std::string> above;
    double above_bps = 0.0;
    for (uint32_t other = 0; other < 8; ++other) {
      if (other == tc || groups[other] <= groups[tc] || !(loads[other].expected_bps > 0.0)) {
        continue;
      }
      above.push_back(fmt::format(
          "TC{} ({}, {}.tsa[{}]{})", other, tsa_name(eth.tsa[other]), eth_key, other,
          eth.tsa[other] == policy::TcSelect::vendor ? ": mlx5's default, served before ETS TCs"
                                                     : ""));
      above_bps += loads[other].expected_bps;
    }
    const policy::FlowPlan& first = plan.flows[load.first_flow];
    Shortfall shortfall;
    shortfall.subject = fmt::format("TC{}", tc);
    shortfall.starved = load.expected_bps <= kStarvedFraction * could_use;
    shortfall.loc = scenario.flows[compiled.flow_spec[load.first_flow]].loc;
    shortfall.where = scenario.flows[compiled.flow_spec[load.first_flow]].where;
    std::string why;
    if (eth.tc_max_rate_bps[tc] > 0.0 && eth.tc_max_rate_bps[tc] < could_use) {
      why = fmt::format("capped at {} by {}.tc_max_rate[{}]",
                        format_rate_bps(eth.tc_max_rate_bps[tc]), eth_key, tc);
    }
    if (!above.empty()) {
      std::string list;
      for (const auto& name : above) list += (list.empty() ? "" : ", ") + name;
      why += fmt::format("{}served only after {}, which take {} of the {} port",
                         why.empty() ? "" : "; ", list, format_rate_bps(above_bps),
                         format_rate_bps(capacity));
    }
    if (why.empty()) continue;
    shortfall.cause = fmt::format(
        "TC{} (priority {} of flow '{}', {}.prio_tc) is expected {} of the {} it could use: {}", tc,
        first.priority, first.group, eth_key, format_rate_bps(load.expected_bps),
        format_rate_bps(could_use), why);
    out.push_back(std::move(shortfall));
  }
}

// InfiniBand: a VL with no VLArb entry of non-zero weight is never served, and the high table
// serves its VLs before the low table's up to high_limit.
void vlarb_shortfalls(const CompiledScenario& compiled, const std::vector<ClassLoad>& loads,
                      std::vector<Shortfall>& out) {
  const policy::QosPlan& plan = compiled.plan;
  const policy::IbPortQos& tables = plan.deciding_port_qos().ib.tables;
  const double capacity = plan.deciding_port_capacity_bps();
  const Scenario& scenario = *compiled.scenario;
  const std::string ib_key = key(scenario.where, scenario.ib.where, "ib");
  auto weight_in = [](const std::vector<policy::VlArbEntry>& table, uint32_t vl) {
    uint32_t weight = 0;
    for (const auto& entry : table) weight += entry.vl == vl ? entry.weight : 0;
    return weight;
  };
  for (uint32_t vl = 0; vl < policy::kMaxArbClasses; ++vl) {
    const ClassLoad& load = loads[vl];
    if (load.first_flow == std::numeric_limits<size_t>::max() || !(load.offered_bps > 0.0)) {
      continue;
    }
    const double could_use = std::min(load.offered_bps, capacity);
    if (!(load.expected_bps < kShortFraction * could_use)) continue;
    const uint32_t high = weight_in(tables.vlarb_high, vl);
    const uint32_t low = weight_in(tables.vlarb_low, vl);
    std::string why;
    if (high == 0 && low == 0) {
      why = fmt::format(
          "VL{} has no entry of non-zero weight in {}.vlarb_high or vlarb_low (or "
          "the OpenSM file's qos_vlarb_*): it is never served",
          vl, ib_key);
    } else if (high == 0) {
      std::string list;
      double above_bps = 0.0;
      for (uint32_t other = 0; other < policy::kMaxArbClasses; ++other) {
        if (other == vl || weight_in(tables.vlarb_high, other) == 0 ||
            !(loads[other].expected_bps > 0.0)) {
          continue;
        }
        list += fmt::format("{}VL{}", list.empty() ? "" : ", ", other);
        above_bps += loads[other].expected_bps;
      }
      if (list.empty()) continue;
      why = fmt::format("only in the low table; the high table's {} take {} (high_limit {})", list,
                        format_rate_bps(above_bps), tables.high_limit);
    } else {
      continue;
    }
    Shortfall shortfall;
    shortfall.subject = fmt::format("VL{}", vl);
    shortfall.starved = load.expected_bps <= kStarvedFraction * could_use;
    shortfall.loc = scenario.flows[compiled.flow_spec[load.first_flow]].loc;
    shortfall.where = scenario.flows[compiled.flow_spec[load.first_flow]].where;
    shortfall.cause =
        fmt::format("VL{} (flow '{}') is expected {} of the {} it could use: {}", vl,
                    plan.flows[load.first_flow].group, format_rate_bps(load.expected_bps),
                    format_rate_bps(could_use), why);
    out.push_back(std::move(shortfall));
  }
}

// A cap in the scheduling tree that binds above a group's leaf holds it below what it offers.
void cap_shortfalls(const CompiledScenario& compiled, const std::vector<double>& flow_bps,
                    std::vector<Shortfall>& out) {
  const policy::SchedTree& tree = compiled.plan.tree;
  const Scenario& scenario = *compiled.scenario;
  for (uint32_t g = 0; g < scenario.flows.size(); ++g) {
    double offered = 0.0, expected = 0.0;
    uint32_t leaf = policy::SchedTree::kNoParent;
    for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
      if (compiled.flow_spec[f] != g) continue;
      offered += compiled.offered_bps[f];
      expected += flow_bps[f];
      leaf = compiled.plan.flows[f].leaf;
    }
    if (leaf == policy::SchedTree::kNoParent || !(expected < offered * (1.0 - 1e-6))) continue;
    for (uint32_t e = leaf; e != policy::SchedTree::kNoParent; e = tree.elements[e].parent) {
      const double cap = tree.elements[e].max_avg_bw_bps;
      const double demand = compiled.expected.element_demand_bps[e];
      if (!(cap > 0.0) || !(demand >= cap * (1.0 - 1e-9))) continue;
      const FlowSpec& flow = scenario.flows[g];
      out.push_back(Shortfall{
          flow.name,
          fmt::format("'{}' is held by the cap of sched element '{}' (max_avg_bw {}), which its "
                      "subtree's demand exceeds",
                      flow.name, tree.elements[e].name, format_rate_bps(cap)),
          false, flow.loc, flow.where});
      break;
    }
  }
}

}  // namespace

std::vector<Shortfall> shortfall_causes(const CompiledScenario& compiled,
                                        const std::vector<double>& flow_bps) {
  std::vector<Shortfall> out;
  const policy::PortQos& qos = compiled.plan.deciding_port_qos();
  if (qos.kind == policy::PortQos::Kind::ets) {
    ets_shortfalls(compiled, class_loads(compiled, flow_bps), out);
  } else if (qos.kind == policy::PortQos::Kind::vlarb) {
    vlarb_shortfalls(compiled, class_loads(compiled, flow_bps), out);
  }
  cap_shortfalls(compiled, flow_bps, out);
  return out;
}

std::vector<Warning> starvation_warnings(const CompiledScenario& compiled) {
  std::vector<Warning> warnings;
  for (Shortfall& shortfall : shortfall_causes(compiled, compiled.expected.flow_bps)) {
    if (!shortfall.starved) continue;
    warnings.push_back(
        Warning{shortfall.cause + " (its flows are expected 0 bit/s; a latency gate on them has no "
                                  "samples to judge)",
                shortfall.where, shortfall.loc});
  }
  return warnings;
}

}  // namespace qb::suite
