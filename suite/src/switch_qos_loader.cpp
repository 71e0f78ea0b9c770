#include "switch_qos_loader.hpp"

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "class_resolution.hpp"
#include "qos_loader.hpp"

namespace qb::suite::detail {
namespace {

constexpr std::string_view kEthKeys[] = {"trust", "dscp2prio", "prio_tc", "tsa", "ets",
                                         "tc_max_rate"};
constexpr std::string_view kIbKeys[] = {"sl2vl", "vlarb_high", "vlarb_low", "high_limit"};

std::vector<std::string> read_names(const TableReader& item) {
  if (!item.has("switch")) {
    item.fail_missing("switch", "the switch this entry sets: a name, a pattern such as "
                                "\"spine*\", or an array of those");
  }
  const Located value = item.at("switch");
  std::vector<std::string> names;
  auto add = [&](const Located& one) {
    const auto* text = one.node.as_string();
    if (text == nullptr) one.fail_type("a switch name or pattern (\"spine*\")");
    if (text->get().empty()) one.fail_here("a switch name is not empty");
    names.push_back(text->get());
  };
  if (const auto* array = value.node.as_array()) {
    if (array->empty()) value.fail_here("switch is empty");
    for (size_t i = 0; i < array->size(); ++i) {
      add(Located{*array->get(i), fmt::format("{}[{}]", value.path, i), value.file});
    }
  } else {
    add(value);
  }
  return names;
}

std::vector<uint32_t> read_ports(const TableReader& item) {
  std::vector<uint32_t> ports;
  if (!item.has("ports")) return ports;
  const Located value = item.at("ports");
  const auto* array = value.node.as_array();
  if (array == nullptr) value.fail_type("an array of port numbers (1..254)");
  if (array->empty()) value.fail_here("ports is empty (leave it out for every port)");
  for (size_t i = 0; i < array->size(); ++i) {
    const Located one{*array->get(i), fmt::format("{}[{}]", value.path, i), value.file};
    const auto* integer = one.node.as_integer();
    if (integer == nullptr) one.fail_type("a port number");
    const int64_t port = integer->get();
    if (port < 1 || port > fabric::kMaxSwitchPorts) {
      one.fail_here(fmt::format("a switch port is 1..{}, got {}", fabric::kMaxSwitchPorts, port));
    }
    for (const uint32_t earlier : ports) {
      if (earlier == port) one.fail_here(fmt::format("port {} twice", port));
    }
    ports.push_back(static_cast<uint32_t>(port));
  }
  return ports;
}

}  // namespace

void read_switch_qos(const Located& section, Scenario& scenario) {
  const TableReader top(section.table(), section.path, section.file);
  const toml::node* node = top.find("switch_qos");
  if (node == nullptr || !scenario.topology) return;
  const auto* array = node->as_array();
  if (array == nullptr) top.at("switch_qos").fail_type("an array of tables ([[topology.switch_qos]])");
  std::vector<fabric::SwitchQosOverride> overrides;
  for (size_t i = 0; i < array->size(); ++i) {
    const Located entry{*array->get(i), index_path(top.path(), "switch_qos", i), top.file()};
    if (!entry.node.is_table()) entry.fail_type("a table ([[topology.switch_qos]])");
    const TableReader item(entry.table(), entry.path, entry.file);
    item.allow_only({"switch", "ports", "trust", "dscp2prio", "prio_tc", "tsa", "ets",
                     "tc_max_rate", "sl2vl", "vlarb_high", "vlarb_low", "high_limit"});
    fabric::SwitchQosOverride o;
    o.where = entry.path;
    o.loc = item.loc();
    o.switches = read_names(item);
    o.ports = read_ports(item);
    std::string_view eth_key, ib_key;
    for (const std::string_view key : kEthKeys) {
      if (eth_key.empty() && item.has(key)) eth_key = key;
    }
    for (const std::string_view key : kIbKeys) {
      if (ib_key.empty() && item.has(key)) ib_key = key;
    }
    if (!eth_key.empty() && !ib_key.empty()) {
      item.fail_at(ib_key, fmt::format("{} is an [ib] table and {} an [eth] key: a port is one or "
                                       "the other",
                                       ib_key, eth_key));
    }
    if (!eth_key.empty()) {
      if (!scenario.eth.present) {
        item.fail_at(eth_key, fmt::format("{} overrides the suite's [eth] on a switch; this "
                                          "scenario has no [eth]",
                                          eth_key));
      }
      o.eth = read_eth_over(item, scenario.eth.qos);
    } else if (!ib_key.empty()) {
      if (!scenario.ib.present) {
        item.fail_at(ib_key, fmt::format("{} overrides the suite's [ib] tables on a switch; this "
                                         "scenario has no [ib]",
                                         ib_key));
      }
      o.ib = read_ib_tables(item, scenario.ib.caps);
    } else {
      item.fail_at("switch", "this entry sets nothing: give [eth]-shaped keys (prio_tc, tsa, "
                             "ets, ...) or [ib] tables (sl2vl, vlarb_high, vlarb_low, "
                             "high_limit)");
    }
    overrides.push_back(std::move(o));
  }
  scenario.topology->switch_qos = std::move(overrides);
  auto checked = scenario_channel_qos(scenario);
  if (!checked) throw ConfigError{std::move(checked).error()};
}

fabric::FabricQosSpec fabric_qos(const Scenario& scenario) {
  fabric::FabricQosSpec spec;
  spec.ca = nic_port_qos(scenario);
  spec.swe = switch_port_qos(scenario);
  if (scenario.topology) spec.overrides = scenario.topology->switch_qos;
  return spec;
}

Result<std::vector<policy::PortQos>> scenario_channel_qos(const Scenario& scenario) {
  if (!scenario.topology) {
    return make_error(Errc::invalid_config, "per-channel QoS needs a [topology]");
  }
  return fabric::channel_qos(scenario.topology->topology, fabric_qos(scenario));
}

}  // namespace qb::suite::detail
