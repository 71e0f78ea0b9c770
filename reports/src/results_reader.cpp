#include "qb/reports/results_reader.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gate_kind.hpp"

namespace qb::report {
namespace {

// ordered_json keeps driver_stats in file order, so writer -> reader -> writer is byte-equal.
using Json = nlohmann::ordered_json;

// A bad field: thrown inside the reader only, turned into an Error at its boundary.
struct FieldError {
  std::string path;
  std::string message;
};

std::string type_name(const Json& value) {
  return std::string(value.type_name());
}

std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string index_path(const std::string& path, size_t index) {
  return fmt::format("{}[{}]", path, index);
}

// One JSON value and where it sits in the document.
class Node {
 public:
  Node(const Json& value, std::string path) : value_(value), path_(std::move(path)) {}

  const std::string& path() const noexcept { return path_; }
  const Json& json() const noexcept { return value_; }

  bool has(std::string_view key) const { return value_.is_object() && value_.contains(key); }

  Node operator[](std::string_view key) const {
    if (!value_.is_object())
      throw FieldError{path_, "expected an object, found " + type_name(value_)};
    const auto it = value_.find(key);
    if (it == value_.end()) {
      throw FieldError{child_path(path_, key), "missing field"};
    }
    return Node(*it, child_path(path_, key));
  }

  const Json& array() const {
    if (!value_.is_array())
      throw FieldError{path_, "expected an array, found " + type_name(value_)};
    return value_;
  }

  template <class Fn>
  void each(Fn&& fn) const {
    const Json& items = array();
    for (size_t i = 0; i < items.size(); ++i) fn(Node(items[i], index_path(path_, i)));
  }

  std::string str() const {
    if (!value_.is_string())
      throw FieldError{path_, "expected a string, found " + type_name(value_)};
    return value_.get<std::string>();
  }

  bool boolean() const {
    if (!value_.is_boolean())
      throw FieldError{path_, "expected true or false, found " + type_name(value_)};
    return value_.get<bool>();
  }

  // The writer turns a non-finite figure into null; `null_as` is what that figure was.
  double number(double null_as = std::numeric_limits<double>::quiet_NaN()) const {
    if (value_.is_null()) return null_as;
    if (!value_.is_number())
      throw FieldError{path_, "expected a number, found " + type_name(value_)};
    return value_.get<double>();
  }

  std::optional<double> optional_number() const {
    if (value_.is_null()) return std::nullopt;
    return number();
  }

  template <class Int>
  Int integer() const {
    if (!value_.is_number_integer()) {
      throw FieldError{path_, "expected an integer, found " + type_name(value_)};
    }
    if constexpr (std::is_unsigned_v<Int>) {
      if (!value_.is_number_unsigned()) throw FieldError{path_, "expected a non-negative integer"};
      const auto raw = value_.get<uint64_t>();
      if (raw > std::numeric_limits<Int>::max()) throw FieldError{path_, "integer out of range"};
      return static_cast<Int>(raw);
    } else {
      if (value_.is_number_unsigned() &&
          value_.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<Int>::max())) {
        throw FieldError{path_, "integer out of range"};
      }
      return static_cast<Int>(value_.get<int64_t>());
    }
  }

  std::vector<double> numbers() const {
    std::vector<double> out;
    each([&](const Node& item) { out.push_back(item.number()); });
    return out;
  }

  std::vector<int64_t> integers() const {
    std::vector<int64_t> out;
    each([&](const Node& item) { out.push_back(item.integer<int64_t>()); });
    return out;
  }

 private:
  const Json& value_;
  std::string path_;
};

LatencySummary read_latency(const Node& node) {
  LatencySummary latency;
  latency.p50_ns = node["p50"].integer<int64_t>();
  latency.p90_ns = node["p90"].integer<int64_t>();
  latency.p99_ns = node["p99"].integer<int64_t>();
  latency.p999_ns = node["p999"].integer<int64_t>();
  latency.max_ns = node["max"].integer<int64_t>();
  latency.min_ns = node["min"].integer<int64_t>();
  latency.mean_ns = node["mean"].number();
  latency.count = node["count"].integer<uint64_t>();
  node["spectrum"].each([&](const Node& pair) {
    if (pair.array().size() != 2) throw FieldError{pair.path(), "expected [percentile, ns]"};
    latency.spectrum.emplace_back(
        Node(pair.json()[0], index_path(pair.path(), 0)).number(),
        Node(pair.json()[1], index_path(pair.path(), 1)).integer<int64_t>());
  });
  return latency;
}

LatencyReps read_latency_reps(const Node& node) {
  LatencyReps reps;
  reps.p50_ns = node["p50"].integers();
  reps.p90_ns = node["p90"].integers();
  reps.p99_ns = node["p99"].integers();
  reps.p999_ns = node["p999"].integers();
  return reps;
}

FlowResult read_flow(const Node& node) {
  FlowResult flow;
  flow.name = node["name"].str();
  flow.group = node["group"].str();
  flow.leaf = node["leaf"].str();
  flow.offered_bps = node["offered_bps"].optional_number();
  flow.expected_bps = node["expected_bps"].number();
  flow.measured_bps = node["measured_bps"].number();
  flow.measured_payload_bps = node["measured_payload_bps"].number();
  flow.error = node["error"].number();
  flow.measured_bps_reps = node["measured_bps_reps"].numbers();
  flow.messages = node["messages"].integer<uint64_t>();
  flow.packets = node["packets"].integer<uint64_t>();
  flow.payload_bytes = node["payload_bytes"].integer<uint64_t>();
  flow.wire_bytes = node["wire_bytes"].integer<uint64_t>();
  flow.drops = node["drops"].integer<uint64_t>();
  flow.late_posts = node["late_posts"].integer<uint64_t>();
  flow.latency = read_latency(node["latency_ns"]);
  flow.latency_from_sent = read_latency(node["latency_from_sent_ns"]);
  flow.latency_reps = read_latency_reps(node["latency_ns_reps"]);
  flow.series_bps = node["series_bps"].numbers();
  // Class fields: only in scenarios with classes (and not in results before them).
  if (node.has("host")) flow.host = node["host"].integer<uint32_t>();
  if (node.has("tclass")) flow.tclass = node["tclass"].str();
  if (node.has("dscp")) flow.dscp = node["dscp"].integer<uint32_t>();
  if (node.has("sl")) flow.sl = node["sl"].integer<uint32_t>();
  if (node.has("priority")) flow.priority = node["priority"].integer<uint32_t>();
  if (node.has("arb_class")) flow.arb_class = node["arb_class"].str();
  return flow;
}

ClassResult read_class(const Node& node) {
  ClassResult result;
  result.name = node["name"].str();
  result.flows = node["flows"].integer<uint32_t>();
  result.expected_bps = node["expected_bps"].number();
  result.measured_bps = node["measured_bps"].number();
  result.error = node["error"].number();
  result.expected_share = node["expected_share"].number();
  result.measured_share = node["measured_share"].number();
  result.latency = read_latency(node["latency_ns"]);
  return result;
}

GroupResult read_group(const Node& node) {
  GroupResult group;
  group.name = node["name"].str();
  group.leaf = node["leaf"].str();
  group.flows = node["flows"].integer<uint32_t>();
  group.expected_bps = node["expected_bps"].number();
  group.measured_bps = node["measured_bps"].number();
  group.error = node["error"].number();
  group.measured_bps_reps = node["measured_bps_reps"].numbers();
  group.latency = read_latency(node["latency_ns"]);
  group.latency_from_sent = read_latency(node["latency_from_sent_ns"]);
  group.latency_reps = read_latency_reps(node["latency_ns_reps"]);
  group.series_bps = node["series_bps"].numbers();
  return group;
}

ElementResult read_element(const Node& node) {
  ElementResult element;
  element.name = node["name"].str();
  const Node parent = node["parent"];
  element.parent = parent.json().is_null() ? std::string() : parent.str();
  const std::string kind = node["kind"].str();
  if (kind != "leaf" && kind != "node") {
    throw FieldError{child_path(node.path(), "kind"),
                     "expected \"leaf\" or \"node\", found \"" + kind + "\""};
  }
  element.is_leaf = kind == "leaf";
  element.bw_share = node["bw_share"].integer<uint32_t>();
  element.weight = node["weight"].integer<uint32_t>();
  element.cap_bps = node["cap_bps"].optional_number();
  // null demand: a saturating subtree, unbounded.
  element.demand_bps = node["demand_bps"].number(std::numeric_limits<double>::infinity());
  element.expected_bps = node["expected_bps"].number();
  element.measured_bps = node["measured_bps"].number();
  return element;
}

GateResult read_gate(const Node& node) {
  GateResult gate;
  gate.name = node["name"].str();
  gate.passed = node["passed"].boolean();
  gate.value = node["value"].number();
  gate.threshold = node["threshold"].number();
  gate.unit = node["unit"].str();
  gate.detail = node["detail"].str();
  gate.kind = gate_kind_from_name(gate.name, gate.unit);
  gate.bound = gate_bound_from_name(gate.name);
  return gate;
}

ScenarioResult read_scenario(const Node& node) {
  ScenarioResult scenario;
  scenario.name = node["name"].str();
  scenario.passed = node["passed"].boolean();
  scenario.transport = node["transport"].str();
  scenario.mtu_bytes = node["mtu_bytes"].integer<uint32_t>();
  scenario.capacity_bps = node["capacity_bps"].number();
  if (const std::string basis = node["rate_basis"].str(); basis != "wire") {
    throw FieldError{child_path(node.path(), "rate_basis"),
                     "expected \"wire\", found \"" + basis + "\""};
  }
  scenario.seed = node["seed"].integer<uint64_t>();
  scenario.repetitions = node["repetitions"].integer<uint32_t>();
  scenario.repetitions_completed = node["repetitions_completed"].integer<uint32_t>();
  scenario.warmup_ns = node["warmup_ns"].integer<int64_t>();
  scenario.duration_ns = node["duration_ns"].integer<int64_t>();
  scenario.bin_ns = node["bin_ns"].integer<int64_t>();
  scenario.wall_seconds = node["wall_seconds"].number();
  const Node fairness = node["fairness"];
  scenario.fairness.jain = fairness["jain"].number();
  scenario.fairness.worst_flow_error = fairness["worst_flow_error"].number();
  scenario.fairness.worst_flow = fairness["worst_flow"].str();
  scenario.fairness.worst_group_error = fairness["worst_group_error"].number();
  scenario.fairness.worst_group = fairness["worst_group"].str();
  scenario.fairness.jain_series = fairness["jain_series"].numbers();
  scenario.fairness.jain_reps = fairness["jain_reps"].numbers();
  node["gates"].each([&](const Node& gate) { scenario.gates.push_back(read_gate(gate)); });
  node["groups"].each([&](const Node& group) { scenario.groups.push_back(read_group(group)); });
  node["flows"].each([&](const Node& flow) { scenario.flows.push_back(read_flow(flow)); });
  node["tree"].each([&](const Node& element) { scenario.tree.push_back(read_element(element)); });
  if (node.has("classes")) {
    node["classes"].each([&](const Node& c) { scenario.classes.push_back(read_class(c)); });
  }
  if (node.has("oracle_notes")) {
    node["oracle_notes"].each(
        [&](const Node& note) { scenario.oracle_notes.push_back(note.str()); });
  }
  const Node stats = node["driver_stats"];
  if (!stats.json().is_object()) throw FieldError{stats.path(), "expected an object"};
  for (const auto& [name, value] : stats.json().items()) {
    scenario.driver_stats.emplace_back(name, Node(value, child_path(stats.path(), name)).number());
  }
  return scenario;
}

Results read_root(const Node& root) {
  Results results;
  results.schema = root["schema"].str();
  results.passed = root["passed"].boolean();
  results.complete = root["complete"].boolean();
  results.suite = root["suite"].str();
  results.suite_file = root["suite_file"].str();
  results.config_hash = root["config_hash"].str();
  results.tool_version = root["tool_version"].str();
  results.driver = root["driver"].str();
  results.clock = root["clock"].str();
  results.host = root["host"].str();
  results.date_utc = root["date"].str();
  results.jobs = root["jobs"].integer<uint32_t>();
  results.wall_seconds = root["wall_seconds"].number();
  root["warnings"].each([&](const Node& warning) { results.warnings.push_back(warning.str()); });
  root["scenarios"].each(
      [&](const Node& scenario) { results.scenarios.push_back(read_scenario(scenario)); });
  return results;
}

// 1-based line and column of a byte offset, for parse errors.
SourceLoc location_of(std::string_view text, size_t byte, const std::string& source_name) {
  SourceLoc loc{source_name, 1, 1};
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace

Result<Results> results_from_json(std::string_view text, const std::string& source_name) {
  Json root;
  try {
    root = Json::parse(text);
  } catch (const Json::parse_error& e) {
    // nlohmann reports the byte after the failure (1-based); point at the last byte read.
    const size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    const bool at_end = byte + 1 >= text.size();
    return make_error(Errc::invalid_config,
                      at_end ? "not a complete results JSON file (truncated or empty?)"
                             : "not valid JSON: " + std::string(e.what()),
                      {}, location_of(text, byte, source_name));
  }
  if (!root.is_object()) {
    return make_error(Errc::invalid_config, "not a qosbench results file: expected a JSON object",
                      {}, SourceLoc{source_name});
  }
  // The schema first: a file of another version fails on that, not on some field it renamed.
  const auto schema = root.find("schema");
  if (schema == root.end() || !schema->is_string()) {
    return make_error(Errc::invalid_config, "not a qosbench results file (no \"schema\" string)",
                      "schema", SourceLoc{source_name});
  }
  if (schema->get<std::string>() != kResultsSchema) {
    return make_error(
        Errc::invalid_config,
        fmt::format("results schema \"{}\" is not supported: this qosbench reads \"{}\"",
                    schema->get<std::string>(), kResultsSchema),
        "schema", SourceLoc{source_name});
  }
  try {
    return read_root(Node(root, ""));
  } catch (const FieldError& e) {
    return make_error(Errc::invalid_config, e.message, e.path, SourceLoc{source_name});
  } catch (const Json::exception& e) {  // a backstop: Node checks types before every get<>
    return make_error(Errc::invalid_config, e.what(), {}, SourceLoc{source_name});
  }
}

Result<Results> read_results_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return make_error(Errc::invalid_config, "is a directory, not a results file", {},
                      SourceLoc{path});
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(Errc::invalid_config,
                      fmt::format("cannot read results file: {}", std::strerror(errno)), {},
                      SourceLoc{path});
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return make_error(Errc::invalid_config, "cannot read results file", {}, SourceLoc{path});
  }
  return results_from_json(buffer.str(), path);
}

}  // namespace qb::report
