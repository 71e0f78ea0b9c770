#include "qb/reports/explain.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "qb/common/units.hpp"
#include "qb/judge/expectation_window.hpp"
#include "qb/suite/shortfall.hpp"

namespace qb::report {
namespace {

using Json = nlohmann::ordered_json;

Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

std::string rate_or_unbounded(double bps) {
  return std::isfinite(bps) ? format_rate_bps(bps) : std::string("saturating");
}

void print_subtree(const suite::CompiledScenario& c, uint32_t element, int depth,
                   std::ostream& out) {
  const auto& e = c.plan.tree.elements[element];
  std::string attributes;
  if (e.parent != policy::SchedTree::kNoParent) {
    attributes += fmt::format(" bw_share={}{}", e.bw_share,
                              e.bw_share == 0 ? fmt::format(" (weight {})", e.weight) : "");
  }
  if (e.max_avg_bw_bps > 0) {
    attributes += " cap=" + format_rate_bps(e.max_avg_bw_bps);
    // The NIC field holds whole Mbit/s: say what a ConnectX is given when it differs.
    const uint32_t programmed_mbps = policy::programmed_max_avg_bw_mbps(e.max_avg_bw_bps);
    if (static_cast<double>(programmed_mbps) * 1e6 != e.max_avg_bw_bps) {
      attributes += fmt::format(" (mlx5dv max_avg_bw={} Mbit/s)", programmed_mbps);
    }
  }
  fmt::print(out, "  {:{}}{} {}{}: expected {} (demand {})\n", "", depth * 2,
             e.is_leaf ? "leaf" : "node", e.name, attributes,
             format_rate_bps(c.expected.element_bps[element]),
             rate_or_unbounded(c.expected.element_demand_bps[element]));
  for (uint32_t child : e.children) print_subtree(c, child, depth + 1, out);
}

Json flow_class_json(const suite::CompiledScenario& c, const policy::FlowPlan& flow) {
  return Json{{"host", flow.host},
              {"tclass", policy::tc_name(flow.tx_tclass)},
              {"dscp", flow.dscp},
              {"sl", flow.sl},
              {"priority", flow.priority},
              {"arb_class",
               policy::arb_class_name(c.plan.deciding_port_qos(), c.plan.deciding_class_of(flow))},
              {"dropped", flow.dropped},
              {"class_note", flow.class_note}};
}

struct ClassExpectation {
  std::string name;
  uint32_t flows = 0;
  double expected_bps = 0.0;
};

std::vector<ClassExpectation> class_expectations(const suite::CompiledScenario& c) {
  std::map<uint32_t, ClassExpectation> by_class;
  for (size_t f = 0; f < c.plan.flows.size(); ++f) {
    const uint32_t arb_class = c.plan.deciding_class_of(c.plan.flows[f]);
    ClassExpectation& entry = by_class[arb_class];
    entry.name = policy::arb_class_name(c.plan.deciding_port_qos(), arb_class);
    ++entry.flows;
    entry.expected_bps += c.expected.flow_bps[f];
  }
  std::vector<ClassExpectation> out;
  for (auto& [arb_class, entry] : by_class) out.push_back(std::move(entry));
  return out;
}

// A flow's rate in every basis: wire (what the oracle and the gates count), payload (the flow's
// `rate` and what perftest/iperf3 report) and packets, at the flow's mean message and packet size.
struct FlowRates {
  double wire_bps = 0.0, payload_bps = 0.0, packets_per_s = 0.0;
};

FlowRates flow_rates(const suite::CompiledScenario& c, size_t f, double wire_bps) {
  FlowRates r;
  r.wire_bps = wire_bps;
  const double wire = c.mean_wire_bytes[f];
  const double packet = c.mean_packet_wire_bytes[f];
  const double payload = f < c.mean_message_bytes.size() ? c.mean_message_bytes[f] : 0.0;
  if (!std::isfinite(wire_bps)) {
    r.payload_bps = r.packets_per_s = wire_bps;
    return r;
  }
  r.payload_bps = wire > 0.0 ? wire_bps * payload / wire : 0.0;
  r.packets_per_s = packet > 0.0 ? wire_bps / 8.0 / packet : 0.0;
  return r;
}

std::string rates_text(const FlowRates& r) {
  if (!std::isfinite(r.wire_bps)) return "saturating";
  return fmt::format("{} wire ({} payload, {:.4f} Mpps)", format_rate_bps(r.wire_bps),
                     format_rate_bps(r.payload_bps), r.packets_per_s / 1e6);
}

double share_of(double bps, double capacity_bps) {
  return capacity_bps > 0 ? bps / capacity_bps : 0.0;
}

}  // namespace

std::vector<std::string> model_choices(const suite::CompiledScenario& compiled) {
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
  if (compiled.plan.has_classes()) {
    out.push_back(
        "classes: the port divides its rate among classes first (strict priority between ETS "
        "groups, then ETS percentages; VLArb high table bounded by high_limit, then weights by "
        "the 64-byte credit rule); the scheduling tree then divides each class's share among "
        "its flows");
    if (compiled.plan.hosts > 1 && compiled.plan.switched && !compiled.plan.congestion.lossy) {
      out.push_back(
          "switch egress: classes first, then the hosts of a class equally (water-filled by "
          "demand); lossless back-pressure lets a host's NIC give what the switch holds back to "
          "its other flows");
    } else if (compiled.plan.hosts > 1 && compiled.plan.switched) {
      out.push_back(
          "switch egress: classes first, then the hosts of a class equally (water-filled by "
          "demand); the switch is lossy (tail drop, go-back-N): the expectation is the same, "
          "what drops and retransmissions cost shows as measured error");
    }
  }
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

namespace {

// What each flow should get over the scenario's measured window: with joins, every epoch's
// share weighted by its time in the window (judge/expectation_window.hpp).
judge::SpanExpectation window_expectation(const suite::CompiledScenario& c) {
  const suite::Scenario& scenario = *c.scenario;
  return judge::expectation_over(c, scenario.warmup_ns, scenario.warmup_ns + scenario.duration_ns);
}

}  // namespace

namespace {

// A flow of a [topology]: its hosts, the channels it crosses and the one that limits it.
Json flow_path_json(const policy::FabricPlan& graph, size_t f) {
  Json path = Json::array();
  for (const uint32_t ch : graph.flow_path[f]) path.push_back(graph.channel_names[ch]);
  const uint32_t bottleneck = graph.flow_bottleneck[f];
  return Json{{"from", graph.node_names[graph.host_node[graph.flow_source[f]]]},
              {"to", graph.node_names[graph.host_node[graph.flow_destination[f]]]},
              {"path", std::move(path)},
              {"bottleneck", bottleneck < graph.channel_count()
                                 ? Json(graph.channel_names[bottleneck])
                                 : Json("offered load")}};
}

// The graph: its nodes, and each channel's rate, delay and expected load.
Json topology_json(const policy::FabricPlan& graph) {
  Json nodes = Json::array();
  for (size_t n = 0; n < graph.node_names.size(); ++n) {
    nodes.push_back(Json{{"name", graph.node_names[n]},
                         {"kind", graph.node_is_host[n] != 0 ? "host" : "switch"}});
  }
  Json channels = Json::array();
  for (uint32_t ch = 0; ch < graph.channel_count(); ++ch) {
    const policy::FabricChannel& channel = graph.channels[ch];
    channels.push_back(Json{{"name", graph.channel_names[ch]},
                            {"from", graph.node_names[channel.from_node]},
                            {"to", graph.node_names[channel.to_node]},
                            {"rate_bps", channel.rate_bps},
                            {"delay_ns", channel.delay_ns},
                            {"expected_bps", graph.channel_expected_bps[ch]}});
  }
  return Json{{"nodes", std::move(nodes)}, {"channels", std::move(channels)}};
}

}  // namespace

std::string explain_json(const suite::Suite& suite,
                         const std::vector<suite::CompiledScenario>& compiled) {
  Json scenarios = Json::array();
  for (const auto& c : compiled) {
    const bool has_classes = c.plan.has_classes();
    const judge::SpanExpectation window = window_expectation(c);
    const int64_t window_end_ns = c.scenario->warmup_ns + c.scenario->duration_ns;
    Json flows = Json::array();
    for (size_t f = 0; f < c.plan.flows.size(); ++f) {
      const auto& flow = c.plan.flows[f];
      const FlowRates offered = flow_rates(c, f, c.offered_bps[f]);
      const FlowRates expected = flow_rates(c, f, window.flow_bps[f]);
      flows.push_back(Json{{"name", flow.name},
                           {"group", flow.group},
                           {"leaf", c.plan.tree.elements[flow.leaf].name},
                           {"op", policy::op_name(flow.op)},
                           {"offered_bps", number(c.offered_bps[f])},
                           {"offered_payload_bps", number(offered.payload_bps)},
                           {"offered_pps", number(offered.packets_per_s)},
                           {"mean_wire_bytes", c.mean_wire_bytes[f]},
                           {"mean_payload_bytes", c.mean_message_bytes[f]},
                           {"mean_packet_wire_bytes", c.mean_packet_wire_bytes[f]},
                           {"expected_bps", window.flow_bps[f]},
                           {"expected_payload_bps", number(expected.payload_bps)},
                           {"expected_pps", number(expected.packets_per_s)},
                           {"start_ns", flow.start_ns},
                           {"started", judge::started_before(c, f, window_end_ns)}});
      if (has_classes) flows.back().update(flow_class_json(c, flow));
      if (c.plan.graph) flows.back().update(flow_path_json(*c.plan.graph, f));
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
          {"programmed_max_avg_bw_mbps",
           policy::programmed_max_avg_bw_mbps(element.max_avg_bw_bps)},
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
    Json epochs = Json::array();
    for (const suite::ExpectationEpoch& epoch : c.epochs) {
      epochs.push_back(Json{{"start_ns", epoch.start_ns}, {"flow_bps", epoch.flow_bps}});
    }
    scenarios.back()["epochs"] = std::move(epochs);
    if (c.plan.graph) scenarios.back()["topology"] = topology_json(*c.plan.graph);
    std::vector<std::string> shortfalls;
    for (const auto& shortfall : suite::shortfall_causes(c, c.expected.flow_bps)) {
      shortfalls.push_back(shortfall.cause);
    }
    scenarios.back()["shortfalls"] = std::move(shortfalls);
    if (has_classes) {
      const double capacity = c.plan.deciding_port_capacity_bps();
      Json classes = Json::array();
      for (const auto& entry : class_expectations(c)) {
        classes.push_back(Json{{"name", entry.name},
                               {"flows", entry.flows},
                               {"expected_bps", entry.expected_bps},
                               {"expected_share", share_of(entry.expected_bps, capacity)}});
      }
      Json& scenario = scenarios.back();
      scenario["hosts"] = c.plan.hosts;
      scenario["switched"] = c.plan.switched;
      if (c.plan.switched) scenario["switch_rate_bps"] = c.plan.switch_rate_bps;
      scenario["class_capacity_bps"] = capacity;
      scenario["classes"] = std::move(classes);
      scenario["oracle_notes"] = c.oracle_notes;
    }
  }
  Json root{{"schema", "qosbench.explain/1"},
            {"suite", suite.name},
            {"suite_file", suite.file},
            {"scenarios", std::move(scenarios)}};
  return root.dump(2) + "\n";
}

void print_explain(const suite::Suite& suite, const std::vector<suite::CompiledScenario>& compiled,
                   std::ostream& out) {
  fmt::print(out, "suite \"{}\" ({})\n", suite.name, suite.file);
  for (const auto& c : compiled) {
    fmt::print(out, "\nscenario \"{}\": {} {} port, MTU {}\n", c.scenario->name,
               format_rate_bps(c.plan.port_rate_bps), policy::transport_name(c.plan.wire.transport),
               c.plan.wire.mtu_bytes);
    fmt::print(out, "scheduling tree:\n");
    print_subtree(c, c.plan.tree.root(), 0, out);
    fmt::print(out,
               "flows (wire: every byte on the link, the basis of shares, caps and gates; "
               "payload: the flow's `rate`, what perftest and iperf3 report):\n");
    const bool has_classes = c.plan.has_classes();
    const judge::SpanExpectation window = window_expectation(c);
    const int64_t window_end_ns = c.scenario->warmup_ns + c.scenario->duration_ns;
    if (!c.epochs.empty()) {
      fmt::print(out,
                 "  (expected: over the measured window {} .. {}, each epoch's share below "
                 "weighted by its time in the window)\n",
                 format_duration_ns(static_cast<double>(c.scenario->warmup_ns)),
                 format_duration_ns(static_cast<double>(window_end_ns)));
    }
    for (size_t f = 0; f < c.plan.flows.size(); ++f) {
      const auto& flow = c.plan.flows[f];
      fmt::print(out, "  {:<20} leaf {:<10} offered  {}\n", flow.name,
                 c.plan.tree.elements[flow.leaf].name,
                 rates_text(flow_rates(c, f, c.offered_bps[f])));
      if (judge::started_before(c, f, window_end_ns)) {
        fmt::print(out, "  {:<20} {:<15} expected {}\n", "", "",
                   rates_text(flow_rates(c, f, window.flow_bps[f])));
      } else {
        fmt::print(out, "  {:<20} {:<15} not started: starts at {}, after the window ends\n", "",
                   "", format_duration_ns(static_cast<double>(flow.start_ns)));
      }
      if (!has_classes) continue;
      fmt::print(out, "  {:<20} host {} tclass {} dscp {} sl {} priority {} class {}{}\n", "",
                 flow.host, policy::tc_name(flow.tx_tclass), flow.dscp, flow.sl, flow.priority,
                 policy::arb_class_name(c.plan.deciding_port_qos(), c.plan.deciding_class_of(flow)),
                 flow.dropped ? " (dropped: SL2VL -> VL15)" : "");
      if (!flow.class_note.empty()) fmt::print(out, "  {:<20} ({})\n", "", flow.class_note);
    }
    if (has_classes) {
      const double capacity = c.plan.deciding_port_capacity_bps();
      fmt::print(out, "classes at the {} ({}):\n",
                 c.plan.switched ? "switch egress" : (c.plan.hosts > 1 ? "NIC ports" : "NIC port"),
                 format_rate_bps(capacity));
      for (const auto& entry : class_expectations(c)) {
        fmt::print(out, "  {:<8} {} flow{}  expected {} ({:.2f} %)\n", entry.name, entry.flows,
                   entry.flows == 1 ? "" : "s", format_rate_bps(entry.expected_bps),
                   100.0 * share_of(entry.expected_bps, capacity));
      }
      if (!c.oracle_notes.empty()) fmt::print(out, "oracle notes:\n");
      for (const auto& note : c.oracle_notes) fmt::print(out, "  - {}\n", note);
    }
    if (!c.epochs.empty()) {
      fmt::print(out, "epochs (each flow's share while that set of flows is active):\n");
      for (const suite::ExpectationEpoch& epoch : c.epochs) {
        std::string shares;
        uint32_t active = 0;
        for (size_t f = 0; f < epoch.flow_bps.size(); ++f) {
          if (!(epoch.flow_bps[f] > 0.0)) continue;
          ++active;
          shares += fmt::format("{}{} {}", shares.empty() ? "" : ", ", c.plan.flows[f].name,
                                format_rate_bps(epoch.flow_bps[f]));
        }
        fmt::print(out, "  from {} ({} flow{}{}): {}\n",
                   format_duration_ns(static_cast<double>(epoch.start_ns)), active,
                   active == 1 ? "" : "s",
                   epoch.start_ns >= window_end_ns ? ", after the window: not judged" : "", shares);
      }
    }
    const auto shortfalls = suite::shortfall_causes(c, c.expected.flow_bps);
    if (!shortfalls.empty()) fmt::print(out, "why flows get less than they offer:\n");
    for (const auto& shortfall : shortfalls) fmt::print(out, "  - {}\n", shortfall.cause);
    fmt::print(out, "model choices:\n");
    for (const auto& choice : model_choices(c)) fmt::print(out, "  - {}\n", choice);
  }
}

}  // namespace qb::report
