// The suite loader: TOML++ document -> Suite. Syntax, types, units and per-key ranges are
// checked here, where the locations are; tree semantics are left to compile_sched_tree().
#include "qb/suite/suite_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>

#include "congestion_loader.hpp"
#include "qb/fabric/topology_reader.hpp"
#include "qb/common/units.hpp"
#include "qos_loader.hpp"
#include "switch_qos_loader.hpp"
#include "toml_depth.hpp"
#include "toml_reader.hpp"

namespace qb::suite {
namespace {

using detail::fail;
using detail::index_path;
using detail::join_path;
using detail::loc_of;
using detail::Located;
using detail::TableReader;
using detail::type_phrase;

constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
constexpr int64_t kMaxI64 = std::numeric_limits<int64_t>::max();
constexpr int64_t kMaxRepetitions = 1000;
constexpr int64_t kMaxFlowCount = 65536;
constexpr int64_t kMaxFlowStartNs = 1'000'000'000'000;  // 1000 s
constexpr int64_t kMaxOutstanding = 4096;
constexpr int64_t kMaxPropagationDelayNs = 1'000'000;  // 1 ms one way
constexpr int64_t kDefaultBinNs = 1'000'000;

template <class T>
struct EnumName {
  std::string_view name;
  T value;
};

template <class T, size_t N>
std::optional<T> read_enum(const TableReader& reader, std::string_view key,
                           const EnumName<T> (&names)[N]) {
  auto text = reader.string(key);
  if (!text) return std::nullopt;
  std::string choices;
  for (const auto& entry : names) {
    if (entry.name == *text) return entry.value;
    choices += fmt::format("{}\"{}\"", choices.empty() ? "" : ", ", entry.name);
  }
  reader.fail_at(key, fmt::format("unknown {} '{}' (use {})", key, *text, choices));
}

bool loc_before(const SourceLoc& a, const SourceLoc& b) noexcept {
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

// ---- [suite] and the per-scenario run settings -------------------------------------------

struct RunSettings {
  uint64_t seed = 1;
  uint32_t repetitions = 1;
  int64_t warmup_ns = 10'000'000;
  int64_t duration_ns = 100'000'000;
  std::optional<int64_t> bin_ns;  // default: min(1 ms, duration)
  std::string bin_where;          // where bin was written, for the bin <= duration check
  SourceLoc bin_loc;
  std::string repetitions_where;  // where repetitions was written (empty: the default)
  SourceLoc repetitions_loc;
};

// Reads seed/repetitions/warmup/duration/bin from [suite] or a [[scenario]] entry, over `s`.
void read_run_settings(const TableReader& reader, RunSettings& s) {
  if (auto seed = reader.integer("seed", 0, kMaxI64)) s.seed = static_cast<uint64_t>(*seed);
  if (auto reps = reader.integer("repetitions", 1, kMaxRepetitions)) {
    s.repetitions = static_cast<uint32_t>(*reps);
    s.repetitions_where = reader.key_path("repetitions");
    s.repetitions_loc = reader.value_loc("repetitions");
  }
  if (auto warmup = reader.duration_ns("warmup", true)) s.warmup_ns = *warmup;
  if (auto duration = reader.duration_ns("duration", false)) s.duration_ns = *duration;
  if (auto bin = reader.duration_ns("bin", false)) {
    s.bin_ns = *bin;
    s.bin_where = reader.key_path("bin");
    s.bin_loc = reader.value_loc("bin");
  }
}

// ---- [port] ------------------------------------------------------------------------------

PortSpec read_port(const Located* section) {
  PortSpec port;
  if (section == nullptr) return port;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"rate", "transport", "mtu", "vlan", "ipv6", "grh", "propagation_delay"});

  if (const auto* node = reader.find("rate")) {
    if (const auto* integer = node->as_integer()) {
      if (integer->get() <= 0) reader.fail_at("rate", "port rate must be greater than zero");
      port.rate_bps = static_cast<double>(integer->get());
    } else if (const auto* automatic = node->as_string();
               automatic != nullptr && automatic->get() == "auto") {
      port.rate_auto = true;  // the driver's port speed (resolve_auto_port_rates)
      port.rate_bps = 0.0;
      port.rate_loc = reader.value_loc("rate");
    } else if (const auto* text = node->as_string()) {
      auto rate = parse_rate(text->get());
      if (!rate) reader.fail_at("rate", rate.error().message);
      if (rate->unit != Rate::Unit::bits_per_second) {
        reader.fail_at("rate", fmt::format("port rate must be a bit rate such as \"100Gbps\", not "
                                           "a packet rate ('{}')",
                                           text->get()));
      }
      port.rate_bps = rate->value;
    } else {
      reader.at("rate").fail_type(
          "a string (a bit rate such as \"100Gbps\", or \"auto\") or an integer (bit/s)");
    }
    if (port.rate_bps > kMaxPortRateBps) {
      reader.fail_at("rate",
                     fmt::format("port rate {} is above {}, the largest rate the device "
                                 "takes (u32 Mbit/s)",
                                 format_rate_bps(port.rate_bps), format_rate_bps(kMaxPortRateBps)));
    }
  }

  using policy::Transport;
  static constexpr EnumName<Transport> kTransports[] = {
      {"rocev2", Transport::rocev2}, {"ib", Transport::ib}, {"eth", Transport::eth}};
  if (auto transport = read_enum(reader, "transport", kTransports))
    port.wire.transport = *transport;
  port.transport_loc = reader.value_loc("transport");
  const Transport transport = port.wire.transport;
  const auto name = policy::transport_name(transport);

  if (auto mtu = reader.integer("mtu", 0, kMaxI64)) {
    if (transport == Transport::eth) {
      if (*mtu < 68 || *mtu > 9216) {
        reader.fail_at("mtu", fmt::format("eth mtu must be in 68..9216, got {}", *mtu));
      }
    } else if (*mtu != 256 && *mtu != 512 && *mtu != 1024 && *mtu != 2048 && *mtu != 4096) {
      reader.fail_at("mtu", fmt::format("{} mtu must be one of 256, 512, 1024, 2048, 4096, got {}",
                                        name, *mtu));
    }
    port.wire.mtu_bytes = static_cast<uint32_t>(*mtu);
  } else if (transport == Transport::eth) {
    port.wire.mtu_bytes = 1500;  // the Ethernet default; RDMA keeps the 4096 path MTU
  }

  // Flags that do not apply to the transport are errors when set, so a typo'd transport
  // cannot silently drop a header from the wire model.
  if (auto vlan = reader.boolean("vlan")) {
    if (*vlan && transport == Transport::ib) {
      reader.fail_at("vlan", "vlan applies to eth and rocev2 only, not ib");
    }
    port.wire.vlan = *vlan;
  }
  if (auto ipv6 = reader.boolean("ipv6")) {
    if (*ipv6 && transport != Transport::rocev2) {
      reader.fail_at("ipv6", fmt::format("ipv6 applies to rocev2 only, not {}", name));
    }
    port.wire.ipv6 = *ipv6;
  }
  if (auto grh = reader.boolean("grh")) {
    if (*grh && transport != Transport::ib) {
      reader.fail_at("grh", fmt::format("grh applies to ib only, not {}", name));
    }
    port.wire.ib_grh = *grh;
  }
  if (auto delay = reader.duration_ns("propagation_delay", 0, kMaxPropagationDelayNs,
                                      "200 km of fibre; a longer link is no single hop")) {
    port.propagation_delay_ns = *delay;
  }
  return port;
}

// ---- [[sched.node]] / [[sched.leaf]] -----------------------------------------------------

policy::SchedElementSpec read_sched_element(const Located& entry, bool is_leaf) {
  const TableReader reader(entry.table(), entry.path, entry.file);
  reader.allow_only({"name", "parent", "bw_share", "max_avg_bw"});
  policy::SchedElementSpec spec;
  spec.is_leaf = is_leaf;
  spec.where = entry.path;
  spec.loc = reader.loc();
  spec.name = reader.required_string("name");
  if (auto parent = reader.string("parent")) {
    if (parent->empty()) {
      reader.fail_at("parent", "parent must not be empty (leave the key out for the root)");
    }
    spec.parent = std::move(*parent);
    spec.parent_loc = reader.value_loc("parent");
  }
  if (auto share = reader.integer("bw_share", 0, kMaxU32)) {
    spec.bw_share = static_cast<uint32_t>(*share);
    spec.has_bw_share = true;
    spec.bw_share_loc = reader.value_loc("bw_share");
  }
  if (const auto* node = reader.find("max_avg_bw")) {
    if (const auto* integer = node->as_integer()) {
      // A bare number is Mbit/s, as mlx5dv_sched_attr takes it; 0 means unlimited.
      if (integer->get() < 0 || integer->get() > kMaxU32) {
        reader.fail_at("max_avg_bw", fmt::format("max_avg_bw in Mbit/s must be in 0..{} (0 = "
                                                 "unlimited), got {}",
                                                 kMaxU32, integer->get()));
      }
      spec.max_avg_bw_bps = static_cast<double>(integer->get()) * 1e6;
    } else if (const auto* text = node->as_string()) {
      // "0Mbps" is 0 = unlimited, as the integer 0 is.
      auto rate = parse_rate(text->get(), /*allow_zero=*/true);
      if (!rate) reader.fail_at("max_avg_bw", rate.error().message);
      if (rate->unit != Rate::Unit::bits_per_second) {
        reader.fail_at("max_avg_bw", fmt::format("max_avg_bw must be a bit rate such as "
                                                 "\"4096Mbps\", not a packet rate ('{}')",
                                                 text->get()));
      }
      spec.max_avg_bw_bps = rate->value;
    } else {
      reader.at("max_avg_bw")
          .fail_type("a string (a bit rate such as \"4096Mbps\") or an integer (Mbit/s)");
    }
    spec.has_max_avg_bw = true;
    spec.max_avg_bw_loc = reader.value_loc("max_avg_bw");
  }
  return spec;
}

std::vector<policy::SchedElementSpec> read_sched(const Located* section) {
  std::vector<policy::SchedElementSpec> specs;
  if (section == nullptr) return specs;
  const TableReader reader(section->table(), section->path, section->file);
  reader.allow_only({"node", "leaf"});
  for (const std::string_view kind : {"node", "leaf"}) {
    const auto* node = reader.find(kind);
    if (node == nullptr) continue;
    const auto* array = node->as_array();
    if (array == nullptr) {
      reader.at(kind).fail_type(fmt::format("an array of tables ([[{}]])", reader.key_path(kind)));
    }
    for (size_t i = 0; i < array->size(); ++i) {
      const Located entry{*array->get(i), index_path(reader.path(), kind, i), reader.file()};
      specs.push_back(read_sched_element(entry, kind == "leaf"));
    }
  }
  // Spec order is document order: nodes and leaves may be interleaved in the file.
  std::stable_sort(specs.begin(), specs.end(),
                   [](const auto& a, const auto& b) { return loc_before(a.loc, b.loc); });
  return specs;
}

// ---- [[flow]] ----------------------------------------------------------------------------

// Why `bytes` cannot be a message/frame size on this port, or empty when it can.
std::string size_problem(uint64_t bytes, const policy::WireModel& wire) {
  const uint64_t smallest = wire.min_message_bytes();
  const uint64_t largest = wire.max_message_bytes();
  if (wire.transport == policy::Transport::eth) {
    if (bytes < smallest) {
      return fmt::format("size {} B is below the {}-byte minimum Ethernet frame", bytes, smallest);
    }
    if (bytes > largest) {
      return fmt::format("size {} B is larger than the largest frame for eth mtu {}{} ({} B)",
                         bytes, wire.mtu_bytes, wire.vlan ? " with vlan" : "", largest);
    }
  } else if (bytes < smallest || bytes > largest) {
    return fmt::format("size {} B is outside the {} message range {}..{} B", bytes,
                       policy::transport_name(wire.transport), smallest, largest);
  }
  if (bytes > static_cast<uint64_t>(kMaxU32)) {
    return fmt::format("size {} B is too large", bytes);  // SizeSpec holds 32-bit sizes
  }
  return {};
}

// One size in bytes (integer or size string), within what the port can carry.
uint32_t read_size_value(const Located& value, const policy::WireModel& wire) {
  uint64_t bytes = 0;
  if (const auto* integer = value.node.as_integer()) {
    if (integer->get() <= 0) {
      value.fail_here(fmt::format("size must be at least 1 byte, got {}", integer->get()));
    }
    bytes = static_cast<uint64_t>(integer->get());
  } else if (const auto* text = value.node.as_string()) {
    auto parsed = parse_size_bytes(text->get());
    if (!parsed) value.fail_here(parsed.error().message);
    bytes = *parsed;
  } else {
    value.fail_type("an integer (bytes) or a size string such as \"4KiB\"");
  }
  if (auto problem = size_problem(bytes, wire); !problem.empty()) value.fail_here(problem);
  return static_cast<uint32_t>(bytes);
}

// `[[size, weight], ...]` for imix and weighted tables.
std::vector<gen::WeightedSize> read_size_table(const Located& value,
                                               const policy::WireModel& wire) {
  const auto* array = value.node.as_array();
  if (array == nullptr) value.fail_type("an array of [size, weight] pairs");
  if (array->empty()) value.fail_here("the size table is empty (give at least one [size, weight])");
  std::vector<gen::WeightedSize> table;
  for (size_t i = 0; i < array->size(); ++i) {
    const Located pair_value{*array->get(i), fmt::format("{}[{}]", value.path, i), value.file};
    const auto* pair = pair_value.node.as_array();
    if (pair == nullptr) pair_value.fail_type("a [size, weight] pair");
    if (pair->size() != 2) {
      pair_value.fail_here(
          fmt::format("expected a [size, weight] pair, got {} elements", pair->size()));
    }
    gen::WeightedSize entry;
    entry.size_bytes =
        read_size_value(Located{*pair->get(0), pair_value.path + "[0]", value.file}, wire);
    const Located weight_value{*pair->get(1), pair_value.path + "[1]", value.file};
    const auto* weight = weight_value.node.as_integer();
    if (weight == nullptr) weight_value.fail_type("an integer weight");
    if (weight->get() < 0 || weight->get() > kMaxU32) {
      weight_value.fail_here(
          fmt::format("weight must be in 0..{}, got {}", kMaxU32, weight->get()));
    }
    entry.weight = static_cast<uint32_t>(weight->get());
    table.push_back(entry);
  }
  return table;
}

gen::SizeSpec read_size(const Located& value, const policy::WireModel& wire) {
  gen::SizeSpec size;
  if (const auto* text = value.node.as_string(); text != nullptr && text->get() == "imix") {
    size = gen::SizeSpec::classic_imix();
    // The classic table must still fit the port (e.g. eth with a small MTU).
    for (const auto& entry : size.table) {
      if (auto problem = size_problem(entry.size_bytes, wire); !problem.empty()) {
        value.fail_here(fmt::format("imix: {}", problem));
      }
    }
  } else if (const auto* table = value.node.as_table()) {
    const TableReader reader(*table, value.path, value.file);
    reader.allow_only({"uniform", "imix", "weighted"});
    if (table->size() != 1) {
      value.fail_here("a size table takes exactly one of uniform, imix, weighted");
    }
    if (reader.has("uniform")) {
      const Located range_value = reader.at("uniform");
      const auto* range = range_value.node.as_array();
      if (range == nullptr || range->size() != 2) {
        range_value.fail_here("uniform takes [min, max] (bytes, inclusive)");
      }
      const uint32_t min_bytes =
          read_size_value(Located{*range->get(0), range_value.path + "[0]", value.file}, wire);
      const uint32_t max_bytes =
          read_size_value(Located{*range->get(1), range_value.path + "[1]", value.file}, wire);
      size = gen::SizeSpec::uniform(min_bytes, max_bytes);
    } else if (reader.has("imix")) {
      size = gen::SizeSpec::classic_imix();
      size.table = read_size_table(reader.at("imix"), wire);
    } else {
      size = gen::SizeSpec::weighted(read_size_table(reader.at("weighted"), wire));
    }
  } else {
    size = gen::SizeSpec::fixed(read_size_value(value, wire));
  }
  // Structure (empty tables, all-zero weights, min > max) is the generator's rule.
  if (auto status = size.validate(); !status) value.fail_here(status.error().message);
  return size;
}

gen::ArrivalSpec read_arrival(const TableReader& reader) {
  using Kind = gen::ArrivalSpec::Kind;
  gen::ArrivalSpec arrival;
  const auto rate_text = reader.string("rate");
  if (!rate_text) {
    reader.fail_missing("rate",
                        "\"saturate\", a bit rate such as \"10Gbps\" or a packet rate "
                        "such as \"2Mpps\"");
  }
  static constexpr EnumName<Kind> kPatterns[] = {
      {"cbr", Kind::cbr}, {"poisson", Kind::poisson}, {"onoff", Kind::onoff}};
  const auto pattern = read_enum(reader, "pattern", kPatterns);

  if (*rate_text == "saturate") {
    arrival.kind = Kind::saturate;
    if (pattern) {
      reader.fail_at("pattern",
                     "pattern applies to a numeric rate; rate = \"saturate\" keeps "
                     "`outstanding` messages in flight instead");
    }
    if (auto outstanding = reader.integer("outstanding", 1, kMaxOutstanding)) {
      arrival.outstanding = static_cast<uint32_t>(*outstanding);
    }
  } else {
    auto rate = parse_rate(*rate_text);
    if (!rate) {
      reader.fail_at("rate", fmt::format("{} (or \"saturate\")", rate.error().message));
    }
    if (rate->unit == Rate::Unit::bits_per_second) {
      arrival.rate_bps = rate->value;
    } else {
      arrival.rate_pps = rate->value;
    }
    arrival.kind = pattern.value_or(Kind::cbr);
    if (reader.has("outstanding")) {
      reader.fail_at("outstanding", "outstanding applies only to rate = \"saturate\"");
    }
  }

  if (arrival.kind == Kind::onoff) {
    if (!reader.has("on")) reader.fail_missing("on", "pattern \"onoff\" needs on and off");
    if (!reader.has("off")) reader.fail_missing("off", "pattern \"onoff\" needs on and off");
    arrival.on_ns = *reader.duration_ns("on", false);
    arrival.off_ns = *reader.duration_ns("off", true);  // "0s" is cbr, but not wrong
    if (arrival.on_ns > kMaxI64 - arrival.off_ns) {
      reader.fail_at("off", "on + off is too long");
    }
  } else {
    for (const std::string_view key : {"on", "off"}) {
      if (reader.has(key)) {
        reader.fail_at(key, fmt::format("{} applies only to pattern = \"onoff\"", key));
      }
    }
  }
  // The generator's own rules, as a backstop for the checks above.
  if (auto status = arrival.validate(); !status) reader.fail_at("rate", status.error().message);
  return arrival;
}

FlowSpec read_flow(const Located& entry, const PortSpec& port,
                   const fabric::TopologySpec* topology) {
  const TableReader reader(entry.table(), entry.path, entry.file);
  reader.allow_only({"name",        "count",       "leaf",
                     "op",          "size",        "rate",
                     "pattern",     "on",          "off",
                     "outstanding", "tx_tclass",   "rx_tclass",
                     "dscp",        "sl",          "pcp",
                     "host",        "service_id",  "pkey",
                     "qos_class",   "source_guid", "destination_guid",
                     "start",       "start_step",  "from",
                     "to",          "sources",     "destinations",
                     "destination_seed"});
  FlowSpec flow;
  flow.where = entry.path;
  flow.loc = reader.loc();
  flow.name = reader.required_string("name");
  if (flow.name.find('#') != std::string::npos) {
    reader.fail_at("name", fmt::format("flow name '{}' must not contain '#' (instances are "
                                       "reported as name#i)",
                                       flow.name));
  }
  if (auto count = reader.integer("count", 1, kMaxFlowCount)) {
    flow.count = static_cast<uint32_t>(*count);
    flow.count_loc = reader.value_loc("count");
  }
  if (auto leaf = reader.string("leaf")) {
    if (leaf->empty()) reader.fail_at("leaf", "leaf must not be empty (leave the key out)");
    flow.leaf = std::move(*leaf);
    flow.leaf_loc = reader.value_loc("leaf");
  }
  using policy::RdmaOp;
  static constexpr EnumName<RdmaOp> kOps[] = {
      {"write", RdmaOp::write}, {"send", RdmaOp::send}, {"read", RdmaOp::read}};
  if (auto op = read_enum(reader, "op", kOps)) flow.op = *op;
  if (!reader.has("size")) {
    reader.fail_missing("size", "bytes, a size string such as \"4KiB\", \"imix\" or a table");
  }
  flow.size = read_size(reader.at("size"), port.wire);
  flow.arrival = read_arrival(reader);
  if (auto start = reader.duration_ns("start", true)) flow.start_ns = *start;
  if (reader.has("start") || reader.has("start_step")) {
    flow.start_loc = reader.value_loc(reader.has("start") ? "start" : "start_step");
  }
  if (auto step = reader.duration_ns("start_step", true)) flow.start_step_ns = *step;
  // The last instance starts at start + (count - 1) * start_step (no overflow: each bounded).
  const auto steps = static_cast<int64_t>(flow.count) - 1;
  if (flow.start_ns > kMaxFlowStartNs || flow.start_step_ns > kMaxFlowStartNs ||
      (steps > 0 && flow.start_step_ns > (kMaxFlowStartNs - flow.start_ns) / steps)) {
    reader.fail_at(reader.has("start_step") ? "start_step" : "start",
                   "a flow must start within 1000 s");
  }
  detail::read_flow_qos(reader, port, flow);
  flow.endpoints = fabric::read_flow_endpoints(reader, topology);
  return flow;
}

std::vector<FlowSpec> read_flows(const Located* section, const PortSpec& port,
                                 const fabric::TopologySpec* topology) {
  std::vector<FlowSpec> flows;
  if (section == nullptr) return flows;
  const auto* array = section->node.as_array();
  if (array == nullptr) section->fail_type("an array of tables ([[flow]])");
  // Name -> index in flows: one lookup per flow (100k flows validate in well under a second).
  std::unordered_map<std::string, size_t> index_of_name;
  index_of_name.reserve(array->size());
  flows.reserve(array->size());
  for (size_t i = 0; i < array->size(); ++i) {
    const Located entry{*array->get(i), fmt::format("{}[{}]", section->path, i), section->file};
    FlowSpec flow = read_flow(entry, port, topology);
    const auto [where, inserted] = index_of_name.emplace(flow.name, flows.size());
    if (!inserted) {
      const FlowSpec& earlier = flows[where->second];
      const TableReader reader(entry.table(), entry.path, entry.file);
      reader.fail_at("name", fmt::format("duplicate flow name '{}' (first used by {} at line {})",
                                         flow.name, earlier.where, earlier.loc.line));
    }
    flows.push_back(std::move(flow));
  }
  return flows;
}

// ---- [gates] -----------------------------------------------------------------------------

LatencyGate read_latency_gate(const Located& entry) {
  const TableReader reader(entry.table(), entry.path, entry.file);
  reader.allow_only({"flow", "basis", "p50", "p90", "p99", "p999", "max"});
  LatencyGate gate;
  gate.where = entry.path;
  gate.loc = reader.loc();
  gate.flow = reader.required_string("flow");
  gate.flow_loc = reader.value_loc("flow");
  static constexpr EnumName<LatencyGate::Basis> kBases[] = {
      {"scheduled", LatencyGate::Basis::scheduled}, {"sent", LatencyGate::Basis::sent}};
  if (auto basis = read_enum(reader, "basis", kBases)) gate.basis = *basis;
  gate.p50_ns = reader.duration_ns("p50", false);
  gate.p90_ns = reader.duration_ns("p90", false);
  gate.p99_ns = reader.duration_ns("p99", false);
  gate.p999_ns = reader.duration_ns("p999", false);
  gate.max_ns = reader.duration_ns("max", false);
  if (!gate.p50_ns && !gate.p90_ns && !gate.p99_ns && !gate.p999_ns && !gate.max_ns) {
    detail::fail("a latency gate needs at least one of p50, p90, p99, p999, max", entry.path,
                 reader.loc());
  }
  return gate;
}

// A gate's limit on a relative error (a share error, a cap overshoot, a tolerance): a percentage,
// as a person writes one and as the console, the report and `compare --threshold` show it
// ("1%", "0.5 %"). A bare number is the fraction the key held before (0.01 = 1 %): it keeps
// that meaning, so existing suites judge alike, and gets a warning at its value naming the "%"
// spelling. Returns the fraction (the results keep fractions).
std::optional<double> read_percent_gate(const TableReader& reader, std::string_view key,
                                        double max_fraction, std::vector<Warning>& warnings) {
  const toml::node* node = reader.find(key);
  if (node == nullptr) return std::nullopt;
  const std::string limit =
      std::isfinite(max_fraction) ? fmt::format(" at most {:g}%", max_fraction * 100.0) : "";
  if (const auto* text = node->as_string()) {
    std::string_view spelled = text->get();
    const auto trim = [](std::string_view v) {
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
      return v;
    };
    std::string_view number = trim(spelled);
    const bool percent = !number.empty() && number.back() == '%';
    if (percent) number = trim(number.substr(0, number.size() - 1));
    double value = 0.0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (!percent || number.empty() || ec != std::errc() || end != number.data() + number.size() ||
        !std::isfinite(value)) {
      reader.fail_at(
          key,
          fmt::format("expected a percentage such as \"1%\" or \"0.5%\", got \"{}\"", spelled));
    }
    if (value < 0.0 || value / 100.0 > max_fraction) {
      reader.fail_at(key, fmt::format("{} must be at least 0%{}, got \"{}\"", key,
                                      limit.empty() ? "" : " and" + limit, spelled));
    }
    return value / 100.0;
  }
  const std::optional<double> fraction = reader.number(key, 0.0, max_fraction);
  if (fraction) {
    detail::add_warning(
        warnings,
        Warning{fmt::format("{} = {:g} is read as a fraction ({:g}%); write the percentage "
                            "instead: {} = \"{:g}%\" (thresholds are percentages everywhere a "
                            "person writes or reads one)",
                            key, *fraction, *fraction * 100.0, key, *fraction * 100.0),
                reader.key_path(key), reader.value_loc(key)});
  }
  return fraction;
}

// "off" at a key of kDefaultJudgements: that judgement is not made (the verdict says so).
// Anywhere else "off" is an error that names the keys it applies to.
bool read_off(const TableReader& reader, std::string_view key, GateSpec& gates) {
  const toml::node* node = reader.find(key);
  if (node == nullptr) return false;
  const auto* text = node->as_string();
  if (text == nullptr || text->get() != "off") return false;
  for (const char* judgement : kDefaultJudgements) {
    if (key == judgement) {
      gates.off.emplace_back(key);
      return true;
    }
  }
  reader.fail_at(key, fmt::format("{} has no default judgement to turn off: leave it out (\"off\" "
                                  "applies to max_share_error, max_group_share_error, min_jain, "
                                  "max_cap_overshoot and convergence_time)",
                                  key));
}

// A limit on a relative error that judges something: 0 % passes nothing measured.
std::optional<double> read_tolerance(const TableReader& reader, std::string_view key,
                                     double max_fraction, std::vector<Warning>& warnings) {
  const std::optional<double> fraction = read_percent_gate(reader, key, max_fraction, warnings);
  if (fraction && !(*fraction > 0.0)) {
    reader.fail_at(key, fmt::format("{} must be above 0% (no measurement is exact; \"off\" turns "
                                    "the judgement off)",
                                    key));
  }
  return fraction;
}

GateSpec read_gates(const Located* section, std::vector<Warning>& warnings) {
  GateSpec gates;
  if (section == nullptr) return gates;
  const TableReader reader(section->table(), section->path, section->file);
  gates.where = section->path;
  reader.allow_only({"max_share_error", "max_group_share_error", "min_jain", "max_cap_overshoot",
                     "convergence_time", "convergence_tolerance", "max_queue_depth", "latency"});
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Each defaulted judgement: "off", the suite's limit, or (absent) the default.
  auto judgement = [&](std::string_view key, auto& limit, auto read) {
    if (read_off(reader, key, gates)) {
      limit.reset();
    } else if (reader.has(key)) {
      limit = read();
      gates.from_suite.emplace_back(key);
    }
  };
  judgement("max_share_error", gates.max_share_error, [&] {
    gates.max_share_error_loc = reader.value_loc("max_share_error");
    return read_tolerance(reader, "max_share_error", kInf, warnings);
  });
  judgement("max_group_share_error", gates.max_group_share_error,
            [&] { return read_tolerance(reader, "max_group_share_error", kInf, warnings); });
  // A Jain index is an index (0..1], not a percentage: it stays a number.
  judgement("min_jain", gates.min_jain, [&] {
    const std::optional<double> jain = reader.number("min_jain", 0.0, 1.0);
    if (jain && !(*jain > 0.0)) {
      reader.fail_at("min_jain",
                     "min_jain must be above 0 and at most 1 (\"off\" turns the "
                     "judgement off)");
    }
    return jain;
  });
  judgement("max_cap_overshoot", gates.max_cap_overshoot,
            [&] { return read_tolerance(reader, "max_cap_overshoot", kInf, warnings); });
  judgement("convergence_time", gates.convergence_time_ns, [&] {
    gates.convergence_time_loc = reader.value_loc("convergence_time");
    return reader.duration_ns("convergence_time", true);
  });
  if (auto tolerance = read_tolerance(reader, "convergence_tolerance", 1.0, warnings)) {
    gates.convergence_tolerance = *tolerance;
  }
  if (const auto* node = reader.find("max_queue_depth")) {
    gates.max_queue_depth_loc = reader.value_loc("max_queue_depth");
    if (const auto* integer = node->as_integer()) {
      if (integer->get() < 0) reader.fail_at("max_queue_depth", "max_queue_depth must be >= 0");
      gates.max_queue_depth_bytes = integer->get();
    } else if (const auto* text = node->as_string()) {
      (void)read_off(reader, "max_queue_depth", gates);  // fails: no default to turn off
      auto bytes = parse_size_bytes(text->get());
      if (!bytes) reader.fail_at("max_queue_depth", bytes.error().message);
      gates.max_queue_depth_bytes = static_cast<int64_t>(std::min<uint64_t>(*bytes, INT64_MAX));
    } else {
      reader.at("max_queue_depth").fail_type("a size such as \"200KB\" or an integer of bytes");
    }
  }
  if (const auto* node = reader.find("latency")) {
    const auto* array = node->as_array();
    if (array == nullptr) reader.at("latency").fail_type("an array of tables ([[gates.latency]])");
    for (size_t i = 0; i < array->size(); ++i) {
      gates.latency.push_back(read_latency_gate(
          Located{*array->get(i), index_path(reader.path(), "latency", i), reader.file()}));
    }
  }
  return gates;
}

// ---- scenarios ---------------------------------------------------------------------------

// The QoS/traffic sections a scenario uses: its own, or the top level's.
struct Sections {
  std::optional<Located> port, sched, flow, gates, traffic_class, eth, ib, fabric, dpa, topology;
};

std::optional<Located> section_of(const TableReader& reader, std::string_view key) {
  if (!reader.has(key)) return std::nullopt;
  return reader.at(key);
}

const Located* ptr(const std::optional<Located>& section) {
  return section ? &*section : nullptr;
}

Scenario build_scenario(std::string name, const Sections& sections, const RunSettings& settings,
                        std::string where, SourceLoc loc, const std::string& file,
                        std::vector<Warning>& warnings, bool cross_checks = true) {
  Scenario scenario;
  scenario.name = std::move(name);
  scenario.where = std::move(where);
  scenario.loc = std::move(loc);
  scenario.seed = settings.seed;
  scenario.repetitions = settings.repetitions;
  scenario.repetitions_where = settings.repetitions_where;
  scenario.repetitions_loc = settings.repetitions_loc;
  scenario.warmup_ns = settings.warmup_ns;
  scenario.duration_ns = settings.duration_ns;
  if (settings.bin_ns) {
    if (*settings.bin_ns > settings.duration_ns) {
      fail(fmt::format("bin ({}) must not be longer than duration ({})",
                       format_duration_ns(static_cast<double>(*settings.bin_ns)),
                       format_duration_ns(static_cast<double>(settings.duration_ns))),
           settings.bin_where, settings.bin_loc);
    }
    scenario.bin_ns = *settings.bin_ns;
  } else {
    scenario.bin_ns = std::min(kDefaultBinNs, settings.duration_ns);
  }
  scenario.port = read_port(ptr(sections.port));
  scenario.sched = read_sched(ptr(sections.sched));
  if (sections.topology) {
    scenario.topology = fabric::read_topology(
        *sections.topology, std::filesystem::path(file).parent_path().string());
  }
  scenario.flows = read_flows(ptr(sections.flow), scenario.port,
                              scenario.topology ? &*scenario.topology : nullptr);
  scenario.gates = read_gates(ptr(sections.gates), warnings);
  scenario.traffic_class = detail::read_traffic_class(ptr(sections.traffic_class));
  scenario.eth = detail::read_eth(ptr(sections.eth));
  scenario.ib = detail::read_ib(ptr(sections.ib), file, warnings);
  if (sections.topology) detail::read_switch_qos(*sections.topology, scenario);
  scenario.fabric = detail::read_fabric(ptr(sections.fabric), scenario.topology.has_value());
  if (scenario.topology && sections.fabric && sections.fabric->table().contains("hosts")) {
    const TableReader reader(sections.fabric->table(), sections.fabric->path, file);
    reader.fail_at("hosts", "hosts and switch describe the one-switch fabric; a [topology] has "
                            "its own hosts");
  }
  scenario.dpa = detail::read_dpa(ptr(sections.dpa));
  if (cross_checks) {
    detail::check_scenario_qos(scenario);
    detail::check_scenario_congestion(scenario);
  }
  return scenario;
}

std::vector<Scenario> read_scenarios(const TableReader& top, const Sections& top_sections,
                                     const RunSettings& base, const std::string& suite_name,
                                     std::vector<Warning>& warnings) {
  const auto* array = top.find("scenario")->as_array();
  if (array == nullptr) top.at("scenario").fail_type("an array of tables ([[scenario]])");
  if (array->empty())
    top.fail_at("scenario", "give at least one [[scenario]] or leave the key out");

  // The top-level sections are checked as written, even where every scenario replaces them;
  // rules across sections (transport, hosts) only in the scenarios, which may mix them.
  (void)build_scenario(suite_name, top_sections, base, "", loc_of(top.table().source(), top.file()),
                       top.file(), warnings, false);

  std::vector<Scenario> scenarios;
  for (size_t i = 0; i < array->size(); ++i) {
    const Located entry{*array->get(i), fmt::format("scenario[{}]", i), top.file()};
    const TableReader reader(entry.table(), entry.path, entry.file);
    reader.allow_only({"name", "seed", "repetitions", "warmup", "duration", "bin", "port", "sched",
                       "flow", "gates", "traffic_class", "eth", "ib", "fabric", "dpa",
                       "topology"});
    std::string name = reader.required_string("name");
    for (const auto& earlier : scenarios) {
      if (earlier.name == name) {
        reader.fail_at("name", fmt::format("duplicate scenario name '{}' (first used by {} at "
                                           "line {})",
                                           name, earlier.where, earlier.loc.line));
      }
    }
    RunSettings settings = base;
    read_run_settings(reader, settings);
    // A section a scenario sets replaces the top-level one as a whole.
    Sections sections = top_sections;
    for (auto [key, slot] :
         {std::pair{"port", &sections.port}, std::pair{"sched", &sections.sched},
          std::pair{"flow", &sections.flow}, std::pair{"gates", &sections.gates},
          std::pair{"traffic_class", &sections.traffic_class}, std::pair{"eth", &sections.eth},
          std::pair{"ib", &sections.ib}, std::pair{"fabric", &sections.fabric},
          std::pair{"dpa", &sections.dpa}, std::pair{"topology", &sections.topology}}) {
      if (reader.has(key)) slot->emplace(reader.at(key));
    }
    try {
      scenarios.push_back(build_scenario(std::move(name), sections, settings, entry.path,
                                         reader.loc(), top.file(), warnings));
    } catch (detail::ConfigError& error) {
      // An inherited section can fail only against this scenario's port (sizes vs MTU):
      // say which scenario, since the location points at the top-level key.
      if (error.error.where.rfind(entry.path, 0) != 0) {
        error.error.message += fmt::format(" (in scenario '{}')", reader.string("name").value());
      }
      throw;
    }
  }
  return scenarios;
}

std::string fnv1a_hex(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ULL;
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

Suite load(std::string_view text, const std::string& file) {
  Suite suite;
  suite.file = file;
  suite.config_hash = fnv1a_hex(text);

  // Shared: the [driver.<name>] tables the Suite keeps point into it.
  auto document = std::make_shared<toml::table>();
  // Before the parser: it recurses once per key part and nesting level.
  if (auto too_deep = detail::check_toml_depth(text)) {
    fail(std::move(too_deep->message), "", SourceLoc{file, too_deep->line, too_deep->column});
  }
  try {
    *document = toml::parse(text, std::string_view(file));
  } catch (const toml::parse_error& error) {
    fail(std::string(error.description()), "", loc_of(error.source(), file));
  }

  const toml::table& root = *document;
  const TableReader top(root, "", file);
  top.allow_only({"suite", "driver", "port", "sched", "flow", "gates", "traffic_class", "eth", "ib",
                  "fabric", "dpa", "scenario", "topology"});

  suite.name = std::filesystem::path(file).stem().string();
  RunSettings base;
  if (const auto* table = top.subtable("suite")) {
    const TableReader reader(*table, "suite", file);
    reader.allow_only({"name", "description", "seed", "repetitions", "warmup", "duration", "bin"});
    if (reader.has("name")) suite.name = reader.required_string("name");
    suite.description = reader.string("description").value_or("");
    read_run_settings(reader, base);
  }
  if (suite.name.empty()) suite.name = "suite";

  if (const auto* table = top.subtable("driver")) {
    const TableReader reader(*table, "driver", file);
    if (reader.has("name")) suite.driver = reader.required_string("name");
    // Every other key is a driver's table, parsed by that driver (qosbench checks them all
    // against the registry before it runs; drivers/registry.hpp).
    for (auto&& [key, node] : *table) {
      if (key.str() == "name") continue;
      const auto* options = node.as_table();
      if (options == nullptr) {
        reader.at(key.str()).fail_here(
            fmt::format("expected a table of the {} driver's options ([driver.{}]), got {}",
                        key.str(), key.str(), type_phrase(node)));
      }
      suite.driver_tables.push_back(
          config::make_config_table(document, *options, reader.key_path(key.str()), file));
    }
  }

  const Sections sections{
      section_of(top, "port"),  section_of(top, "sched"),         section_of(top, "flow"),
      section_of(top, "gates"), section_of(top, "traffic_class"), section_of(top, "eth"),
      section_of(top, "ib"),    section_of(top, "fabric"),        section_of(top, "dpa"),
      section_of(top, "topology")};
  if (top.has("scenario")) {
    suite.scenarios = read_scenarios(top, sections, base, suite.name, suite.warnings);
  } else {
    suite.scenarios.push_back(build_scenario(suite.name, sections, base, "", SourceLoc{file, 0, 0},
                                             file, suite.warnings));
  }
  return suite;
}

}  // namespace

Result<Suite> load_suite_string(std::string_view toml_text, const std::string& source_name) {
  try {
    return load(toml_text, source_name);
  } catch (detail::ConfigError& error) {
    return std::move(error.error);
  }
}

Result<Suite> load_suite_file(const std::string& path) {
  std::FILE* stream = std::fopen(path.c_str(), "rb");
  if (stream == nullptr) {
    return make_error(Errc::usage,
                      fmt::format("cannot open suite file '{}': {}", path, std::strerror(errno)));
  }
  std::string text;
  char buffer[65536];
  size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, stream)) > 0) text.append(buffer, got);
  const bool failed = std::ferror(stream) != 0;
  const int read_errno = errno;
  std::fclose(stream);
  if (failed) {
    return make_error(Errc::usage, fmt::format("cannot read suite file '{}': {}", path,
                                               std::strerror(read_errno)));
  }
  return load_suite_string(text, path);
}

}  // namespace qb::suite
