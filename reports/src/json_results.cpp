#include "qb/reports/json_results.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace qb::report {
namespace {

using Json = nlohmann::ordered_json;

// JSON has no infinity: an unbounded figure (a saturating demand) is written as null.
Json number(double value) {
  return std::isfinite(value) ? Json(value) : Json(nullptr);
}

Json optional_number(const std::optional<double>& value) {
  return value ? number(*value) : Json(nullptr);
}

Json latency_json(const LatencySummary& latency) {
  Json spectrum = Json::array();
  for (const auto& [percentile, value] : latency.spectrum) spectrum.push_back({percentile, value});
  return Json{{"p50", latency.p50_ns},           {"p90", latency.p90_ns},
              {"p99", latency.p99_ns},           {"p999", latency.p999_ns},
              {"max", latency.max_ns},           {"min", latency.min_ns},
              {"mean", number(latency.mean_ns)}, {"count", latency.count},
              {"spectrum", std::move(spectrum)}};
}

Json latency_reps_json(const LatencyReps& reps) {
  return Json{
      {"p50", reps.p50_ns}, {"p90", reps.p90_ns}, {"p99", reps.p99_ns}, {"p999", reps.p999_ns}};
}

Json numbers(const std::vector<double>& values) {
  Json out = Json::array();
  for (double value : values) out.push_back(number(value));
  return out;
}

Json flow_json(const FlowResult& flow) {
  return Json{{"name", flow.name},
              {"group", flow.group},
              {"leaf", flow.leaf},
              {"offered_bps", optional_number(flow.offered_bps)},
              {"expected_bps", number(flow.expected_bps)},
              {"measured_bps", number(flow.measured_bps)},
              {"measured_payload_bps", number(flow.measured_payload_bps)},
              {"error", number(flow.error)},
              {"measured_bps_reps", numbers(flow.measured_bps_reps)},
              {"messages", flow.messages},
              {"packets", flow.packets},
              {"payload_bytes", flow.payload_bytes},
              {"wire_bytes", flow.wire_bytes},
              {"drops", flow.drops},
              {"late_posts", flow.late_posts},
              {"latency_ns", latency_json(flow.latency)},
              {"latency_from_sent_ns", latency_json(flow.latency_from_sent)},
              {"latency_ns_reps", latency_reps_json(flow.latency_reps)},
              {"series_bps", numbers(flow.series_bps)}};
}

// Only for scenarios with classes: other results stay byte-identical to before classes existed.
void add_flow_class_fields(Json& out, const FlowResult& flow) {
  out["host"] = flow.host;
  out["tclass"] = flow.tclass;
  out["dscp"] = flow.dscp;
  out["sl"] = flow.sl;
  out["priority"] = flow.priority;
  out["arb_class"] = flow.arb_class;
}

Json class_json(const ClassResult& c) {
  return Json{{"name", c.name},
              {"flows", c.flows},
              {"expected_bps", number(c.expected_bps)},
              {"measured_bps", number(c.measured_bps)},
              {"error", number(c.error)},
              {"expected_share", number(c.expected_share)},
              {"measured_share", number(c.measured_share)},
              {"latency_ns", latency_json(c.latency)}};
}

Json group_json(const GroupResult& group) {
  return Json{{"name", group.name},
              {"leaf", group.leaf},
              {"flows", group.flows},
              {"expected_bps", number(group.expected_bps)},
              {"measured_bps", number(group.measured_bps)},
              {"error", number(group.error)},
              {"measured_bps_reps", numbers(group.measured_bps_reps)},
              {"latency_ns", latency_json(group.latency)},
              {"latency_from_sent_ns", latency_json(group.latency_from_sent)},
              {"latency_ns_reps", latency_reps_json(group.latency_reps)},
              {"series_bps", numbers(group.series_bps)}};
}

Json element_json(const ElementResult& element) {
  return Json{{"name", element.name},
              {"parent", element.parent.empty() ? Json(nullptr) : Json(element.parent)},
              {"kind", element.is_leaf ? "leaf" : "node"},
              {"bw_share", element.bw_share},
              {"weight", element.weight},
              {"cap_bps", optional_number(element.cap_bps)},
              {"demand_bps", number(element.demand_bps)},
              {"expected_bps", number(element.expected_bps)},
              {"measured_bps", number(element.measured_bps)}};
}

Json gate_json(const GateResult& gate) {
  return Json{{"name", gate.name},           {"passed", gate.passed},
              {"value", number(gate.value)}, {"threshold", number(gate.threshold)},
              {"unit", gate.unit},           {"detail", gate.detail}};
}

Json scenario_json(const ScenarioResult& scenario) {
  Json flows = Json::array(), groups = Json::array(), tree = Json::array(), gates = Json::array();
  const bool has_classes = !scenario.classes.empty();
  for (const auto& flow : scenario.flows) {
    flows.push_back(flow_json(flow));
    if (has_classes) add_flow_class_fields(flows.back(), flow);
  }
  for (const auto& group : scenario.groups) groups.push_back(group_json(group));
  for (const auto& element : scenario.tree) tree.push_back(element_json(element));
  for (const auto& gate : scenario.gates) gates.push_back(gate_json(gate));
  Json stats = Json::object();
  for (const auto& [name, value] : scenario.driver_stats) stats[name] = number(value);
  Json out{{"name", scenario.name},
           {"passed", scenario.passed},
           {"transport", scenario.transport},
           {"mtu_bytes", scenario.mtu_bytes},
           {"capacity_bps", number(scenario.capacity_bps)},
           {"rate_basis", "wire"},
           {"seed", scenario.seed},
           {"repetitions", scenario.repetitions},
           {"repetitions_completed", scenario.repetitions_completed},
           {"warmup_ns", scenario.warmup_ns},
           {"duration_ns", scenario.duration_ns},
           {"bin_ns", scenario.bin_ns},
           {"wall_seconds", number(scenario.wall_seconds)},
           {"fairness",
            {{"jain", number(scenario.fairness.jain)},
             {"worst_flow_error", number(scenario.fairness.worst_flow_error)},
             {"worst_flow", scenario.fairness.worst_flow},
             {"worst_group_error", number(scenario.fairness.worst_group_error)},
             {"worst_group", scenario.fairness.worst_group},
             {"jain_series", numbers(scenario.fairness.jain_series)},
             {"jain_reps", numbers(scenario.fairness.jain_reps)}}},
           {"gates", std::move(gates)},
           {"groups", std::move(groups)},
           {"flows", std::move(flows)},
           {"tree", std::move(tree)},
           {"driver_stats", std::move(stats)}};
  if (has_classes || !scenario.oracle_notes.empty()) {
    Json classes = Json::array();
    for (const auto& c : scenario.classes) classes.push_back(class_json(c));
    out["classes"] = std::move(classes);
    out["oracle_notes"] = scenario.oracle_notes;
  }
  return out;
}

}  // namespace

std::string results_to_json(const Results& results, int indent) {
  Json scenarios = Json::array();
  for (const auto& scenario : results.scenarios) scenarios.push_back(scenario_json(scenario));
  Json root{{"schema", results.schema},
            {"passed", results.passed},
            {"complete", results.complete},
            {"suite", results.suite},
            {"suite_file", results.suite_file},
            {"config_hash", results.config_hash},
            {"tool_version", results.tool_version},
            {"driver", results.driver},
            {"clock", results.clock},
            {"host", results.host},
            {"date", results.date_utc},
            {"jobs", results.jobs},
            {"wall_seconds", number(results.wall_seconds)},
            {"warnings", results.warnings},
            {"scenarios", std::move(scenarios)}};
  return root.dump(indent) + "\n";
}

}  // namespace qb::report
