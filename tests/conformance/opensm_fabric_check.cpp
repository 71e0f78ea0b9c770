// opensm_fabric_check: what qosbench computes for a suite that `import-opensm --fabric-dir` wrote,
// for the fabric conformance test to compare with what OpenSM programmed (fabric_conformance.py).
//   opensm_fabric_check SUITE
// Prints one JSON object:
//   "ports": per connected port (host NIC ports and switch external ports) the tables qosbench
//            computes from the suite's [ib] alone ("computed": OpenSM's per-port-type sets of the
//            opensm.conf) and with the suite's [[topology.switch_qos]] ("suite");
//   "routes": per ordered host pair the switch egress ports ("node:port") of the path routing =
//            "lft" gives, and the hop counts and paths of routing "shortest" (seed 1) and "single".
// Exit 2 on a bad suite (file:line:col), 1 when routing fails.
#include <iostream>
#include <string>
#include <vector>

#include "qb/fabric/routing.hpp"
#include "qb/suite/suite_loader.hpp"
#include "switch_qos_loader.hpp"

namespace {

using qb::fabric::Topology;

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string tables_json(const qb::policy::PortQos& qos) {
  const auto& t = qos.ib.tables;
  std::string out = "{\"sl2vl\":[";
  for (size_t sl = 0; sl < t.sl2vl.size(); ++sl) out += (sl > 0 ? "," : "") + std::to_string(t.sl2vl[sl]);
  auto table = [](const std::vector<qb::policy::VlArbEntry>& entries) {
    std::string s = "[";
    for (size_t i = 0; i < entries.size(); ++i) {
      s += (i > 0 ? ",[" : "[") + std::to_string(entries[i].vl) + "," +
           std::to_string(entries[i].weight) + "]";
    }
    return s + "]";
  };
  return out + "],\"vlarb_high\":" + table(t.vlarb_high) + ",\"vlarb_low\":" + table(t.vlarb_low) +
         ",\"high_limit\":" + std::to_string(t.high_limit) + "}";
}

// The switch egress ports of a route ("node:port"), the host's NIC port left out.
std::string path_json(const Topology& t, const qb::fabric::Route& route) {
  std::string out = "[";
  bool first = true;
  for (const uint32_t c : route.channels) {
    const qb::fabric::Channel ch = t.channel(c);
    if (t.nodes()[ch.from].kind == qb::fabric::NodeKind::host) continue;
    out += (first ? "" : ",") + quoted(t.nodes()[ch.from].name + ":" + std::to_string(ch.from_port));
    first = false;
  }
  return out + "]";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: opensm_fabric_check SUITE\n";
    return 2;
  }
  auto suite = qb::suite::load_suite_file(argv[1]);
  if (!suite) {
    std::cerr << suite.error().to_string() << "\n";
    return 2;
  }
  const qb::suite::Scenario& scenario = suite->scenarios.front();
  if (!scenario.topology || !scenario.ib.present) {
    std::cerr << argv[1] << ": needs a [topology] and [ib]\n";
    return 2;
  }
  const Topology& t = scenario.topology->topology;
  qb::fabric::FabricQosSpec spec = qb::suite::detail::fabric_qos(scenario);
  auto with = qb::fabric::channel_qos(t, spec);
  spec.overrides.clear();
  auto computed = qb::fabric::channel_qos(t, spec);
  if (!with || !computed) {
    std::cerr << (with ? computed : with).error().to_string() << "\n";
    return 2;
  }
  std::string out = "{\"ports\":[";
  for (uint32_t c = 0; c < t.channel_count(); ++c) {
    const qb::fabric::Channel ch = t.channel(c);
    const auto& node = t.nodes()[ch.from];
    const bool host = node.kind == qb::fabric::NodeKind::host;
    out += (c > 0 ? "," : "") + std::string("{\"node\":") + quoted(node.name) +
           ",\"port\":" + std::to_string(ch.from_port) + ",\"type\":\"" + (host ? "ca" : "swe") +
           "\",\"computed\":" + tables_json((*computed)[c]) + ",\"suite\":" + tables_json((*with)[c]) +
           "}";
  }
  out += "],\"routes\":[";
  std::vector<qb::fabric::FlowEndpoints> pairs;
  for (uint32_t s = 0; s < t.host_count(); ++s) {
    for (uint32_t d = 0; d < t.host_count(); ++d) {
      if (s != d) pairs.push_back({s, d});
    }
  }
  auto lft = qb::fabric::route_flows(t, pairs, scenario.topology->routing);
  qb::fabric::RoutingSpec shortest_spec;
  auto shortest = qb::fabric::route_flows(t, pairs, shortest_spec);
  qb::fabric::RoutingSpec single_spec;
  single_spec.kind = qb::fabric::RoutingKind::single;
  auto single = qb::fabric::route_flows(t, pairs, single_spec);
  if (!lft || !shortest || !single) {
    std::cerr << (!lft ? lft : !shortest ? shortest : single).error().to_string() << "\n";
    return 1;
  }
  for (size_t i = 0; i < pairs.size(); ++i) {
    const auto name = [&](uint32_t host) { return t.nodes()[t.hosts()[host]].name; };
    out += (i > 0 ? "," : "") + std::string("{\"src\":") + quoted(name(pairs[i].src_host)) +
           ",\"dst\":" + quoted(name(pairs[i].dst_host)) +
           ",\"lft\":" + path_json(t, (*lft)[i]) + ",\"shortest\":" + path_json(t, (*shortest)[i]) +
           ",\"single\":" + path_json(t, (*single)[i]) + "}";
  }
  std::cout << out << "]}\n";
  return 0;
}
