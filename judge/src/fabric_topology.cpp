// A [topology] scenario's graph into the results; see fabric_topology.hpp.
#include "fabric_topology.hpp"

#include "qb/policies/port_qos.hpp"

namespace qb::judge {

void describe_topology(const suite::CompiledScenario& compiled, ScenarioResult& out) {
  if (!compiled.plan.graph) return;
  const policy::FabricPlan& graph = *compiled.plan.graph;
  TopologyResult& topology = out.topology;
  topology.nodes.reserve(graph.node_names.size());
  for (size_t n = 0; n < graph.node_names.size(); ++n) {
    topology.nodes.push_back({graph.node_names[n], graph.node_is_host[n] != 0 ? "host" : "switch"});
  }
  // Channel 2l + d is link l leaving its end d (policies/fabric_plan.hpp).
  for (uint32_t ch = 0; ch + 1 < graph.channel_count(); ch += 2) {
    const policy::FabricChannel& forth = graph.channels[ch];
    TopologyLink& link = topology.links.emplace_back();
    link.ends = {graph.node_names[forth.from_node], graph.node_names[forth.to_node]};
    link.channels = {graph.channel_names[ch], graph.channel_names[ch + 1]};
    link.rate_bps = forth.rate_bps;
    link.delay_ns = forth.delay_ns;
  }
  const auto& flows = compiled.plan.flows;
  for (size_t f = 0; f < out.flows.size() && f < graph.flow_path.size(); ++f) {
    TopologyPath& path = topology.paths.emplace_back();
    path.flow = out.flows[f].name;
    if (f < flows.size()) {
      path.sl = flows[f].sl;
      path.priority = flows[f].priority;
    }
    const std::vector<uint32_t>& channels = graph.flow_path[f];
    for (size_t hop = 0; hop < channels.size(); ++hop) {
      const uint32_t ch = channels[hop];
      const uint8_t cls = hop < graph.flow_class[f].size() ? graph.flow_class[f][hop] : 0;
      path.hops.push_back(
          {graph.channel_names[ch], policy::arb_class_name(graph.channel_qos[ch], cls)});
    }
  }
}

}  // namespace qb::judge
