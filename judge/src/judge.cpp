#include "qb/judge/judge.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "convergence.hpp"
#include "policy_results.hpp"
#include "qb/common/units.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run_memory.hpp"
#include "qb/judge/starvation_verdict.hpp"

namespace qb::judge {
namespace {

double relative_error(double measured, double expected) noexcept {
  if (expected > 0) return measured / expected - 1.0;
  return measured > 0 ? 1.0 : 0.0;  // nothing was expected: any traffic is a full error
}

// The latency histograms a gate names: a flow instance's, or a group's (its instances merged
// by the measurement).
const engine::FlowLatency* latency_named(const engine::ScenarioMeasurement& measured,
                                         const ScenarioResult& scenario, const std::string& name) {
  for (size_t f = 0; f < scenario.flows.size(); ++f) {
    if (scenario.flows[f].name == name) return &measured.flows[f].histograms;
  }
  for (size_t g = 0; g < scenario.groups.size(); ++g) {
    if (scenario.groups[g].name == name) return &measured.groups[g].histograms;
  }
  return nullptr;
}

void judge_gates(const suite::GateSpec& spec, const engine::ScenarioMeasurement& measured,
                 ScenarioResult& scenario) {
  const Fairness& fair = scenario.fairness;
  const Convergence& settled = scenario.convergence;
  if (spec.max_share_error) {
    if (settled.present) {
      // Congestion control: shares are judged once the rates settled, not while converging.
      scenario.gates.push_back(
          GateResult{"max_share_error", settled.worst_flow_error_settled <= *spec.max_share_error,
                     settled.worst_flow_error_settled, *spec.max_share_error, "",
                     fmt::format("worst flow: {} (settled, from {})", settled.worst_flow_settled,
                                 format_duration_ns(static_cast<double>(settled.settled_from_ns))),
                     GateKind::ratio, GateBound::at_most});
    } else {
      scenario.gates.push_back(
          GateResult{"max_share_error", fair.worst_flow_error <= *spec.max_share_error,
                     fair.worst_flow_error, *spec.max_share_error, "",
                     "worst flow: " + fair.worst_flow, GateKind::ratio, GateBound::at_most});
    }
  }
  if (spec.max_group_share_error) {
    scenario.gates.push_back(
        GateResult{"max_group_share_error", fair.worst_group_error <= *spec.max_group_share_error,
                   fair.worst_group_error, *spec.max_group_share_error, "",
                   "worst group: " + fair.worst_group, GateKind::ratio, GateBound::at_most});
  }
  if (spec.min_jain) {
    const double jain = settled.present ? settled.jain_settled : fair.jain;
    scenario.gates.push_back(GateResult{"min_jain", jain >= *spec.min_jain, jain, *spec.min_jain,
                                        "", settled.present ? "settled" : "", GateKind::index,
                                        GateBound::at_least});
  }
  if (spec.convergence_time_ns) {
    // Never converging (or nothing to judge) fails: the value is then +inf, written n/a.
    const double value = settled.present && settled.converged
                             ? static_cast<double>(settled.worst_time_ns)
                             : std::numeric_limits<double>::infinity();
    scenario.gates.push_back(
        GateResult{"convergence_time", value <= static_cast<double>(*spec.convergence_time_ns),
                   value, static_cast<double>(*spec.convergence_time_ns), "ns",
                   fmt::format("within {:g}% of the shares, slowest of {} change(s)",
                               spec.convergence_tolerance * 100.0, settled.epochs.size()),
                   GateKind::duration, GateBound::at_most});
  }
  if (spec.max_queue_depth_bytes) {
    // The driver's figure; a driver that measured no switch queue cannot pass the gate.
    double depth = std::numeric_limits<double>::infinity();
    for (const auto& [name, value] : measured.driver_stats) {
      if (name == "switch_queue_max_bytes") depth = value;
    }
    scenario.gates.push_back(
        GateResult{"max_queue_depth", depth <= static_cast<double>(*spec.max_queue_depth_bytes),
                   depth, static_cast<double>(*spec.max_queue_depth_bytes), "B",
                   "deepest switch egress class queue", GateKind::bytes, GateBound::at_most});
  }
  if (spec.max_cap_overshoot) {
    // Every NIC enforces the tree's caps on its own flows: with several hosts each host's tree
    // is held to them, not the merged tree (which may carry the cap once per host).
    double worst = 0.0;
    std::string worst_name = "no capped element";
    auto judge_tree = [&](const std::vector<ElementResult>& tree, const std::string& prefix) {
      for (const auto& element : tree) {
        if (!element.cap_bps) continue;
        const double overshoot = element.measured_bps / *element.cap_bps - 1.0;
        if (worst_name == "no capped element" || overshoot > worst) {
          worst = overshoot;
          worst_name = prefix + element.name;
        }
      }
    };
    if (scenario.host_trees.empty()) {
      judge_tree(scenario.tree, "");
    } else {
      for (const auto& host : scenario.host_trees) {
        judge_tree(host.tree, fmt::format("host {}: ", host.host));
      }
    }
    scenario.gates.push_back(GateResult{
        "max_cap_overshoot", worst <= *spec.max_cap_overshoot, worst, *spec.max_cap_overshoot, "",
        "worst element: " + worst_name, GateKind::ratio, GateBound::at_most});
  }
  for (const auto& gate : spec.latency) {
    static const engine::FlowLatency kNoSamples;
    const engine::FlowLatency* latency = latency_named(measured, scenario, gate.flow);
    if (latency == nullptr) latency = &kNoSamples;
    const engine::Histogram& merged = gate.basis == suite::LatencyGate::Basis::sent
                                          ? latency->from_sent_ns
                                          : latency->from_scheduled_ns;
    const char* basis = gate.basis == suite::LatencyGate::Basis::sent ? ",sent" : "";
    auto add = [&](const char* key, const std::optional<int64_t>& threshold, double percentile) {
      if (!threshold) return;
      const int64_t value =
          percentile >= 100 ? merged.max() : merged.value_at_percentile(percentile);
      // No samples at all is a failure: an empty histogram must not pass a latency bound.
      const bool passed = merged.count() > 0 && value <= *threshold;
      scenario.gates.push_back(GateResult{
          fmt::format("latency.{}[{}{}]", key, gate.flow, basis), passed,
          static_cast<double>(value), static_cast<double>(*threshold), "ns",
          fmt::format("{} samples", merged.count()), GateKind::duration, GateBound::at_most});
    };
    add("p50", gate.p50_ns, 50);
    add("p90", gate.p90_ns, 90);
    add("p99", gate.p99_ns, 99);
    add("p999", gate.p999_ns, 99.9);
    add("max", gate.max_ns, 100);
  }
  for (const auto& gate : scenario.gates) scenario.passed = scenario.passed && gate.passed;
}

// Per arbitration class at the port that decides the shares, in class order.
void judge_classes(const suite::CompiledScenario& compiled,
                   const engine::ScenarioMeasurement& measured, ScenarioResult& out) {
  const policy::QosPlan& plan = compiled.plan;
  const double capacity = plan.deciding_port_capacity_bps();
  for (const auto& [arb_class, measurement] : measured.classes) {
    ClassResult result;
    result.name = policy::arb_class_name(plan.deciding_port_qos(), arb_class);
    result.flows = measurement.flows;
    for (size_t f = 0; f < plan.flows.size(); ++f) {
      if (plan.deciding_class_of(plan.flows[f]) == arb_class) {
        result.expected_bps += out.flows[f].expected_bps;
      }
    }
    result.measured_bps = measurement.measured_bps;
    result.error = relative_error(result.measured_bps, result.expected_bps);
    if (capacity > 0) {
      result.expected_share = result.expected_bps / capacity;
      result.measured_share = result.measured_bps / capacity;
    }
    result.latency = measurement.latency;
    out.classes.push_back(std::move(result));
  }
  out.oracle_notes = compiled.oracle_notes;
}

// Expected (from the compiled scenario) against measured (from the measurement), per flow,
// group, class and tree element.
ScenarioResult judge_scenario(const engine::ScenarioRun& run,
                              const engine::ScenarioMeasurement& measured,
                              uint64_t& delivered_packets) {
  const suite::CompiledScenario& compiled = run.compiled;
  const suite::Scenario& spec = *compiled.scenario;
  const policy::SchedTree& tree = compiled.plan.tree;
  ScenarioResult out;
  out.name = spec.name;
  out.transport = std::string(policy::transport_name(compiled.plan.wire.transport));
  out.mtu_bytes = compiled.plan.wire.mtu_bytes;
  out.capacity_bps = compiled.plan.port_rate_bps;
  out.seed = run.seed;
  out.repetitions = run.repetitions;
  out.warmup_ns = run.warmup_ns;
  out.duration_ns = run.duration_ns;
  out.bin_ns = run.bin_ns;
  if (run.requested_bin_ns != 0 && run.requested_bin_ns != run.bin_ns) {
    out.bin_requested_ns = run.requested_bin_ns;
  }
  out.repetitions_completed = measured.repetitions_completed;
  out.repetitions_partial = measured.repetitions_partial;
  if (measured.repetitions_partial != 0) out.measured_ns_reps = measured.measured_ns_reps;
  out.wall_seconds = measured.wall_seconds;
  out.driver_stats = measured.driver_stats;
  for (const drv::QueueDepthSeries& q : measured.queue_depth) {
    out.queue_depth.push_back(QueueDepthSeries{q.name, q.max_bytes, q.mean_bytes});
  }
  out.starvation = starvation_of(run);

  for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
    const auto& plan = compiled.plan.flows[f];
    const engine::TrafficMeasurement& m = measured.flows[f];
    FlowResult flow;
    flow.name = plan.name;
    flow.group = plan.group;
    flow.leaf = tree.elements[plan.leaf].name;
    if (std::isfinite(compiled.offered_bps[f])) flow.offered_bps = compiled.offered_bps[f];
    flow.expected_bps = compiled.expected.flow_bps[f];
    flow.measured_bps = m.measured_bps;
    flow.measured_payload_bps = m.measured_payload_bps;
    flow.measured_bps_reps = m.measured_bps_reps;
    flow.messages = m.messages;
    flow.packets = m.packets;
    flow.payload_bytes = m.payload_bytes;
    flow.wire_bytes = m.wire_bytes;
    flow.drops = m.drops;
    flow.late_posts = m.late_posts;
    flow.latency = m.latency;
    flow.latency_from_sent = m.latency_from_sent;
    flow.latency_reps = m.latency_reps;
    flow.series_bps = m.series_bps;
    flow.error = relative_error(flow.measured_bps, flow.expected_bps);
    flow.host = plan.host;
    flow.tclass = policy::tc_name(plan.tx_tclass);
    flow.dscp = plan.dscp;
    flow.sl = plan.sl;
    flow.priority = plan.priority;
    flow.arb_class = policy::arb_class_name(compiled.plan.deciding_port_qos(),
                                            compiled.plan.deciding_class_of(plan));
    delivered_packets += flow.packets;
    out.flows.push_back(std::move(flow));
  }

  // Groups, in the order the suite lists its flows.
  for (uint32_t g = 0; g < spec.flows.size(); ++g) {
    const engine::TrafficMeasurement& m = measured.groups[g];
    GroupResult group;
    group.name = spec.flows[g].name;
    for (size_t f = 0; f < out.flows.size(); ++f) {
      if (compiled.flow_spec[f] != g) continue;
      group.leaf = out.flows[f].leaf;
      group.expected_bps += out.flows[f].expected_bps;
    }
    group.flows = m.flows;
    group.measured_bps = m.measured_bps;
    group.measured_bps_reps = m.measured_bps_reps;
    group.series_bps = m.series_bps;
    group.latency = m.latency;
    group.latency_from_sent = m.latency_from_sent;
    group.latency_reps = m.latency_reps;
    group.error = relative_error(group.measured_bps, group.expected_bps);
    out.groups.push_back(std::move(group));
  }

  if (compiled.plan.has_classes()) judge_classes(compiled, measured, out);

  for (size_t e = 0; e < tree.elements.size(); ++e) {
    out.tree.push_back(element_result(tree, e, compiled.expected.element_demand_bps[e],
                                      compiled.expected.element_bps[e], measured.element_bps[e]));
  }
  out.host_trees = host_tree_results(compiled, out.flows);
  out.arbitration = arbitration_results(compiled.plan);

  // Fairness.
  std::vector<double> ratios;
  for (const auto& flow : out.flows) {
    if (flow.expected_bps > 0) ratios.push_back(flow.measured_bps / flow.expected_bps);
    if (out.fairness.worst_flow.empty() || std::fabs(flow.error) > out.fairness.worst_flow_error) {
      out.fairness.worst_flow_error = std::fabs(flow.error);
      out.fairness.worst_flow = flow.name;
    }
  }
  out.fairness.jain = jain_index(ratios);
  for (size_t r = 0; r < measured.repetitions_completed + measured.repetitions_partial; ++r) {
    std::vector<double> rep_ratios;
    for (const auto& flow : out.flows) {
      if (flow.expected_bps > 0)
        rep_ratios.push_back(flow.measured_bps_reps[r] / flow.expected_bps);
    }
    out.fairness.jain_reps.push_back(jain_index(rep_ratios));
  }
  for (const auto& group : out.groups) {
    if (out.fairness.worst_group.empty() ||
        std::fabs(group.error) > out.fairness.worst_group_error) {
      out.fairness.worst_group_error = std::fabs(group.error);
      out.fairness.worst_group = group.name;
    }
  }
  for (size_t b = 0; b < measured.bins; ++b) {
    std::vector<double> bin_ratios;
    for (const auto& flow : out.flows) {
      if (flow.expected_bps > 0) bin_ratios.push_back(flow.series_bps[b] / flow.expected_bps);
    }
    out.fairness.jain_series.push_back(jain_index(bin_ratios));
  }

  judge_convergence(compiled, spec.gates.convergence_tolerance, out);
  judge_gates(spec.gates, measured, out);
  return out;
}

}  // namespace

double jain_index(const std::vector<double>& ratios) noexcept {
  double sum = 0.0, sum_squares = 0.0;
  for (double x : ratios) {
    sum += x;
    sum_squares += x * x;
  }
  if (ratios.empty() || sum_squares == 0.0) return ratios.empty() ? 1.0 : 0.0;
  return sum * sum / (static_cast<double>(ratios.size()) * sum_squares);
}

Result<Results> judge_run(const suite::Suite& suite, const engine::SuiteRun& run,
                      const engine::SuiteMeasurement& measurement, const RunMetadata& metadata) {
  Results results;
  results.tool_version = metadata.tool_version;
  results.suite = suite.name;
  results.suite_file = suite.file;
  results.config_hash = suite.config_hash;
  results.driver = run.driver;
  results.clock = run.clock;
  results.host = metadata.host;
  results.date_utc = metadata.date_utc;
  results.jobs = run.jobs;
  results.complete = run.complete;
  results.wall_seconds = run.wall_seconds;
  for (const auto* warnings : {&suite.warnings, &metadata.warnings}) {
    for (const auto& warning : *warnings) {
      results.warnings.push_back(warning.where.empty() ? warning.message
                                                       : warning.where + ": " + warning.message);
    }
  }
  uint64_t delivered_packets = 0;
  for (size_t s = 0; s < run.scenarios.size(); ++s) {
    results.scenarios.push_back(
        judge_scenario(run.scenarios[s], measurement.scenarios.at(s), delivered_packets));
    results.passed = results.passed && results.scenarios.back().passed;
  }
  if (run.complete && delivered_packets == 0) {
    return make_error(Errc::invalid_measurement,
                      "no packet reached a receiver during the measured window: nothing to judge "
                      "(is the duration long enough, and does the driver carry traffic?)");
  }
  // A series bin coarsened to keep at most kMaxSeriesBins bins: the suite asked for another.
  for (const ScenarioResult& scenario : results.scenarios) {
    if (scenario.bin_requested_ns == 0) continue;
    results.warnings.push_back(fmt::format(
        "scenario \"{}\": series bin {} requested, {} used (at most {} bins over the {} "
        "duration; bin_requested_ns and bin_ns in the results)",
        scenario.name, format_duration_ns(static_cast<double>(scenario.bin_requested_ns)),
        format_duration_ns(static_cast<double>(scenario.bin_ns)), engine::kMaxSeriesBins,
        format_duration_ns(static_cast<double>(scenario.duration_ns))));
  }
  // A starved worker's figures describe the machine, not the policy: said, and past the bound
  // the run cannot pass (the command exits 3).
  for (const ScenarioResult& scenario : results.scenarios) {
    if (scenario.starvation.unreliable) {
      results.warnings.push_back(starvation_message(scenario.name, scenario.starvation));
    }
  }
  // An incomplete run cannot pass: its figures cover less than the suite asked for.
  results.passed = results.passed && results.complete && !starved_invalid(results);
  return results;
}

}  // namespace qb::judge
