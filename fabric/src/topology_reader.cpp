#include "qb/fabric/topology_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <unordered_set>
#include <utility>

#include "qb/common/units.hpp"
#include "qb/fabric/generators.hpp"
#include "qb/fabric/ibnetdiscover.hpp"

namespace qb::fabric {
namespace {

using config::Located;
using config::TableReader;

constexpr int64_t kMaxCount = 65536;
constexpr int64_t kDefaultDelayNs = 1000;  // HPCC's 1 us per link

[[noreturn]] void fail_error(Error error) { throw ConfigError{std::move(error)}; }

// A link rate: a string ("100Gbps") or a number of bit/s; > 0, finite, at most the largest port.
std::optional<double> read_rate(const TableReader& reader, std::string_view key) {
  const toml::node* node = reader.find(key);
  if (node == nullptr) return std::nullopt;
  double rate = 0.0;
  if (const auto* text = node->as_string()) {
    auto parsed = parse_rate(text->get(), /*allow_zero=*/true);
    if (!parsed) reader.fail_at(key, parsed.error().message);
    if (parsed->unit != Rate::Unit::bits_per_second) {
      reader.fail_at(key, fmt::format("{} must be a bit rate such as \"100Gbps\", not a packet "
                                      "rate",
                                      key));
    }
    rate = parsed->value;
  } else if (const auto* integer = node->as_integer()) {
    rate = static_cast<double>(integer->get());
  } else if (const auto* real = node->as_floating_point()) {
    rate = real->get();
  } else {
    reader.at(key).fail_type("a bit rate such as \"100Gbps\" or a number of bit/s");
  }
  if (auto problem = link_rate_problem(rate); !problem.empty()) reader.fail_at(key, problem);
  return rate;
}

int64_t read_delay(const TableReader& reader, std::string_view key, int64_t fallback) {
  return reader.duration_ns(key, 0, kMaxLinkDelayNs, "200 km of fibre; a longer link is no single "
                                                     "hop")
      .value_or(fallback);
}

uint32_t read_count(const TableReader& reader, std::string_view key, uint32_t fallback,
                    int64_t max = kMaxCount) {
  return static_cast<uint32_t>(reader.integer(key, 1, max).value_or(fallback));
}

Topology generated(Result<Topology> topology) {
  if (!topology) fail_error(std::move(topology).error());
  return std::move(*topology);
}

// "name" or "name:port".
std::pair<std::string, uint32_t> split_end(const Located& value) {
  const auto* text = value.node.as_string();
  if (text == nullptr) value.fail_type("a node name, or \"name:port\"");
  const std::string& end = text->get();
  const size_t colon = end.rfind(':');
  if (colon == std::string::npos) return {end, 0};
  const std::string port_text = end.substr(colon + 1);
  uint32_t port = 0;
  bool ok = !port_text.empty() && port_text.size() <= 3;
  for (const char c : port_text) {
    if (c < '0' || c > '9') ok = false;
  }
  if (ok) port = static_cast<uint32_t>(std::stoul(port_text));
  if (!ok || port == 0 || port > kMaxSwitchPorts) {
    value.fail_here(fmt::format("'{}': a port is 1..{} after the colon", end, kMaxSwitchPorts));
  }
  return {end.substr(0, colon), port};
}

Topology read_explicit(const TableReader& reader) {
  TopologyBuilder builder;
  const std::optional<double> default_rate = read_rate(reader, "rate");
  const int64_t default_delay = read_delay(reader, "delay", kDefaultDelayNs);
  for (const std::string_view kind : {"switch", "host"}) {
    const toml::node* node = reader.find(kind);
    if (node == nullptr) continue;
    const auto* array = node->as_array();
    if (array == nullptr) {
      reader.at(kind).fail_type(fmt::format("an array of tables ([[topology.{}]])", kind));
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const Located entry{*array->get(i), config::index_path(reader.path(), kind, i),
                          reader.file()};
      const TableReader item(entry.table(), entry.path, entry.file);
      if (kind == "switch") {
        item.allow_only({"name", "ports"});
      } else {
        item.allow_only({"name"});
      }
      const std::string name = item.required_string("name");
      Result<uint32_t> id =
          kind == "switch"
              ? builder.add_switch(name,
                                   static_cast<uint32_t>(
                                       item.integer("ports", 1, kMaxSwitchPorts).value_or(0)),
                                   item.key_path("name"), item.value_loc("name"))
              : builder.add_host(name, item.key_path("name"), item.value_loc("name"));
      if (!id) fail_error(std::move(id).error());
    }
  }
  const toml::node* links = reader.find("link");
  if (links == nullptr) reader.fail_missing("link", "kind = \"explicit\" lists its [[topology.link]]s");
  const auto* array = links->as_array();
  if (array == nullptr) reader.at("link").fail_type("an array of tables ([[topology.link]])");
  for (size_t i = 0; i < array->size(); ++i) {
    const Located entry{*array->get(i), config::index_path(reader.path(), "link", i),
                        reader.file()};
    const TableReader link(entry.table(), entry.path, entry.file);
    link.allow_only({"ends", "rate", "delay"});
    if (!link.has("ends")) link.fail_missing("ends", "the two ends, e.g. [\"h0\", \"leaf0:1\"]");
    const Located ends = link.at("ends");
    const auto* pair = ends.node.as_array();
    if (pair == nullptr || pair->size() != 2) {
      ends.fail_here("ends takes two node names, e.g. [\"h0\", \"leaf0:1\"]");
    }
    uint32_t ids[2] = {0, 0}, ports[2] = {0, 0};
    for (size_t d = 0; d < 2; ++d) {
      const Located end{*pair->get(d), fmt::format("{}[{}]", ends.path, d), ends.file};
      auto [name, port] = split_end(end);
      const auto id = builder.find_node(name);
      if (!id) {
        end.fail_here(fmt::format("a link to an unknown node '{}' (no [[topology.switch]] or "
                                  "[[topology.host]] has that name)",
                                  name));
      }
      if (port != 0 && builder.node(*id).kind == NodeKind::host) {
        end.fail_here(fmt::format("'{}' is a host: a host has one port, give no :port", name));
      }
      ids[d] = *id;
      ports[d] = port;
    }
    std::optional<double> rate = read_rate(link, "rate");
    if (!rate) rate = default_rate;
    if (!rate) {
      link.fail_missing("rate", "or give [topology] rate, the rate of every link without one");
    }
    const int64_t delay = read_delay(link, "delay", default_delay);
    if (auto status =
            builder.add_link(ids[0], ports[0], ids[1], ports[1], *rate, delay, entry.path, link.loc());
        !status) {
      fail_error(std::move(status).error());
    }
  }
  auto topology = std::move(builder).finish();
  if (!topology) fail_error(std::move(topology).error());
  return std::move(*topology);
}

std::vector<Lft> read_lfts(const TableReader& reader, const Topology& topology) {
  std::vector<Lft> lfts;
  const toml::node* node = reader.find("lft");
  if (node == nullptr) {
    reader.fail_at("routing", "routing = \"lft\" needs the switches' tables ([[topology.lft]] "
                              "with switch and routes)");
  }
  const auto* array = node->as_array();
  if (array == nullptr) reader.at("lft").fail_type("an array of tables ([[topology.lft]])");
  std::unordered_set<uint32_t> seen;
  for (size_t i = 0; i < array->size(); ++i) {
    const Located entry{*array->get(i), config::index_path(reader.path(), "lft", i),
                        reader.file()};
    const TableReader item(entry.table(), entry.path, entry.file);
    item.allow_only({"switch", "routes"});
    Lft lft;
    lft.where = entry.path;
    lft.loc = item.loc();
    const std::string name = item.required_string("switch");
    const auto id = topology.find_node(name);
    if (!id) item.fail_at("switch", fmt::format("an LFT for an unknown switch '{}'", name));
    if (topology.nodes()[*id].kind != NodeKind::switch_node) {
      item.fail_at("switch", fmt::format("'{}' is a host; LFTs belong to switches", name));
    }
    if (!seen.insert(*id).second) {
      item.fail_at("switch", fmt::format("a second LFT for switch '{}'", name));
    }
    lft.switch_node = *id;
    lft.out_port.assign(topology.host_count(), 0);
    lft.entry_loc.assign(topology.host_count(), lft.loc);
    const toml::table* routes = item.subtable("routes");
    if (routes == nullptr) item.fail_missing("routes", "destination host = output port, ...");
    const TableReader table(*routes, item.key_path("routes"), item.file());
    for (auto&& [key, value] : *routes) {
      const std::string host_name(key.str());
      const auto host = topology.find_host(host_name);
      if (!host) {
        table.fail_at(host_name, fmt::format("no host named '{}' to route to", host_name));
      }
      const int64_t port = *table.integer(host_name, 1, kMaxSwitchPorts);
      lft.out_port[*host] = static_cast<uint32_t>(port);
      lft.entry_loc[*host] = table.value_loc(host_name);
    }
    lfts.push_back(std::move(lft));
  }
  return lfts;
}

template <class T, size_t N>
T read_choice(const TableReader& reader, std::string_view key,
              const std::pair<std::string_view, T> (&choices)[N], T fallback) {
  const auto text = reader.string(key);
  if (!text) return fallback;
  std::string names;
  for (const auto& [name, value] : choices) {
    if (*text == name) return value;
    names += fmt::format("{}\"{}\"", names.empty() ? "" : ", ", name);
  }
  reader.fail_at(key, fmt::format("unknown {} '{}' (use {})", key, *text, names));
}

}  // namespace

namespace {

// `buffer`: bytes of every (switch ingress port, class) buffer, a size or an integer.
int64_t read_buffer_bytes(const TableReader& reader) {
  const Located value = reader.at("buffer");
  double bytes = 0.0;
  if (const auto* integer = value.node.as_integer()) {
    bytes = static_cast<double>(integer->get());
  } else if (const auto* text = value.node.as_string()) {
    auto parsed = parse_size_bytes_unbounded(text->get());
    if (!parsed) value.fail_here(parsed.error().message);
    bytes = std::floor(*parsed);
  } else {
    value.fail_type("a size such as \"1MiB\" or an integer of bytes");
  }
  if (!(bytes >= static_cast<double>(kMinBufferBytes) &&
        bytes <= static_cast<double>(kMaxBufferBytes))) {
    value.fail_here(fmt::format("buffer must be in {}..{} bytes (per switch ingress port and "
                                "class)",
                                kMinBufferBytes, kMaxBufferBytes));
  }
  return static_cast<int64_t>(bytes);
}

}  // namespace

TopologySpec read_topology(const Located& section, const std::string& suite_dir) {
  const TableReader reader(section.table(), section.path, section.file);
  TopologySpec spec;
  spec.where = section.path;
  spec.loc = reader.loc();
  static constexpr std::pair<std::string_view, TopologyKind> kKinds[] = {
      {"leaf_spine", TopologyKind::leaf_spine},
      {"fat_tree", TopologyKind::fat_tree},
      {"explicit", TopologyKind::explicit_graph},
      {"ibnetdiscover", TopologyKind::ibnetdiscover}};
  if (!reader.has("kind")) {
    reader.fail_missing("kind", "\"leaf_spine\", \"fat_tree\", \"explicit\" or \"ibnetdiscover\"");
  }
  spec.kind = read_choice(reader, "kind", kKinds, TopologyKind::leaf_spine);
  const GeneratedAt at{section.path, reader.loc()};
  switch (spec.kind) {
    case TopologyKind::leaf_spine: {
      reader.allow_only({"kind", "leaves", "spines", "hosts_per_leaf", "links_per_spine",
                         "host_rate", "uplink_rate", "delay", "routing", "ecmp_seed", "lft",
                         "fairness", "switch_qos", "buffer"});
      LeafSpineSpec s;
      s.leaves = read_count(reader, "leaves", s.leaves, kMaxSwitchPorts);
      s.spines = read_count(reader, "spines", s.spines, kMaxSwitchPorts);
      s.hosts_per_leaf = read_count(reader, "hosts_per_leaf", s.hosts_per_leaf, kMaxSwitchPorts);
      s.links_per_spine = read_count(reader, "links_per_spine", 1, kMaxSwitchPorts);
      s.host_rate_bps = read_rate(reader, "host_rate").value_or(s.host_rate_bps);
      s.uplink_rate_bps = read_rate(reader, "uplink_rate").value_or(s.uplink_rate_bps);
      s.delay_ns = read_delay(reader, "delay", kDefaultDelayNs);
      spec.topology = generated(leaf_spine(s, at));
      break;
    }
    case TopologyKind::fat_tree: {
      reader.allow_only({"kind", "k", "pods", "tors_per_pod", "aggs_per_pod", "hosts_per_tor",
                         "cores_per_agg", "host_rate", "fabric_rate", "delay", "routing",
                         "ecmp_seed", "lft", "fairness", "switch_qos", "buffer"});
      FatTreeSpec s;
      if (reader.has("k")) {
        for (const std::string_view key :
             {"pods", "tors_per_pod", "aggs_per_pod", "hosts_per_tor", "cores_per_agg"}) {
          if (reader.has(key)) {
            reader.fail_at(key, fmt::format("{} comes from k in a k-ary fat tree: give k or the "
                                            "five counts",
                                            key));
          }
        }
        const auto k = *reader.integer("k", 2, 2 * kMaxSwitchPorts);
        if (k % 2 != 0) reader.fail_at("k", fmt::format("a k-ary fat tree has an even k, got {}", k));
        s = FatTreeSpec::k_ary(static_cast<uint32_t>(k));
      } else {
        s.pods = read_count(reader, "pods", s.pods, kMaxSwitchPorts);
        s.tors_per_pod = read_count(reader, "tors_per_pod", s.tors_per_pod, kMaxSwitchPorts);
        s.aggs_per_pod = read_count(reader, "aggs_per_pod", s.aggs_per_pod, kMaxSwitchPorts);
        s.hosts_per_tor = read_count(reader, "hosts_per_tor", s.hosts_per_tor, kMaxSwitchPorts);
        s.cores_per_agg = read_count(reader, "cores_per_agg", s.cores_per_agg, kMaxSwitchPorts);
      }
      s.host_rate_bps = read_rate(reader, "host_rate").value_or(s.host_rate_bps);
      s.fabric_rate_bps = read_rate(reader, "fabric_rate").value_or(s.fabric_rate_bps);
      s.delay_ns = read_delay(reader, "delay", kDefaultDelayNs);
      spec.topology = generated(fat_tree(s, at));
      break;
    }
    case TopologyKind::explicit_graph:
      reader.allow_only({"kind", "switch", "host", "link", "rate", "delay", "routing", "ecmp_seed",
                         "lft", "fairness", "switch_qos", "buffer"});
      spec.topology = read_explicit(reader);
      break;
    case TopologyKind::ibnetdiscover: {
      reader.allow_only({"kind", "file", "rate", "delay", "routing", "ecmp_seed", "lft",
                         "fairness", "switch_qos", "buffer"});
      const std::string file = reader.required_string("file");
      std::filesystem::path path(file);
      if (path.is_relative() && !suite_dir.empty()) path = std::filesystem::path(suite_dir) / path;
      spec.file = path.string();
      if (!reader.has("rate")) {
        reader.fail_missing("rate", "the rate of links whose lines give no speed (# 4xEDR)");
      }
      const double rate = *read_rate(reader, "rate");
      const int64_t delay = read_delay(reader, "delay", kDefaultDelayNs);
      auto topology = load_ibnetdiscover(spec.file, rate, delay, reader.key_path("file"),
                                         reader.value_loc("file"));
      if (!topology) fail_error(std::move(topology).error());
      spec.topology = std::move(*topology);
      break;
    }
  }
  static constexpr std::pair<std::string_view, RoutingKind> kRouting[] = {
      {"shortest", RoutingKind::shortest}, {"single", RoutingKind::single}, {"lft", RoutingKind::lft}};
  spec.routing.kind = read_choice(reader, "routing", kRouting, RoutingKind::shortest);
  spec.routing.where = reader.has("routing") ? reader.key_path("routing") : section.path;
  spec.routing.loc = reader.has("routing") ? reader.value_loc("routing") : reader.loc();
  if (auto seed = reader.integer("ecmp_seed", 0, INT64_MAX)) {
    if (spec.routing.kind != RoutingKind::shortest) {
      reader.fail_at("ecmp_seed", "ecmp_seed applies to routing = \"shortest\" (ECMP)");
    }
    spec.routing.ecmp_seed = static_cast<uint64_t>(*seed);
  }
  if (spec.routing.kind == RoutingKind::lft) {
    spec.routing.lfts = read_lfts(reader, spec.topology);
  } else if (reader.has("lft")) {
    reader.fail_at("lft", "LFTs are used with routing = \"lft\"");
  }
  static constexpr std::pair<std::string_view, Fairness> kFairness[] = {
      {"per-ingress", Fairness::per_ingress}, {"per-flow", Fairness::per_flow}};
  spec.fairness = read_choice(reader, "fairness", kFairness, Fairness::per_ingress);
  if (reader.has("buffer")) spec.buffer_bytes = read_buffer_bytes(reader);
  return spec;
}

namespace {

std::vector<uint32_t> read_host_list(const TableReader& reader, std::string_view key,
                                     const Topology& topology) {
  const Located value = reader.at(key);
  std::vector<uint32_t> hosts;
  auto add = [&](const Located& item) {
    const auto* text = item.node.as_string();
    if (text == nullptr) item.fail_type("a host name, a range such as \"h0..h15\", or \"*\"");
    auto resolved = resolve_hosts(topology, text->get());
    if (!resolved) item.fail_here(resolved.error().message);
    hosts.insert(hosts.end(), resolved->begin(), resolved->end());
  };
  if (const auto* array = value.node.as_array()) {
    if (array->empty()) value.fail_here(fmt::format("{} is empty", key));
    for (size_t i = 0; i < array->size(); ++i) {
      add(Located{*array->get(i), fmt::format("{}[{}]", value.path, i), value.file});
    }
  } else {
    add(value);
  }
  return hosts;
}

}  // namespace

std::vector<FlowEndpoints> read_flow_endpoints(const TableReader& flow,
                                               const TopologySpec* topology) {
  std::string_view first;
  for (const std::string_view key : kFlowEndpointKeys) {
    if (flow.has(key)) {
      first = key;
      break;
    }
  }
  if (first.empty()) {
    if (topology != nullptr) {
      flow.fail_missing("from", "a flow of a [topology] names its hosts: from and to, or sources "
                                "and destinations");
    }
    return {};
  }
  if (topology == nullptr) {
    flow.fail_at(first, fmt::format("{} names hosts of a [topology]; this scenario has none",
                                    first));
  }
  const Topology& t = topology->topology;
  if (flow.has("host")) {
    flow.fail_at("host", "host is the sending host of a one-switch [fabric]; with a [topology] "
                         "give from/to or sources");
  }
  TrafficTemplate spec;
  if (flow.has("from")) {
    if (flow.has("sources")) flow.fail_at("sources", "give from (one host) or sources, not both");
    if (flow.has("destinations")) {
      flow.fail_at("destinations", "destinations go with sources; from takes one host in to");
    }
    if (!flow.has("to")) flow.fail_missing("to", "the destination host of `from`");
    spec.sources = read_host_list(flow, "from", t);
    if (spec.sources.size() != 1) flow.fail_at("from", "from is one host (sources takes several)");
    spec.destinations = read_host_list(flow, "to", t);
    if (spec.destinations.size() != 1) flow.fail_at("to", "to is one host here");
    spec.pattern = DestinationPattern::fixed;
  } else {
    if (!flow.has("sources")) {
      flow.fail_missing("sources", fmt::format("{} needs sources (or from)", first));
    }
    spec.sources = read_host_list(flow, "sources", t);
    static constexpr std::pair<std::string_view, DestinationPattern> kPatterns[] = {
        {"fixed", DestinationPattern::fixed},
        {"permutation", DestinationPattern::permutation},
        {"all-to-all", DestinationPattern::all_to_all},
        {"incast", DestinationPattern::incast}};
    if (!flow.has("destinations")) {
      flow.fail_missing("destinations", "\"fixed\", \"permutation\", \"all-to-all\" or \"incast\"");
    }
    spec.pattern = read_choice(flow, "destinations", kPatterns, DestinationPattern::fixed);
    const bool needs_to =
        spec.pattern == DestinationPattern::fixed || spec.pattern == DestinationPattern::incast;
    if (needs_to && !flow.has("to")) {
      flow.fail_missing("to", fmt::format("destinations = \"{}\" sends to `to`",
                                          pattern_name(spec.pattern)));
    }
    if (!needs_to && flow.has("to")) {
      flow.fail_at("to", fmt::format("destinations = \"{}\" picks the destinations itself",
                                     pattern_name(spec.pattern)));
    }
    if (needs_to) spec.destinations = read_host_list(flow, "to", t);
    if (auto seed = flow.integer("destination_seed", 0, INT64_MAX)) {
      if (spec.pattern != DestinationPattern::permutation) {
        flow.fail_at("destination_seed", "destination_seed applies to destinations = "
                                         "\"permutation\"");
      }
      spec.seed = static_cast<uint64_t>(*seed);
    }
  }
  auto flows = expand_template(spec);
  if (!flows) {
    const std::string_view key = flow.has("from") ? "to" : "sources";
    flow.fail_at(key, flows.error().message);
  }
  return std::move(*flows);
}

}  // namespace qb::fabric
