#include "qb/fabric/channel_qos.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace qb::fabric {
namespace {

Error at(const SwitchQosOverride& entry, std::string message) {
  return Error{Errc::invalid_config, std::move(message), entry.where, entry.loc};
}

// Replaces the tables the override gives; a VL beyond the port's operational VLs is refused
// (the table would send data on a VL the port does not run).
Status apply_ib(const SwitchQosOverride& entry, policy::IbArbitration& ib) {
  const uint8_t highest = policy::max_data_vl(ib.op_vls);
  auto check = [&](uint8_t vl, std::string_view table) -> Status {
    if (vl == policy::kDropVl && table == "sl2vl") return {};
    if (vl > highest) {
      return at(entry, fmt::format("{} names VL {}, beyond the port's operational VLs (VL0-VL{})",
                                   table, vl, highest));
    }
    return {};
  };
  if (entry.ib.sl2vl) {
    for (const uint8_t vl : *entry.ib.sl2vl) {
      if (auto status = check(vl, "sl2vl"); !status) return status;
    }
  }
  for (const auto* table : {&entry.ib.vlarb_high, &entry.ib.vlarb_low}) {
    if (!*table) continue;
    for (const auto& e : **table) {
      const std::string_view name = table == &entry.ib.vlarb_high ? "vlarb_high" : "vlarb_low";
      if (auto status = check(e.vl, name); !status) return status;
    }
  }
  apply_tables(entry.ib, ib.tables);
  return {};
}

}  // namespace

void apply_tables(const IbTablesOverride& tables, policy::IbPortQos& qos) {
  if (tables.sl2vl) qos.sl2vl = *tables.sl2vl;
  if (tables.vlarb_high) qos.vlarb_high = *tables.vlarb_high;
  if (tables.vlarb_low) qos.vlarb_low = *tables.vlarb_low;
  if (tables.high_limit) qos.high_limit = *tables.high_limit;
}

bool name_matches(std::string_view pattern, std::string_view name) noexcept {
  // Greedy glob with one backtrack point (the last '*'): linear in practice.
  size_t p = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (p < pattern.size() && pattern[p] == name[n]) {
      ++p;
      ++n;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

Result<std::vector<policy::PortQos>> channel_qos(const Topology& topology,
                                                 const FabricQosSpec& spec) {
  std::vector<policy::PortQos> out(topology.channel_count());
  for (uint32_t c = 0; c < topology.channel_count(); ++c) {
    const bool at_host = topology.nodes()[topology.channel(c).from].kind == NodeKind::host;
    out[c] = at_host ? spec.ca : spec.swe;
  }
  for (const SwitchQosOverride& entry : spec.overrides) {
    if (entry.eth && spec.swe.kind != policy::PortQos::Kind::ets) {
      return at(entry, "Ethernet keys ([eth]-shaped) override a switch of a fabric without [eth]");
    }
    if (entry.ib.any() && spec.swe.kind != policy::PortQos::Kind::vlarb) {
      return at(entry, "IB tables (sl2vl, vlarb_*, high_limit) override a switch of a fabric "
                       "without [ib]");
    }
    for (const std::string& pattern : entry.switches) {
      bool matched = false;
      for (uint32_t id = 0; id < topology.nodes().size(); ++id) {
        const Node& node = topology.nodes()[id];
        if (node.kind != NodeKind::switch_node || !name_matches(pattern, node.name)) continue;
        matched = true;
        for (const uint32_t port : entry.ports) {
          if (port >= node.out_channel.size() || node.out_channel[port] == kNoChannel) {
            return at(entry, fmt::format("switch '{}' has no connected port {}", node.name, port));
          }
        }
        for (uint32_t port = 1; port < node.out_channel.size(); ++port) {
          const uint32_t channel = node.out_channel[port];
          if (channel == kNoChannel) continue;
          if (!entry.ports.empty() &&
              std::find(entry.ports.begin(), entry.ports.end(), port) == entry.ports.end()) {
            continue;
          }
          policy::PortQos& qos = out[channel];
          if (entry.eth) qos.eth = *entry.eth;
          if (auto status = apply_ib(entry, qos.ib); !status) return std::move(status).error();
        }
      }
      if (!matched) {
        const bool is_host = topology.find_host(pattern).has_value();
        return at(entry, is_host ? fmt::format("'{}' is a host; switch_qos names switches "
                                               "(a host's NIC port takes the suite's [eth]/[ib])",
                                               pattern)
                                 : fmt::format("'{}' matches no switch of the topology", pattern));
      }
    }
  }
  return out;
}

uint8_t port_class(const policy::PortQos& qos, uint8_t sl, uint8_t dscp) noexcept {
  switch (qos.kind) {
    case policy::PortQos::Kind::ets: {
      const uint8_t prio = qos.eth.trust == policy::EthTrust::dscp ? qos.eth.dscp2prio[dscp & 63]
                                                                   : static_cast<uint8_t>(sl & 7);
      return qos.eth.prio_tc[prio & 7];
    }
    case policy::PortQos::Kind::vlarb:
      return qos.ib.tables.sl2vl[sl & 15];
    case policy::PortQos::Kind::none:
      break;
  }
  return 0;
}

}  // namespace qb::fabric
