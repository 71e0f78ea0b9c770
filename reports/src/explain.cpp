#include "qb/reports/explain.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "qb/common/units.hpp"

namespace qb::report {
namespace {

using Json = nlohmann::ordered_json;

Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

std::string rate_or_unbounded(double bps) {
  return std::isfinite(bps) ? format_rate_bps(bps) : std::string("saturating");
}

void print_subtree(const engine::CompiledScenario& c, uint32_t element, int depth,
                   std::ostream& out) {
  const auto& e = c.plan.tree.elements[element];
  std::string attributes;
  if (e.parent != policy::SchedTree::kNoParent) {
    attributes += fmt::format(" bw_share={}{}", e.bw_share,
                              e.bw_share == 0 ? fmt::format(" (weight {})", e.weight) : "");
  }
  if (e.max_avg_bw_bps > 0) attributes += " cap=" + format_rate_bps(e.max_avg_bw_bps);
  fmt::print(out, "  {:{}}{} {}{}: expected {} (demand {})\n", "", depth * 2,
             e.is_leaf ? "leaf" : "node", e.name, attributes,
             format_rate_bps(c.expected.element_bps[element]),
             rate_or_unbounded(c.expected.element_demand_bps[element]));
  for (uint32_t child : e.children) print_subtree(c, child, depth + 1, out);
}

}  // namespace

std::vector<std::string> model_choices(const engine::CompiledScenario& compiled) {
  const auto& wire = compiled.plan.wire;
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "rates, shares and caps count wire bytes: {} B per packet besides the payload on {}{}",
      wire.per_packet_overhead_bytes(), policy::transport_name(wire.transport),
      wire.transport == policy::Transport::eth
          ? " (the flow size is the frame; preamble, SFD and inter-frame gap added)"
          : " (+16 B RETH on the first packet of an RDMA WRITE)"));
  out.push_back("bw_share 0 (device default) counts as weight 1");
  out.push_back("QPs on one leaf share it equally (round robin)");
  out.push_back(
      "the tree is work-conserving: bandwidth a child does not use (demand or cap) goes "
      "to its siblings by weight");
  for (uint32_t f = 0; f < compiled.plan.flows.size(); ++f) {
    const auto& spec = compiled.scenario->flows[compiled.flow_spec[f]];
    if (spec.arrival.kind == gen::ArrivalSpec::Kind::onoff ||
        spec.arrival.kind == gen::ArrivalSpec::Kind::poisson) {
      out.push_back("on/off and Poisson flows are expected at their long-run mean offered load");
      break;
    }
  }
  return out;
}

std::string explain_json(const engine::Suite& suite,
                         const std::vector<engine::CompiledScenario>& compiled) {
  Json scenarios = Json::array();
  for (const auto& c : compiled) {
    Json flows = Json::array();
    for (size_t f = 0; f < c.plan.flows.size(); ++f) {
      const auto& flow = c.plan.flows[f];
      flows.push_back(Json{{"name", flow.name},
                           {"group", flow.group},
                           {"leaf", c.plan.tree.elements[flow.leaf].name},
                           {"op", policy::op_name(flow.op)},
                           {"offered_bps", number(c.offered_bps[f])},
                           {"mean_wire_bytes", c.mean_wire_bytes[f]},
                           {"expected_bps", c.expected.flow_bps[f]}});
    }
    Json tree = Json::array();
    for (size_t e = 0; e < c.plan.tree.elements.size(); ++e) {
      const auto& element = c.plan.tree.elements[e];
      tree.push_back(Json{
          {"name", element.name},
          {"parent", element.parent == policy::SchedTree::kNoParent
                         ? Json(nullptr)
                         : Json(c.plan.tree.elements[element.parent].name)},
          {"kind", element.is_leaf ? "leaf" : "node"},
          {"bw_share", element.bw_share},
          {"weight", element.weight},
          {"cap_bps", element.max_avg_bw_bps > 0 ? Json(element.max_avg_bw_bps) : Json(nullptr)},
          {"demand_bps", number(c.expected.element_demand_bps[e])},
          {"expected_bps", c.expected.element_bps[e]}});
    }
    const auto& wire = c.plan.wire;
    scenarios.push_back(Json{{"name", c.scenario->name},
                             {"capacity_bps", c.plan.port_rate_bps},
                             {"rate_basis", "wire"},
                             {"wire",
                              {{"transport", policy::transport_name(wire.transport)},
                               {"mtu_bytes", wire.mtu_bytes},
                               {"per_packet_overhead_bytes", wire.per_packet_overhead_bytes()}}},
                             {"model_choices", model_choices(c)},
                             {"tree", std::move(tree)},
                             {"flows", std::move(flows)}});
  }
  Json root{{"schema", "qosbench.explain/1"},
            {"suite", suite.name},
            {"suite_file", suite.file},
            {"scenarios", std::move(scenarios)}};
  return root.dump(2) + "\n";
}

void print_explain(const engine::Suite& suite,
                   const std::vector<engine::CompiledScenario>& compiled, std::ostream& out) {
  fmt::print(out, "suite \"{}\" ({})\n", suite.name, suite.file);
  for (const auto& c : compiled) {
    fmt::print(out, "\nscenario \"{}\": {} {} port, MTU {}\n", c.scenario->name,
               format_rate_bps(c.plan.port_rate_bps), policy::transport_name(c.plan.wire.transport),
               c.plan.wire.mtu_bytes);
    fmt::print(out, "scheduling tree:\n");
    print_subtree(c, c.plan.tree.root(), 0, out);
    fmt::print(out, "flows:\n");
    for (size_t f = 0; f < c.plan.flows.size(); ++f) {
      const auto& flow = c.plan.flows[f];
      fmt::print(out, "  {:<20} leaf {:<10} offered {:<16} expected {}\n", flow.name,
                 c.plan.tree.elements[flow.leaf].name, rate_or_unbounded(c.offered_bps[f]),
                 format_rate_bps(c.expected.flow_bps[f]));
    }
    fmt::print(out, "model choices:\n");
    for (const auto& choice : model_choices(c)) fmt::print(out, "  - {}\n", choice);
  }
}

}  // namespace qb::report
