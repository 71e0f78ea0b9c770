// A [topology] scenario's fabric; see fabric_compile.hpp.
#include "fabric_compile.hpp"

#include <fmt/format.h>

#include <memory>
#include <utility>

#include "qb/fabric/channel_qos.hpp"
#include "qb/fabric/expectation.hpp"
#include "qb/fabric/routing.hpp"
#include "qb/policies/oracle.hpp"
#include "switch_qos_loader.hpp"

namespace qb::suite::detail {
namespace {

std::vector<fabric::FabricFlow> fabric_flows(const CompiledScenario& compiled,
                                             std::span<const double> offered_bps) {
  std::vector<fabric::FabricFlow> flows(compiled.plan.flows.size());
  for (size_t f = 0; f < flows.size(); ++f) {
    const policy::FlowPlan& plan = compiled.plan.flows[f];
    flows[f].offered_bps = offered_bps[f];
    flows[f].nic_class = plan.arb_class;
    flows[f].switch_class = plan.switch_arb_class;
    flows[f].sl = plan.sl;  // each port maps the marking to its class (channel_qos)
    flows[f].dscp = plan.dscp;
    flows[f].packet_wire_bytes = compiled.mean_packet_wire_bytes[f];
    flows[f].leaf = plan.leaf;
    flows[f].dropped = plan.dropped;
  }
  return flows;
}

fabric::PortPolicy port_policy(const CompiledScenario& compiled, const policy::FabricPlan& graph) {
  fabric::PortPolicy policy;
  policy.nic_qos = compiled.plan.nic_qos;
  policy.switch_qos = compiled.plan.switch_qos;
  policy.channel_qos = graph.channel_qos;
  policy.tree = compiled.plan.tree.elements.empty() ? nullptr : &compiled.plan.tree;
  policy.fairness = compiled.scenario->topology->fairness;
  return policy;
}

std::vector<fabric::Route> routes_of(const policy::FabricPlan& graph) {
  std::vector<fabric::Route> routes(graph.flow_path.size());
  for (size_t f = 0; f < routes.size(); ++f) routes[f].channels = graph.flow_path[f];
  return routes;
}

// The tree's figures summed over the hosts (each NIC runs the tree over its own flows): every
// element's expected rate, and its demand (min(cap, what its subtree offers)) per host.
void tree_totals(CompiledScenario& compiled) {
  const policy::SchedTree& tree = compiled.plan.tree;
  const size_t elements = tree.elements.size();
  policy::OracleResult& expected = compiled.expected;
  expected.element_bps.assign(elements, 0.0);
  expected.element_demand_bps.assign(elements, 0.0);
  if (elements == 0) return;
  for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
    for (uint32_t e = compiled.plan.flows[f].leaf; e != policy::SchedTree::kNoParent;
         e = tree.elements[e].parent) {
      expected.element_bps[e] += expected.flow_bps[f];
    }
  }
  // Each host's flows in flow order, in one pass (a scan of every flow per host was hosts x
  // flows: 33 M steps for an all-to-all over 320 hosts).
  std::vector<std::vector<policy::FlowDemand>> by_host(compiled.plan.host_count());
  for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
    const uint32_t host = compiled.plan.flows[f].host;
    if (host < by_host.size()) {
      by_host[host].push_back({compiled.plan.flows[f].leaf, compiled.offered_bps[f]});
    }
  }
  for (const std::vector<policy::FlowDemand>& demands : by_host) {
    if (demands.empty()) continue;
    const policy::OracleResult alone =
        policy::expected_rates(tree, demands, std::numeric_limits<double>::infinity());
    for (size_t e = 0; e < elements; ++e) {
      expected.element_demand_bps[e] += alone.element_demand_bps[e];
    }
  }
}

// What the gates and flows say when `expected` is no expectation; its note says the rest
// (the console's "oracle:" line, explain).
std::string why_unjudgeable(const fabric::FabricExpectation& expected, const char* when) {
  if (!expected.fixed_points.empty()) {
    return fmt::format("the expectation across the fabric is not defined{}: it has more than one "
                       "fixed point (see the oracle note)",
                       when);
  }
  std::string why = fmt::format("the expectation across the fabric did not settle{}", when);
  if (!expected.notes.empty()) why += " (" + expected.notes.front() + ")";
  return why;
}

}  // namespace

Status compile_fabric(const Scenario& scenario, std::span<const fabric::FlowEndpoints> endpoints,
                      CompiledScenario& compiled) {
  const fabric::TopologySpec& spec = *scenario.topology;
  const fabric::Topology& topology = spec.topology;
  auto routes = fabric::route_flows(topology, endpoints, spec.routing);
  if (!routes) {
    Error error = std::move(routes).error();
    if (error.where.empty()) {
      error.where = spec.routing.where.empty() ? spec.where : spec.routing.where;
      error.loc = spec.routing.where.empty() ? spec.loc : spec.routing.loc;
    }
    return error;
  }
  // Each port's QoS: the CA / switch sets and the [[topology.switch_qos]] overrides.
  auto channel_qos = scenario_channel_qos(scenario);
  if (!channel_qos) return std::move(channel_qos).error();
  policy::QosPlan& plan = compiled.plan;
  auto graph = std::make_shared<policy::FabricPlan>();
  graph->channel_qos = std::move(*channel_qos);
  for (const fabric::Node& node : topology.nodes()) {
    graph->node_names.push_back(node.name);
    graph->node_is_host.push_back(node.kind == fabric::NodeKind::host ? 1 : 0);
  }
  graph->host_node = topology.hosts();
  for (uint32_t ch = 0; ch < topology.channel_count(); ++ch) {
    const fabric::Channel channel = topology.channel(ch);
    graph->channels.push_back({channel.from, channel.to, channel.rate_bps, channel.delay_ns});
    graph->channel_names.push_back(topology.channel_name(ch));
  }
  for (size_t f = 0; f < plan.flows.size(); ++f) {
    policy::FlowPlan& flow = plan.flows[f];
    flow.host = endpoints[f].src_host;
    std::vector<uint32_t>& path = graph->flow_path.emplace_back(std::move((*routes)[f].channels));
    // The flow's class at each hop, by that port's own tables; on IB, an SL2VL to VL15 on any
    // hop of its path drops it (and only such a hop: a switch elsewhere does not).
    std::vector<uint8_t>& classes = graph->flow_class.emplace_back(path.size(), 0);
    bool drop = false;
    for (size_t h = 0; h < path.size(); ++h) {
      const policy::PortQos& qos = graph->channel_qos[path[h]];
      const uint8_t c = fabric::port_class(qos, flow.sl, flow.dscp);
      if (qos.kind == policy::PortQos::Kind::vlarb && c == policy::kDropVl) {
        // explain names the first hop that drops it (the suite-wide tables' drops say so already).
        if (!drop && !flow.dropped) {
          flow.class_note += fmt::format("{}SL2VL of {} sends SL {} to VL15: dropped",
                                         flow.class_note.empty() ? "" : "; ",
                                         graph->channel_names[path[h]], flow.sl);
        }
        drop = true;
      } else {
        classes[h] = c;
      }
    }
    if (plan.nic_qos.kind == policy::PortQos::Kind::vlarb) flow.dropped = drop;
    graph->flow_source.push_back(endpoints[f].src_host);
    graph->flow_destination.push_back(endpoints[f].dst_host);
  }
  graph->per_flow_fairness = spec.fairness == fabric::Fairness::per_flow;
  if (spec.buffer_bytes > 0 && scenario.fabric.lossy) {
    return make_error(
        Errc::invalid_config,
        "[topology] buffer sizes the lossless (switch ingress, class) buffers; a lossy fabric "
        "drops at each egress class's [fabric] buffer instead: leave one of them out",
        spec.where + ".buffer", spec.loc);
  }
  graph->buffer_bytes = spec.buffer_bytes;
  plan.hosts = topology.host_count();
  plan.switched = false;

  auto expected = fabric::expected_fabric_rates(topology, fabric_flows(compiled, compiled.offered_bps),
                                                routes_of(*graph), port_policy(compiled, *graph));
  if (!expected) {
    Error error = std::move(expected).error();
    if (error.where.empty()) {
      error.where = spec.where;
      error.loc = spec.loc;
    }
    return error;
  }
  if (!expected->settled) compiled.unjudgeable = why_unjudgeable(*expected, "");
  compiled.expected.flow_bps = expected->flow_bps;
  graph->channel_expected_bps = std::move(expected->channel_bps);
  graph->flow_bottleneck = std::move(expected->bottleneck);
  for (std::string& note : expected->notes) compiled.oracle_notes.push_back(std::move(note));
  plan.graph = std::move(graph);
  tree_totals(compiled);
  return {};
}

std::vector<double> fabric_expected_bps(CompiledScenario& compiled,
                                        std::span<const double> offered_bps) {
  const fabric::TopologySpec& spec = *compiled.scenario->topology;
  auto expected = fabric::expected_fabric_rates(spec.topology, fabric_flows(compiled, offered_bps),
                                                routes_of(*compiled.plan.graph),
                                                port_policy(compiled, *compiled.plan.graph));
  if (!expected) return std::vector<double>(offered_bps.size(), 0.0);  // checked at compile
  if (!expected->settled && compiled.unjudgeable.empty()) {
    compiled.unjudgeable = why_unjudgeable(*expected, " after a flow joined");
  }
  return std::move(expected->flow_bps);
}

}  // namespace qb::suite::detail
