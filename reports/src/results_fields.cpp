// The one description of the results JSON: per struct, a table of its fields (JSON key, the
// member it holds, how the value is coded, required or optional). The writer, the reader and the
// field list for the documentation all walk these tables, so a field added here is written,
// read and checked against docs/results-schema.md together. A sender-only run's document
// (sender_results.hpp) is described here too, from the same run fields and starvation object.
#include "results_fields.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "gate_kind.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/sender_results.hpp"

namespace qb::report {
namespace {

enum class Presence {
  required,  // always written; a file without it is refused
  optional,  // written when `written` says so (always when it is null); read when present,
             // else `absent` derives it (when it can be)
};

template <class Record>
struct Field {
  std::string_view key;
  Presence presence;
  Json (*write)(const Record&);
  void (*read)(const JsonNode&, Record&);
  /// Appends the fields below this one (nested objects and arrays of them); null for values.
  void (*describe)(const std::string& path, std::vector<SchemaField>&);
  bool (*written)(const Record&) = nullptr;
  /// An optional field a file lacks: what it is then (null: the member keeps its default).
  void (*absent)(Record&) = nullptr;
};

// Per struct: its fields and, for members the JSON does not carry, how they follow from it.
template <class Record>
struct RecordSchema {
  std::span<const Field<Record>> fields;
  void (*derive)(Record&) = nullptr;
};

template <class Record>
const RecordSchema<Record>& schema_of();

template <class Record>
Json write_record(const Record& record) {
  Json out = Json::object();
  for (const Field<Record>& field : schema_of<Record>().fields) {
    if (field.written == nullptr || field.written(record)) {
      out[std::string(field.key)] = field.write(record);
    }
  }
  return out;
}

template <class Record>
void read_fields(const JsonNode& node, std::span<const Field<Record>> fields, Record& record) {
  for (const Field<Record>& field : fields) {
    if (field.presence == Presence::optional && !node.has(field.key)) {
      if (field.absent != nullptr) field.absent(record);
      continue;
    }
    field.read(node[field.key], record);
  }
}

template <class Record>
Record read_record(const JsonNode& node) {
  Record record;
  const RecordSchema<Record>& schema = schema_of<Record>();
  read_fields(node, schema.fields, record);
  if (schema.derive != nullptr) schema.derive(record);
  return record;
}

template <class Record>
void describe_fields(std::span<const Field<Record>> fields, const std::string& path,
                     std::vector<SchemaField>& out) {
  for (const Field<Record>& field : fields) {
    const std::string field_path =
        path.empty() ? std::string(field.key) : path + "." + std::string(field.key);
    out.push_back({field_path, field.presence == Presence::required});
    if (field.describe != nullptr) field.describe(field_path, out);
  }
}

// ---------------------------------------------------------------------------------------------
// Codecs: how one member's value is written and read. The default for a struct is a nested
// object of its own fields; the default for a vector of structs, an array of such objects.

// JSON has no infinity: an unbounded figure (a saturating demand) is written as null.
Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

struct Value {
  static constexpr std::nullptr_t describe = nullptr;
};

template <class T>
struct Codec {  // a struct with a RecordSchema: a nested object
  static Json write(const T& value) { return write_record(value); }
  static T read(const JsonNode& node) { return read_record<T>(node); }
  static void describe(const std::string& path, std::vector<SchemaField>& out) {
    describe_fields(schema_of<T>().fields, path, out);
  }
};

template <class T>
struct Codec<std::vector<T>> {  // structs: an array of nested objects
  static Json write(const std::vector<T>& values) {
    Json out = Json::array();
    for (const T& value : values) out.push_back(write_record(value));
    return out;
  }
  static std::vector<T> read(const JsonNode& node) {
    std::vector<T> out;
    node.each([&](const JsonNode& item) { out.push_back(read_record<T>(item)); });
    return out;
  }
  static void describe(const std::string& path, std::vector<SchemaField>& out) {
    describe_fields(schema_of<T>().fields, path + "[]", out);
  }
};

template <>
struct Codec<std::string> : Value {
  static Json write(const std::string& value) { return value; }
  static std::string read(const JsonNode& node) { return node.str(); }
};

template <>
struct Codec<bool> : Value {
  static Json write(bool value) { return value; }
  static bool read(const JsonNode& node) { return node.boolean(); }
};

template <class Int>
struct IntegerCodec : Value {
  static Json write(Int value) { return value; }
  static Int read(const JsonNode& node) { return node.integer<Int>(); }
};
template <>
struct Codec<uint32_t> : IntegerCodec<uint32_t> {};
template <>
struct Codec<uint64_t> : IntegerCodec<uint64_t> {};
template <>
struct Codec<int64_t> : IntegerCodec<int64_t> {};

// A figure; null reads as NaN (it was not finite when written).
template <>
struct Codec<double> : Value {
  static Json write(double value) { return number(value); }
  static double read(const JsonNode& node) { return node.number(); }
};

// null: unbounded (a saturating subtree's demand).
struct NullIsInfinity : Value {
  static Json write(double value) { return number(value); }
  static double read(const JsonNode& node) {
    return node.number(std::numeric_limits<double>::infinity());
  }
};

// null: none (a flow that saturates has no offered rate; an element without a cap).
template <>
struct Codec<std::optional<double>> : Value {
  static Json write(const std::optional<double>& value) {
    return value ? number(*value) : Json(nullptr);
  }
  static std::optional<double> read(const JsonNode& node) { return node.optional_number(); }
};

template <>
struct Codec<std::vector<double>> : Value {
  static Json write(const std::vector<double>& values) {
    Json out = Json::array();
    for (double value : values) out.push_back(number(value));
    return out;
  }
  static std::vector<double> read(const JsonNode& node) { return node.numbers(); }
};

template <>
struct Codec<std::vector<int64_t>> : Value {
  static Json write(const std::vector<int64_t>& values) { return values; }
  static std::vector<int64_t> read(const JsonNode& node) { return node.integers(); }
};

template <>
struct Codec<std::vector<uint32_t>> : Value {
  static Json write(const std::vector<uint32_t>& values) { return values; }
  static std::vector<uint32_t> read(const JsonNode& node) {
    std::vector<uint32_t> out;
    node.each([&](const JsonNode& item) { out.push_back(item.integer<uint32_t>()); });
    return out;
  }
};

template <>
struct Codec<std::vector<std::string>> : Value {
  static Json write(const std::vector<std::string>& values) { return values; }
  static std::vector<std::string> read(const JsonNode& node) {
    std::vector<std::string> out;
    node.each([&](const JsonNode& item) { out.push_back(item.str()); });
    return out;
  }
};

// A latency spectrum: [[percentile, ns], ...].
template <>
struct Codec<std::vector<std::pair<double, int64_t>>> : Value {
  static Json write(const std::vector<std::pair<double, int64_t>>& spectrum) {
    Json out = Json::array();
    for (const auto& [percentile, value] : spectrum) out.push_back({percentile, value});
    return out;
  }
  static std::vector<std::pair<double, int64_t>> read(const JsonNode& node) {
    std::vector<std::pair<double, int64_t>> out;
    node.each([&](const JsonNode& pair) {
      if (pair.array().size() != 2) pair.fail("expected [percentile, ns]");
      out.emplace_back(JsonNode(pair.json()[0], index_path(pair.path(), 0)).number(),
                       JsonNode(pair.json()[1], index_path(pair.path(), 1)).integer<int64_t>());
    });
    return out;
  }
};

// Driver statistics: an object of figures, in the order the driver named them.
template <>
struct Codec<std::vector<std::pair<std::string, double>>> : Value {
  static Json write(const std::vector<std::pair<std::string, double>>& stats) {
    Json out = Json::object();
    for (const auto& [name, value] : stats) out[name] = number(value);
    return out;
  }
  static std::vector<std::pair<std::string, double>> read(const JsonNode& node) {
    if (!node.json().is_object()) node.fail("expected an object");
    std::vector<std::pair<std::string, double>> out;
    for (const auto& [name, value] : node.json().items()) {
      out.emplace_back(name, JsonNode(value, child_path(node.path(), name)).number());
    }
    return out;
  }
};

// A tree element's parent: null for the root.
struct EmptyIsNull : Value {
  static Json write(const std::string& value) {
    return value.empty() ? Json(nullptr) : Json(value);
  }
  static std::string read(const JsonNode& node) {
    return node.json().is_null() ? std::string() : node.str();
  }
};

// A tree element's kind: "leaf" or "node".
struct LeafOrNode : Value {
  static Json write(bool is_leaf) { return is_leaf ? "leaf" : "node"; }
  static bool read(const JsonNode& node) {
    const std::string kind = node.str();
    if (kind != "leaf" && kind != "node") {
      node.fail("expected \"leaf\" or \"node\", found \"" + kind + "\"");
    }
    return kind == "leaf";
  }
};

template <auto Member>
struct MemberOf;
template <class R, class T, T R::*Member>
struct MemberOf<Member> {
  using Record = R;
  using Type = T;
};

/// The field `key` holding `Member`, coded by `C`.
template <auto Member, class C = Codec<typename MemberOf<Member>::Type>>
constexpr Field<typename MemberOf<Member>::Record> member(
    std::string_view key, Presence presence = Presence::required,
    bool (*written)(const typename MemberOf<Member>::Record&) = nullptr,
    void (*absent)(typename MemberOf<Member>::Record&) = nullptr) {
  using Record = typename MemberOf<Member>::Record;
  return {key,
          presence,
          [](const Record& record) -> Json { return C::write(record.*Member); },
          [](const JsonNode& node, Record& record) { record.*Member = C::read(node); },
          C::describe,
          written,
          absent};
}

/// The field of counter I of the table (engine/counters.hpp), keyed by its name, in the
/// Counters member `Counts` of Record.
template <class Record, engine::Counters Record::*Counts, size_t I>
Field<Record> counter_field() {
  return {engine::kCounters[I].name, Presence::required,
          [](const Record& record) -> Json {
            return Codec<uint64_t>::write((record.*Counts).*engine::kCounters[I].member);
          },
          [](const JsonNode& node, Record& record) {
            (record.*Counts).*engine::kCounters[I].member = Codec<uint64_t>::read(node);
          },
          nullptr};
}

template <class Record, engine::Counters Record::*Counts, size_t... I>
std::vector<Field<Record>> with_counters(std::span<const Field<Record>> before,
                                         bool (*pick)(const engine::CounterInfo&),
                                         std::span<const Field<Record>> after,
                                         std::index_sequence<I...> /*every counter*/) {
  std::vector<Field<Record>> out(before.begin(), before.end());
  ((pick(engine::kCounters[I]) ? out.push_back(counter_field<Record, Counts, I>()) : void()), ...);
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

/// `before`, then a field for every counter `pick` keeps (in the table's order), then `after`.
template <class Record, engine::Counters Record::*Counts>
std::vector<Field<Record>> with_counters(std::span<const Field<Record>> before,
                                         bool (*pick)(const engine::CounterInfo&),
                                         std::span<const Field<Record>> after = {}) {
  return with_counters<Record, Counts>(before, pick, after,
                                       std::make_index_sequence<engine::kCounters.size()>());
}

bool in_results(const engine::CounterInfo& counter) {
  return counter.in_results;
}
bool sender_side(const engine::CounterInfo& counter) {
  return counter.side == engine::CounterSide::sender;
}

// ---------------------------------------------------------------------------------------------
// The fields, struct by struct, in the order they are written (docs/results-schema.md).

// Which percentiles are lower bounds (messages outstanding at the window's end).
const Field<engine::LatencyCensored> kCensoredFields[] = {
    member<&engine::LatencyCensored::p50>("p50"), member<&engine::LatencyCensored::p90>("p90"),
    member<&engine::LatencyCensored::p99>("p99"), member<&engine::LatencyCensored::p999>("p999"),
    member<&engine::LatencyCensored::max>("max"),
};
template <>
const RecordSchema<engine::LatencyCensored>& schema_of<engine::LatencyCensored>() {
  static const RecordSchema<engine::LatencyCensored> schema{kCensoredFields};
  return schema;
}

bool has_outstanding(const LatencySummary& l) {
  return l.outstanding != 0;
}
bool has_outstanding_limit(const LatencySummary& l) {
  return l.outstanding_limit != 0;
}

// stdev, outstanding, censored and outstanding_limit: optional, absent in older files (and the
// outstanding ones in latency_from_sent_ns, whose send times an outstanding message lacks).
const Field<LatencySummary> kLatencyFields[] = {
    member<&LatencySummary::p50_ns>("p50"),
    member<&LatencySummary::p90_ns>("p90"),
    member<&LatencySummary::p99_ns>("p99"),
    member<&LatencySummary::p999_ns>("p999"),
    member<&LatencySummary::max_ns>("max"),
    member<&LatencySummary::min_ns>("min"),
    member<&LatencySummary::mean_ns>("mean"),
    member<&LatencySummary::stdev_ns>(
        "stdev", Presence::optional, nullptr,
        [](LatencySummary& l) { l.stdev_ns = std::numeric_limits<double>::quiet_NaN(); }),
    member<&LatencySummary::count>("count"),
    member<&LatencySummary::outstanding>("outstanding", Presence::optional, has_outstanding),
    member<&LatencySummary::oldest_outstanding_ns>("oldest_outstanding", Presence::optional,
                                                   has_outstanding),
    member<&LatencySummary::censored>("censored", Presence::optional, has_outstanding),
    member<&LatencySummary::outstanding_limit>("outstanding_limit", Presence::optional,
                                               has_outstanding_limit),
    member<&LatencySummary::spectrum>("spectrum"),
};
template <>
const RecordSchema<LatencySummary>& schema_of<LatencySummary>() {
  static const RecordSchema<LatencySummary> schema{kLatencyFields};
  return schema;
}

const Field<LatencyReps> kLatencyRepsFields[] = {
    member<&LatencyReps::p50_ns>("p50"),
    member<&LatencyReps::p90_ns>("p90"),
    member<&LatencyReps::p99_ns>("p99"),
    member<&LatencyReps::p999_ns>("p999"),
};
template <>
const RecordSchema<LatencyReps>& schema_of<LatencyReps>() {
  static const RecordSchema<LatencyReps> schema{kLatencyRepsFields};
  return schema;
}

// Written only for a flow or group that was not judged: judged results stay as they were.
template <class Row>
bool not_judged(const Row& row) {
  return !row.judged;
}

const Field<FlowResult> kFlowFieldsBefore[] = {
    member<&FlowResult::name>("name"),
    member<&FlowResult::group>("group"),
    member<&FlowResult::leaf>("leaf"),
    member<&FlowResult::offered_bps>("offered_bps"),
    member<&FlowResult::expected_bps>("expected_bps"),
    member<&FlowResult::measured_bps>("measured_bps"),
    member<&FlowResult::measured_payload_bps>("measured_payload_bps"),
    member<&FlowResult::error>("error"),
    // Optional for files written before noise-aware judging (then 0: no allowance).
    member<&FlowResult::noise>("noise", Presence::optional),
    // Only for a flow not judged (it started after the window ended).
    member<&FlowResult::judged>("judged", Presence::optional, not_judged<FlowResult>),
    member<&FlowResult::not_judged>("not_judged", Presence::optional, not_judged<FlowResult>),
    member<&FlowResult::measured_bps_reps>("measured_bps_reps"),
};
// Between the two: the counters the results carry (engine/counters.hpp).
const Field<FlowResult> kFlowFieldsAfter[] = {
    member<&FlowResult::latency>("latency_ns"),
    member<&FlowResult::latency_from_sent>("latency_from_sent_ns"),
    member<&FlowResult::latency_reps>("latency_ns_reps"),
    member<&FlowResult::series_bps>("series_bps"),
};
const std::vector<Field<FlowResult>> kFlowFields =
    with_counters<FlowResult, &FlowResult::counts>(kFlowFieldsBefore, in_results, kFlowFieldsAfter);
// Written only in scenarios with classes (see the scenario's "flows"), so results of other
// suites stay as they were before classes existed; absent in older files.
const Field<FlowResult> kFlowClassFields[] = {
    member<&FlowResult::host>("host", Presence::optional),
    member<&FlowResult::tclass>("tclass", Presence::optional),
    member<&FlowResult::dscp>("dscp", Presence::optional),
    member<&FlowResult::sl>("sl", Presence::optional),
    member<&FlowResult::priority>("priority", Presence::optional),
    member<&FlowResult::arb_class>("arb_class", Presence::optional),
};

const Field<ClassResult> kClassFields[] = {
    member<&ClassResult::name>("name"),
    member<&ClassResult::flows>("flows"),
    member<&ClassResult::expected_bps>("expected_bps"),
    member<&ClassResult::measured_bps>("measured_bps"),
    member<&ClassResult::error>("error"),
    member<&ClassResult::expected_share>("expected_share"),
    member<&ClassResult::measured_share>("measured_share"),
    member<&ClassResult::latency>("latency_ns"),
};
template <>
const RecordSchema<ClassResult>& schema_of<ClassResult>() {
  static const RecordSchema<ClassResult> schema{kClassFields};
  return schema;
}

const Field<GroupResult> kGroupFields[] = {
    member<&GroupResult::name>("name"),
    member<&GroupResult::leaf>("leaf"),
    member<&GroupResult::flows>("flows"),
    member<&GroupResult::expected_bps>("expected_bps"),
    member<&GroupResult::measured_bps>("measured_bps"),
    member<&GroupResult::error>("error"),
    member<&GroupResult::noise>("noise", Presence::optional),
    member<&GroupResult::judged>("judged", Presence::optional, not_judged<GroupResult>),
    member<&GroupResult::measured_bps_reps>("measured_bps_reps"),
    member<&GroupResult::latency>("latency_ns"),
    member<&GroupResult::latency_from_sent>("latency_from_sent_ns"),
    member<&GroupResult::latency_reps>("latency_ns_reps"),
    member<&GroupResult::series_bps>("series_bps"),
};
template <>
const RecordSchema<GroupResult>& schema_of<GroupResult>() {
  static const RecordSchema<GroupResult> schema{kGroupFields};
  return schema;
}

const Field<ElementResult> kElementFields[] = {
    member<&ElementResult::name>("name"),
    member<&ElementResult::parent, EmptyIsNull>("parent"),
    member<&ElementResult::is_leaf, LeafOrNode>("kind"),
    member<&ElementResult::bw_share>("bw_share"),
    member<&ElementResult::weight>("weight"),
    member<&ElementResult::cap_bps>("cap_bps"),
    member<&ElementResult::demand_bps, NullIsInfinity>("demand_bps"),
    member<&ElementResult::expected_bps>("expected_bps"),
    member<&ElementResult::measured_bps>("measured_bps"),
};
template <>
const RecordSchema<ElementResult>& schema_of<ElementResult>() {
  static const RecordSchema<ElementResult> schema{kElementFields};
  return schema;
}

const Field<HostTreeResult> kHostTreeFields[] = {
    member<&HostTreeResult::host>("host"),
    member<&HostTreeResult::tree>("tree"),
};
template <>
const RecordSchema<HostTreeResult>& schema_of<HostTreeResult>() {
  static const RecordSchema<HostTreeResult> schema{kHostTreeFields};
  return schema;
}

const Field<EtsTcResult> kEtsTcFields[] = {
    member<&EtsTcResult::tc>("tc"),
    member<&EtsTcResult::tsa>("tsa"),
    member<&EtsTcResult::ets_percent>("ets_percent"),
    member<&EtsTcResult::max_rate_bps>("max_rate_bps"),
    member<&EtsTcResult::group>("group"),
};
template <>
const RecordSchema<EtsTcResult>& schema_of<EtsTcResult>() {
  static const RecordSchema<EtsTcResult> schema{kEtsTcFields};
  return schema;
}

const Field<VlArbEntryResult> kVlArbEntryFields[] = {
    member<&VlArbEntryResult::vl>("vl"),
    member<&VlArbEntryResult::weight>("weight"),
};
template <>
const RecordSchema<VlArbEntryResult>& schema_of<VlArbEntryResult>() {
  static const RecordSchema<VlArbEntryResult> schema{kVlArbEntryFields};
  return schema;
}

bool is_ets(const PortArbitrationResult& port) {
  return port.kind == "ets";
}
bool is_vlarb(const PortArbitrationResult& port) {
  return port.kind == "vlarb";
}

// A port carries the fields of its kind only.
const Field<PortArbitrationResult> kPortArbitrationFields[] = {
    member<&PortArbitrationResult::port>("port"),
    member<&PortArbitrationResult::kind>("kind"),
    member<&PortArbitrationResult::decides>("decides"),
    member<&PortArbitrationResult::capacity_bps>("capacity_bps"),
    member<&PortArbitrationResult::trust>("trust", Presence::optional, is_ets),
    member<&PortArbitrationResult::prio_tc>("prio_tc", Presence::optional, is_ets),
    member<&PortArbitrationResult::tcs>("tcs", Presence::optional, is_ets),
    member<&PortArbitrationResult::sl2vl>("sl2vl", Presence::optional, is_vlarb),
    member<&PortArbitrationResult::vlarb_high>("vlarb_high", Presence::optional, is_vlarb),
    member<&PortArbitrationResult::vlarb_low>("vlarb_low", Presence::optional, is_vlarb),
    member<&PortArbitrationResult::high_limit>("high_limit", Presence::optional, is_vlarb),
    member<&PortArbitrationResult::op_vls>("op_vls", Presence::optional, is_vlarb),
};
template <>
const RecordSchema<PortArbitrationResult>& schema_of<PortArbitrationResult>() {
  static const RecordSchema<PortArbitrationResult> schema{kPortArbitrationFields};
  return schema;
}

// A gate's kind and bound by name ("ratio", "at_most", gate_kind.hpp).
struct GateKindCodec : Value {
  static Json write(GateKind kind) { return gate_kind_name(kind); }
  static GateKind read(const JsonNode& node) {
    const std::string name = node.str();
    const std::optional<GateKind> kind = gate_kind_named(name);
    if (!kind) {
      node.fail("expected \"ratio\", \"duration\", \"index\" or \"bytes\", found \"" + name + "\"");
    }
    return *kind;
  }
};
struct GateBoundCodec : Value {
  static Json write(GateBound bound) { return gate_bound_name(bound); }
  static GateBound read(const JsonNode& node) {
    const std::string name = node.str();
    const std::optional<GateBound> bound = gate_bound_named(name);
    if (!bound) node.fail("expected \"at_most\" or \"at_least\", found \"" + name + "\"");
    return *bound;
  }
};

// Files written before kind and bound were fields have neither: both follow from the name and
// unit judge gives the gate (read before them).
void kind_from_name(GateResult& gate) {
  gate.kind = gate_kind_from_name(gate.name, gate.unit);
}
void bound_from_name(GateResult& gate) {
  gate.bound = gate_bound_from_name(gate.name);
}

const Field<GateResult> kGateFields[] = {
    member<&GateResult::name>("name"),
    member<&GateResult::passed>("passed"),
    member<&GateResult::value>("value"),
    member<&GateResult::threshold>("threshold"),
    member<&GateResult::unit>("unit"),
    member<&GateResult::detail>("detail"),
    // Always written; optional for the files written before they were.
    member<&GateResult::kind, GateKindCodec>("kind", Presence::optional, nullptr, kind_from_name),
    member<&GateResult::bound, GateBoundCodec>("bound", Presence::optional, nullptr,
                                               bound_from_name),
    // Noise-aware judging and defaults; optional for older files (no allowance, judged, the
    // suite's limit).
    member<&GateResult::allowance>("allowance", Presence::optional),
    member<&GateResult::judged>("judged", Presence::optional),
    member<&GateResult::default_limit>("default_limit", Presence::optional),
};
template <>
const RecordSchema<GateResult>& schema_of<GateResult>() {
  static const RecordSchema<GateResult> schema{kGateFields};
  return schema;
}

const Field<Fairness> kFairnessFields[] = {
    member<&Fairness::jain>("jain"),
    member<&Fairness::worst_flow_error>("worst_flow_error"),
    member<&Fairness::worst_flow>("worst_flow"),
    member<&Fairness::worst_group_error>("worst_group_error"),
    member<&Fairness::worst_group>("worst_group"),
    member<&Fairness::jain_series>("jain_series"),
    member<&Fairness::jain_reps>("jain_reps"),
};
template <>
const RecordSchema<Fairness>& schema_of<Fairness>() {
  static const RecordSchema<Fairness> schema{kFairnessFields};
  return schema;
}

const Field<ConvergenceEpoch> kConvergenceEpochFields[] = {
    member<&ConvergenceEpoch::start_ns>("start_ns"),
    member<&ConvergenceEpoch::active_flows>("active_flows"),
    member<&ConvergenceEpoch::judged>("judged"),
    member<&ConvergenceEpoch::converged>("converged"),
    member<&ConvergenceEpoch::time_ns>("time_ns"),
    member<&ConvergenceEpoch::not_judged>(
        "not_judged", Presence::optional,
        [](const ConvergenceEpoch& epoch) { return !epoch.not_judged.empty(); }),
};
template <>
const RecordSchema<ConvergenceEpoch>& schema_of<ConvergenceEpoch>() {
  static const RecordSchema<ConvergenceEpoch> schema{kConvergenceEpochFields};
  return schema;
}

const Field<Convergence> kConvergenceFields[] = {
    member<&Convergence::tolerance>("tolerance"),
    member<&Convergence::epochs>("epochs"),
    member<&Convergence::converged>("converged"),
    member<&Convergence::worst_time_ns>("worst_time_ns"),
    member<&Convergence::settled_from_ns>("settled_from_ns"),
    member<&Convergence::jain_settled>("jain_settled"),
    member<&Convergence::worst_flow_error_settled>("worst_flow_error_settled"),
    member<&Convergence::worst_flow_settled>("worst_flow_settled"),
    // Optional for older files.
    member<&Convergence::worst_flow_noise_settled>("worst_flow_noise_settled", Presence::optional),
    member<&Convergence::held_by_backpressure>("held_by_backpressure", Presence::optional),
    member<&Convergence::paused_fraction>("paused_fraction", Presence::optional),
};
template <>
const RecordSchema<Convergence>& schema_of<Convergence>() {
  static const RecordSchema<Convergence> schema{
      kConvergenceFields, [](Convergence& convergence) { convergence.present = true; }};
  return schema;
}

bool has_convergence(const ScenarioResult& scenario) {
  return scenario.convergence.present;
}

const Field<QueueDepthSeries> kQueueDepthFields[] = {
    member<&QueueDepthSeries::name>("name"),
    member<&QueueDepthSeries::max_bytes>("max_bytes"),
    member<&QueueDepthSeries::mean_bytes>("mean_bytes"),
};
template <>
const RecordSchema<QueueDepthSeries>& schema_of<QueueDepthSeries>() {
  static const RecordSchema<QueueDepthSeries> schema{kQueueDepthFields};
  return schema;
}

const Field<NicCheckResult> kNicCheckFields[] = {
    member<&NicCheckResult::name>("name"),
    member<&NicCheckResult::passed>("passed"),
    member<&NicCheckResult::checked>("checked"),
    member<&NicCheckResult::detail>("detail"),
};
template <>
const RecordSchema<NicCheckResult>& schema_of<NicCheckResult>() {
  static const RecordSchema<NicCheckResult> schema{kNicCheckFields};
  return schema;
}

const Field<LinkResult> kLinkFields[] = {
    member<&LinkResult::name>("name"),
    member<&LinkResult::rate_bps>("rate_bps"),
    member<&LinkResult::expected_bps>("expected_bps"),
    member<&LinkResult::measured_bps>("measured_bps"),
    member<&LinkResult::utilisation>("utilisation"),
    member<&LinkResult::queue_max_bytes>("queue_max_bytes"),
    member<&LinkResult::queue_p50_bytes>("queue_p50_bytes"),
    member<&LinkResult::queue_p99_bytes>("queue_p99_bytes"),
    member<&LinkResult::paused_ns>("paused_ns"),
    member<&LinkResult::ecn_marks>("ecn_marks"),
    member<&LinkResult::drops>("drops"),
};
template <>
const RecordSchema<LinkResult>& schema_of<LinkResult>() {
  static const RecordSchema<LinkResult> schema{kLinkFields};
  return schema;
}

const Field<VictimResult> kVictimFields[] = {
    member<&VictimResult::flow>("flow"),
    member<&VictimResult::paused_at>("paused_at"),
    member<&VictimResult::paused_ns>("paused_ns"),
    member<&VictimResult::error>("error"),
};
template <>
const RecordSchema<VictimResult>& schema_of<VictimResult>() {
  static const RecordSchema<VictimResult> schema{kVictimFields};
  return schema;
}

// A [topology]'s graph for the report's drawing (qb/judge/topology_results.hpp).
struct NodeKindCodec : Value {
  static Json write(const std::string& kind) { return kind; }
  static std::string read(const JsonNode& node) {
    std::string kind = node.str();
    if (kind != "host" && kind != "switch") {
      node.fail("expected \"host\" or \"switch\", found \"" + kind + "\"");
    }
    return kind;
  }
};
// Both ends of a link, and its two channels: exactly two names.
struct NamePair : Value {
  static Json write(const std::vector<std::string>& pair) { return pair; }
  static std::vector<std::string> read(const JsonNode& node) {
    std::vector<std::string> out = Codec<std::vector<std::string>>::read(node);
    if (out.size() != 2) node.fail("expected two names, found " + std::to_string(out.size()));
    return out;
  }
};

const Field<TopologyNode> kTopologyNodeFields[] = {
    member<&TopologyNode::name>("name"),
    member<&TopologyNode::kind, NodeKindCodec>("kind"),
};
template <>
const RecordSchema<TopologyNode>& schema_of<TopologyNode>() {
  static const RecordSchema<TopologyNode> schema{kTopologyNodeFields};
  return schema;
}

const Field<TopologyLink> kTopologyLinkFields[] = {
    member<&TopologyLink::ends, NamePair>("ends"),
    member<&TopologyLink::channels, NamePair>("channels"),
    member<&TopologyLink::rate_bps>("rate_bps"),
    member<&TopologyLink::delay_ns>("delay_ns"),
};
template <>
const RecordSchema<TopologyLink>& schema_of<TopologyLink>() {
  static const RecordSchema<TopologyLink> schema{kTopologyLinkFields};
  return schema;
}

const Field<TopologyHop> kTopologyHopFields[] = {
    member<&TopologyHop::channel>("channel"),
    member<&TopologyHop::arb_class>("class"),
};
template <>
const RecordSchema<TopologyHop>& schema_of<TopologyHop>() {
  static const RecordSchema<TopologyHop> schema{kTopologyHopFields};
  return schema;
}

const Field<TopologyPath> kTopologyPathFields[] = {
    member<&TopologyPath::flow>("flow"),
    member<&TopologyPath::sl>("sl"),
    member<&TopologyPath::priority>("priority"),
    member<&TopologyPath::hops>("hops"),
};
template <>
const RecordSchema<TopologyPath>& schema_of<TopologyPath>() {
  static const RecordSchema<TopologyPath> schema{kTopologyPathFields};
  return schema;
}

const Field<TopologyResult> kTopologyFields[] = {
    member<&TopologyResult::nodes>("nodes"),
    member<&TopologyResult::links>("links"),
    member<&TopologyResult::paths>("paths"),
};
template <>
const RecordSchema<TopologyResult>& schema_of<TopologyResult>() {
  static const RecordSchema<TopologyResult> schema{kTopologyFields};
  return schema;
}

bool has_topology(const ScenarioResult& scenario) { return !scenario.topology.empty(); }

bool has_links(const ScenarioResult& scenario) { return !scenario.links.empty(); }

bool has_nic_checks(const ScenarioResult& scenario) {
  return !scenario.nic_checks.empty();
}

bool has_queue_depth(const ScenarioResult& scenario) {
  return !scenario.queue_depth.empty();
}

const Field<Starvation> kStarvationFields[] = {
    member<&Starvation::lost_ns>("lost_ns"),
    member<&Starvation::run_ns>("run_ns"),
    member<&Starvation::lost_fraction>("lost_fraction"),
    member<&Starvation::run_delay_ns>("run_delay_ns"),
    member<&Starvation::stalled_ns>("stalled_ns"),
    member<&Starvation::longest_stall_ns>("longest_stall_ns"),
    member<&Starvation::stalls>("stalls"),
    member<&Starvation::involuntary_switches>("involuntary_switches"),
    member<&Starvation::unreliable>("unreliable"),
    member<&Starvation::invalid>("invalid"),
};
template <>
const RecordSchema<Starvation>& schema_of<Starvation>() {
  static const RecordSchema<Starvation> schema{
      kStarvationFields, [](Starvation& starvation) { starvation.present = true; }};
  return schema;
}

bool has_starvation(const ScenarioResult& scenario) {
  return scenario.starvation.present;
}

bool bin_was_coarsened(const ScenarioResult& scenario) {
  return scenario.bin_requested_ns != 0;
}

// Flows carry their class fields only in scenarios with classes.
struct ScenarioFlows {
  static Json write(const ScenarioResult& scenario) {
    Json out = Json::array();
    for (const FlowResult& flow : scenario.flows) {
      Json& item = out.emplace_back(Json::object());
      const auto add = [&](std::span<const Field<FlowResult>> fields) {
        for (const Field<FlowResult>& field : fields) {
          if (field.written == nullptr || field.written(flow)) {
            item[std::string(field.key)] = field.write(flow);
          }
        }
      };
      add(kFlowFields);
      if (!scenario.classes.empty()) add(kFlowClassFields);
    }
    return out;
  }
  static void read(const JsonNode& node, ScenarioResult& scenario) {
    node.each([&](const JsonNode& item) {
      FlowResult& flow = scenario.flows.emplace_back();
      read_fields<FlowResult>(item, kFlowFields, flow);
      read_fields<FlowResult>(item, kFlowClassFields, flow);
    });
  }
  static void describe(const std::string& path, std::vector<SchemaField>& out) {
    describe_fields<FlowResult>(kFlowFields, path + "[]", out);
    describe_fields<FlowResult>(kFlowClassFields, path + "[]", out);
  }
};

bool has_partial_repetitions(const ScenarioResult& scenario) {
  return scenario.repetitions_partial != 0;
}

bool has_classes_or_notes(const ScenarioResult& scenario) {
  return !scenario.classes.empty() || !scenario.oracle_notes.empty();
}

bool has_host_trees(const ScenarioResult& scenario) {
  return !scenario.host_trees.empty();
}
bool has_arbitration(const ScenarioResult& scenario) {
  return !scenario.arbitration.empty();
}

const Field<ScenarioResult> kScenarioFields[] = {
    member<&ScenarioResult::name>("name"),
    member<&ScenarioResult::passed>("passed"),
    member<&ScenarioResult::transport>("transport"),
    member<&ScenarioResult::mtu_bytes>("mtu_bytes"),
    member<&ScenarioResult::capacity_bps>("capacity_bps"),
    // Every rate in the file counts wire bytes; a reader that finds another basis stops.
    {"rate_basis", Presence::required, [](const ScenarioResult&) -> Json { return "wire"; },
     [](const JsonNode& node, ScenarioResult&) {
       if (const std::string basis = node.str(); basis != "wire") {
         node.fail("expected \"wire\", found \"" + basis + "\"");
       }
     },
     nullptr},
    member<&ScenarioResult::seed>("seed"),
    member<&ScenarioResult::repetitions>("repetitions"),
    member<&ScenarioResult::repetitions_completed>("repetitions_completed"),
    // Only after an interrupted run: complete results stay as they were.
    member<&ScenarioResult::repetitions_partial>("repetitions_partial", Presence::optional,
                                                 has_partial_repetitions),
    member<&ScenarioResult::measured_ns_reps>("measured_ns_reps", Presence::optional,
                                              has_partial_repetitions),
    member<&ScenarioResult::warmup_ns>("warmup_ns"),
    member<&ScenarioResult::duration_ns>("duration_ns"),
    member<&ScenarioResult::bin_ns>("bin_ns"),
    // Only when the suite's bin was coarsened (results say which bin was asked for).
    member<&ScenarioResult::bin_requested_ns>("bin_requested_ns", Presence::optional,
                                              bin_was_coarsened),
    member<&ScenarioResult::wall_seconds>("wall_seconds"),
    member<&ScenarioResult::fairness>("fairness"),
    // Only for congestion control (flows joining later, a DPA program).
    member<&ScenarioResult::convergence>("convergence", Presence::optional, has_convergence),
    // Only from real-time drivers (older files and simulator results have none).
    member<&ScenarioResult::starvation>("starvation", Presence::optional, has_starvation),
    member<&ScenarioResult::gates>("gates"),
    member<&ScenarioResult::groups>("groups"),
    {"flows", Presence::required, ScenarioFlows::write, ScenarioFlows::read,
     ScenarioFlows::describe},
    member<&ScenarioResult::tree>("tree"),
    // Only with several hosts: the tree of each host's NIC ("tree" sums them).
    member<&ScenarioResult::host_trees>("host_trees", Presence::optional, has_host_trees),
    member<&ScenarioResult::driver_stats>("driver_stats"),
    member<&ScenarioResult::nic_checks>("nic_checks", Presence::optional, has_nic_checks),
    member<&ScenarioResult::links>("links", Presence::optional, has_links),
    member<&ScenarioResult::victims>("victims", Presence::optional, has_links),
    // Only with a [topology]: its graph and the flows' paths, for the report's drawing.
    member<&ScenarioResult::topology>("topology", Presence::optional, has_topology),
    // Only when the driver models a switch queue (congestion suites on the simulator).
    member<&ScenarioResult::queue_depth>("queue_depth", Presence::optional, has_queue_depth),
    // Only with classes or oracle notes: other results stay as before classes existed.
    member<&ScenarioResult::classes>("classes", Presence::optional, has_classes_or_notes),
    member<&ScenarioResult::oracle_notes>("oracle_notes", Presence::optional, has_classes_or_notes),
    // Only when a port arbitrates between classes (ETS or VLArb).
    member<&ScenarioResult::arbitration>("arbitration", Presence::optional, has_arbitration),
    // Only when a class or flow is expected far below what it offers (suite/shortfall.hpp).
    member<&ScenarioResult::shortfalls>(
        "shortfalls", Presence::optional,
        [](const ScenarioResult& scenario) { return !scenario.shortfalls.empty(); }),
};
template <>
const RecordSchema<ScenarioResult>& schema_of<ScenarioResult>() {
  static const RecordSchema<ScenarioResult> schema{kScenarioFields};
  return schema;
}

const Field<Verdict> kVerdictFields[] = {
    member<&Verdict::summary>("summary"),
    member<&Verdict::judged>("judged"),
    member<&Verdict::held>("held"),
    member<&Verdict::failed>("failed"),
    member<&Verdict::not_judged>("not_judged"),
};
template <>
const RecordSchema<Verdict>& schema_of<Verdict>() {
  static const RecordSchema<Verdict> schema{kVerdictFields};
  return schema;
}

const Field<Results> kResultsFields[] = {
    member<&Results::schema>("schema"),
    member<&Results::passed>("passed"),
    member<&Results::complete>("complete"),
    member<&Results::interrupted>("interrupted", Presence::optional,
                                  [](const Results& r) { return r.interrupted; }),
    // Optional for files written before it: the reader derives it from the gates.
    member<&Results::verdict>("verdict", Presence::optional),
    member<&Results::suite>("suite"),
    member<&Results::suite_file>("suite_file"),
    member<&Results::config_hash>("config_hash"),
    member<&Results::tool_version>("tool_version"),
    member<&Results::driver>("driver"),
    member<&Results::clock>("clock"),
    member<&Results::host>("host"),
    member<&Results::date_utc>("date"),
    member<&Results::jobs>("jobs"),
    member<&Results::wall_seconds>("wall_seconds"),
    member<&Results::warnings>("warnings"),
    member<&Results::nic_left_changed>(
        "nic_left_changed", Presence::optional,
        [](const Results& r) { return !r.nic_left_changed.empty(); }),
    member<&Results::scenarios>("scenarios"),
};
template <>
const RecordSchema<Results>& schema_of<Results>() {
  static const RecordSchema<Results> schema{kResultsFields};
  return schema;
}

// ---------------------------------------------------------------------------------------------
// A sender-only run's document: the run's fields are the results' own (taken from
// kResultsFields by key), then per scenario what was sent; its starvation object is the
// results' one (kStarvationFields).

const Field<Results>& results_field(std::string_view key) {
  const auto found = std::find_if(std::begin(kResultsFields), std::end(kResultsFields),
                                  [&](const Field<Results>& field) { return field.key == key; });
  if (found == std::end(kResultsFields)) {
    throw std::logic_error("no results field \"" + std::string(key) + "\"");
  }
  return *found;
}

template <size_t N>
struct FieldKey {
  char text[N];
  constexpr FieldKey(const char (&key)[N]) { std::copy_n(key, N, text); }
  constexpr std::string_view view() const { return {text, N - 1}; }
};

/// The results' field `Key`, held by a sender-only document's `run`.
template <FieldKey Key>
Field<SenderResults> run_field() {
  const Field<Results>& field = results_field(Key.view());
  return {field.key, field.presence,
          [](const SenderResults& sender) -> Json {
            return results_field(Key.view()).write(sender.run);
          },
          [](const JsonNode& node, SenderResults& sender) {
            results_field(Key.view()).read(node, sender.run);
          },
          nullptr};
}

const Field<SenderFlowTotals> kSenderFlowName[] = {member<&SenderFlowTotals::name>("name")};
// What a sender counts (engine/counters.hpp).
const std::vector<Field<SenderFlowTotals>> kSenderFlowFields =
    with_counters<SenderFlowTotals, &SenderFlowTotals::counts>(kSenderFlowName, sender_side);
template <>
const RecordSchema<SenderFlowTotals>& schema_of<SenderFlowTotals>() {
  static const RecordSchema<SenderFlowTotals> schema{kSenderFlowFields};
  return schema;
}

bool sender_has_starvation(const SenderScenarioTotals& scenario) {
  return scenario.starvation.present;
}

const Field<SenderScenarioTotals> kSenderScenarioFields[] = {
    member<&SenderScenarioTotals::name>("name"),
    member<&SenderScenarioTotals::repetitions_ran>("repetitions_completed"),
    member<&SenderScenarioTotals::repetition_ns>("repetition_ns"),
    member<&SenderScenarioTotals::sent_seconds>("sent_seconds"),
    member<&SenderScenarioTotals::tx_frames>("tx_frames"),
    member<&SenderScenarioTotals::tx_bytes>("tx_bytes"),
    // tx_frames / sent_seconds / 1e6: written for readers, recomputed from the two.
    {"tx_mpps", Presence::required,
     [](const SenderScenarioTotals& scenario) -> Json { return number(scenario.tx_mpps()); },
     [](const JsonNode& node, SenderScenarioTotals&) { node.number(); }, nullptr},
    member<&SenderScenarioTotals::flows>("flows"),
    // Only from a sender whose worker was watched (as the results' "starvation").
    member<&SenderScenarioTotals::starvation>("starvation", Presence::optional,
                                              sender_has_starvation),
};
template <>
const RecordSchema<SenderScenarioTotals>& schema_of<SenderScenarioTotals>() {
  static const RecordSchema<SenderScenarioTotals> schema{kSenderScenarioFields};
  return schema;
}

const Field<SenderResults> kSenderResultsFields[] = {
    run_field<"schema">(),
    // What tells a reader there is nothing to judge (results_reader.cpp refuses the file).
    {"sender_only", Presence::required, [](const SenderResults&) -> Json { return true; },
     [](const JsonNode& node, SenderResults&) { node.boolean(); }, nullptr},
    run_field<"complete">(),
    run_field<"suite">(),
    run_field<"suite_file">(),
    run_field<"config_hash">(),
    run_field<"tool_version">(),
    run_field<"driver">(),
    run_field<"clock">(),
    run_field<"host">(),
    run_field<"date">(),
    run_field<"wall_seconds">(),
    member<&SenderResults::scenarios>("scenarios"),
};
template <>
const RecordSchema<SenderResults>& schema_of<SenderResults>() {
  static const RecordSchema<SenderResults> schema{kSenderResultsFields};
  return schema;
}

}  // namespace

Json results_document(const Results& results) {
  return write_record(results);
}

Results read_results_document(const JsonNode& root) {
  return read_record<Results>(root);
}

std::vector<SchemaField> results_schema_fields() {
  std::vector<SchemaField> out;
  describe_fields(schema_of<Results>().fields, "", out);
  return out;
}

Json sender_results_document(const SenderResults& results) {
  return write_record(results);
}

std::vector<SchemaField> sender_results_schema_fields() {
  std::vector<SchemaField> out;
  describe_fields(schema_of<SenderResults>().fields, "", out);
  return out;
}

}  // namespace qb::report
