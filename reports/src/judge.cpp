#include "qb/reports/judge.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <map>


namespace qb::report {
namespace {

// Percentile spectrum points, dense towards the tail (plotted on a log 1/(1-p) axis).
constexpr double kSpectrumPercentiles[] = {0,    25,   50,    75,    90,     95,     99,
                                           99.5, 99.9, 99.95, 99.99, 99.995, 99.999, 100};

LatencySummary summarise(const engine::Histogram& histogram) {
  LatencySummary out;
  out.count = histogram.count();
  if (out.count == 0) return out;
  out.p50_ns = histogram.value_at_percentile(50);
  out.p90_ns = histogram.value_at_percentile(90);
  out.p99_ns = histogram.value_at_percentile(99);
  out.p999_ns = histogram.value_at_percentile(99.9);
  out.max_ns = histogram.max();
  out.min_ns = histogram.min();
  out.mean_ns = histogram.mean();
  for (double p : kSpectrumPercentiles) {
    out.spectrum.emplace_back(p, histogram.value_at_percentile(p));
  }
  return out;
}

void add_repetition(LatencyReps& reps, const engine::RepetitionLatency& latency) {
  reps.p50_ns.push_back(latency.p50_ns);
  reps.p90_ns.push_back(latency.p90_ns);
  reps.p99_ns.push_back(latency.p99_ns);
  reps.p999_ns.push_back(latency.p999_ns);
}

double relative_error(double measured, double expected) noexcept {
  if (expected > 0) return measured / expected - 1.0;
  return measured > 0 ? 1.0 : 0.0;  // nothing was expected: any traffic is a full error
}

// The flows a latency gate names: one flow instance, or every instance of a group.
std::vector<size_t> flows_named(const ScenarioResult& scenario, const std::string& name) {
  std::vector<size_t> out;
  for (size_t f = 0; f < scenario.flows.size(); ++f) {
    if (scenario.flows[f].name == name || scenario.flows[f].group == name) out.push_back(f);
  }
  return out;
}

void judge_gates(const suite::GateSpec& spec, const engine::ScenarioRun& run,
                 ScenarioResult& scenario) {
  const Fairness& fair = scenario.fairness;
  if (spec.max_share_error) {
    scenario.gates.push_back(
        GateResult{"max_share_error", fair.worst_flow_error <= *spec.max_share_error,
                   fair.worst_flow_error, *spec.max_share_error, "",
                   "worst flow: " + fair.worst_flow, GateKind::ratio, GateBound::at_most});
  }
  if (spec.max_group_share_error) {
    scenario.gates.push_back(
        GateResult{"max_group_share_error", fair.worst_group_error <= *spec.max_group_share_error,
                   fair.worst_group_error, *spec.max_group_share_error, "",
                   "worst group: " + fair.worst_group, GateKind::ratio, GateBound::at_most});
  }
  if (spec.min_jain) {
    scenario.gates.push_back(GateResult{"min_jain", fair.jain >= *spec.min_jain, fair.jain,
                                        *spec.min_jain, "", "", GateKind::index,
                                        GateBound::at_least});
  }
  if (spec.max_cap_overshoot) {
    double worst = 0.0;
    std::string worst_name = "no capped element";
    for (const auto& element : scenario.tree) {
      if (!element.cap_bps) continue;
      const double overshoot = element.measured_bps / *element.cap_bps - 1.0;
      if (worst_name == "no capped element" || overshoot > worst) {
        worst = overshoot;
        worst_name = element.name;
      }
    }
    scenario.gates.push_back(GateResult{
        "max_cap_overshoot", worst <= *spec.max_cap_overshoot, worst, *spec.max_cap_overshoot, "",
        "worst element: " + worst_name, GateKind::ratio, GateBound::at_most});
  }
  for (const auto& gate : spec.latency) {
    engine::Histogram merged;
    for (size_t f : flows_named(scenario, gate.flow)) {
      const auto& latency = run.latency[f];
      merged.merge(gate.basis == suite::LatencyGate::Basis::sent ? latency.from_sent_ns
                                                                  : latency.from_scheduled_ns);
    }
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
void judge_classes(const engine::ScenarioRun& run, ScenarioResult& out) {
  const policy::QosPlan& plan = run.compiled.plan;
  const policy::PortQos& qos = plan.deciding_port_qos();
  const double capacity = plan.deciding_port_capacity_bps();
  std::map<uint32_t, std::vector<size_t>> members;
  for (size_t f = 0; f < plan.flows.size(); ++f) {
    members[plan.deciding_class_of(plan.flows[f])].push_back(f);
  }
  for (const auto& [arb_class, flows] : members) {
    ClassResult result;
    result.name = policy::arb_class_name(qos, arb_class);
    engine::Histogram latency;
    for (const size_t f : flows) {
      ++result.flows;
      result.expected_bps += out.flows[f].expected_bps;
      result.measured_bps += out.flows[f].measured_bps;
      latency.merge(run.latency[f].from_scheduled_ns);
    }
    result.error = relative_error(result.measured_bps, result.expected_bps);
    if (capacity > 0) {
      result.expected_share = result.expected_bps / capacity;
      result.measured_share = result.measured_bps / capacity;
    }
    result.latency = summarise(latency);
    out.classes.push_back(std::move(result));
  }
  out.oracle_notes = run.compiled.oracle_notes;
}

ScenarioResult judge_scenario(const engine::ScenarioRun& run, uint64_t& delivered_packets) {
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

  const double duration_s = static_cast<double>(run.duration_ns) * 1e-9;
  std::vector<const engine::RepetitionMeasurement*> reps;
  for (const auto& rep : run.reps) {
    if (rep.ran) reps.push_back(&rep);
  }
  out.repetitions_completed = static_cast<uint32_t>(reps.size());
  // Driver stats are averaged over repetitions: that keeps counters (per repetition), maxima and
  // ratios all meaningful without knowing what each one is.
  std::map<std::string, double> stats;
  for (const auto* rep : reps) {
    out.wall_seconds += rep->wall_seconds;
    for (const auto& [name, value] : rep->driver_stats) {
      stats[name] += value / static_cast<double>(reps.size());
    }
  }
  out.driver_stats.assign(stats.begin(), stats.end());

  const size_t bins = reps.empty() ? 0 : reps.front()->flows.front().series_wire_bytes.size();
  auto bin_seconds = [&](size_t b) {
    const int64_t start = static_cast<int64_t>(b) * run.bin_ns;
    return static_cast<double>(std::min(run.bin_ns, run.duration_ns - start)) * 1e-9;
  };
  const double rep_count = std::max<double>(1.0, static_cast<double>(reps.size()));

  // Flows.
  for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
    const auto& plan = compiled.plan.flows[f];
    FlowResult flow;
    flow.name = plan.name;
    flow.group = plan.group;
    flow.leaf = tree.elements[plan.leaf].name;
    if (std::isfinite(compiled.offered_bps[f])) flow.offered_bps = compiled.offered_bps[f];
    flow.expected_bps = compiled.expected.flow_bps[f];
    flow.series_bps.assign(bins, 0.0);
    double payload_sum = 0.0;
    for (const auto* rep : reps) {
      const engine::FlowCounters& c = rep->flows[f];
      flow.measured_bps_reps.push_back(static_cast<double>(c.wire_bytes) * 8.0 / duration_s);
      payload_sum += static_cast<double>(c.payload_bytes) * 8.0 / duration_s;
      flow.messages += c.messages;
      flow.packets += c.packets;
      flow.payload_bytes += c.payload_bytes;
      flow.wire_bytes += c.wire_bytes;
      flow.drops += c.drops;
      flow.late_posts += c.late_posts;
      if (f < rep->flow_latency.size()) add_repetition(flow.latency_reps, rep->flow_latency[f]);
      for (size_t b = 0; b < bins && b < c.series_wire_bytes.size(); ++b) {
        flow.series_bps[b] +=
            static_cast<double>(c.series_wire_bytes[b]) * 8.0 / bin_seconds(b) / rep_count;
      }
    }
    delivered_packets += flow.packets;
    for (double bps : flow.measured_bps_reps) flow.measured_bps += bps / rep_count;
    flow.measured_payload_bps = payload_sum / rep_count;
    flow.error = relative_error(flow.measured_bps, flow.expected_bps);
    flow.latency = summarise(run.latency[f].from_scheduled_ns);
    flow.latency_from_sent = summarise(run.latency[f].from_sent_ns);
    flow.host = plan.host;
    flow.tclass = policy::tc_name(plan.tx_tclass);
    flow.dscp = plan.dscp;
    flow.sl = plan.sl;
    flow.priority = plan.priority;
    flow.arb_class =
        policy::arb_class_name(compiled.plan.deciding_port_qos(), compiled.plan.deciding_class_of(plan));
    out.flows.push_back(std::move(flow));
  }

  // Groups, in the order the suite lists its flows.
  for (uint32_t spec_index = 0; spec_index < spec.flows.size(); ++spec_index) {
    GroupResult group;
    group.name = spec.flows[spec_index].name;
    group.measured_bps_reps.assign(reps.size(), 0.0);
    group.series_bps.assign(bins, 0.0);
    engine::Histogram scheduled, sent;
    for (size_t f = 0; f < out.flows.size(); ++f) {
      if (compiled.flow_spec[f] != spec_index) continue;
      const FlowResult& flow = out.flows[f];
      group.leaf = flow.leaf;
      ++group.flows;
      group.expected_bps += flow.expected_bps;
      group.measured_bps += flow.measured_bps;
      for (size_t r = 0; r < flow.measured_bps_reps.size(); ++r) {
        group.measured_bps_reps[r] += flow.measured_bps_reps[r];
      }
      for (size_t b = 0; b < bins; ++b) group.series_bps[b] += flow.series_bps[b];
      scheduled.merge(run.latency[f].from_scheduled_ns);
      sent.merge(run.latency[f].from_sent_ns);
    }
    for (const auto* rep : reps) {
      if (spec_index < rep->group_latency.size()) {
        add_repetition(group.latency_reps, rep->group_latency[spec_index]);
      }
    }
    group.error = relative_error(group.measured_bps, group.expected_bps);
    group.latency = summarise(scheduled);
    group.latency_from_sent = summarise(sent);
    out.groups.push_back(std::move(group));
  }

  if (compiled.plan.has_classes()) judge_classes(run, out);

  // The tree, with what every element carried (a flow counts at its leaf and every ancestor).
  std::vector<double> element_measured(tree.elements.size(), 0.0);
  for (size_t f = 0; f < out.flows.size(); ++f) {
    for (uint32_t e = compiled.plan.flows[f].leaf; e != policy::SchedTree::kNoParent;
         e = tree.elements[e].parent) {
      element_measured[e] += out.flows[f].measured_bps;
    }
  }
  for (size_t e = 0; e < tree.elements.size(); ++e) {
    const auto& element = tree.elements[e];
    ElementResult result;
    result.name = element.name;
    if (element.parent != policy::SchedTree::kNoParent) {
      result.parent = tree.elements[element.parent].name;
    }
    result.is_leaf = element.is_leaf;
    result.bw_share = element.bw_share;
    result.weight = element.weight;
    if (element.max_avg_bw_bps > 0) result.cap_bps = element.max_avg_bw_bps;
    result.demand_bps = compiled.expected.element_demand_bps[e];
    result.expected_bps = compiled.expected.element_bps[e];
    result.measured_bps = element_measured[e];
    out.tree.push_back(std::move(result));
  }

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
  for (size_t r = 0; r < reps.size(); ++r) {
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
  for (size_t b = 0; b < bins; ++b) {
    std::vector<double> bin_ratios;
    for (const auto& flow : out.flows) {
      if (flow.expected_bps > 0) bin_ratios.push_back(flow.series_bps[b] / flow.expected_bps);
    }
    out.fairness.jain_series.push_back(jain_index(bin_ratios));
  }

  judge_gates(spec.gates, run, out);
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

Result<Results> judge(const suite::Suite& suite, const engine::SuiteRun& run,
                      const RunMetadata& metadata) {
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
  for (const auto& scenario_run : run.scenarios) {
    results.scenarios.push_back(judge_scenario(scenario_run, delivered_packets));
    results.passed = results.passed && results.scenarios.back().passed;
  }
  if (run.complete && delivered_packets == 0) {
    return make_error(Errc::invalid_measurement,
                      "no packet reached a receiver during the measured window: nothing to judge "
                      "(is the duration long enough, and does the driver carry traffic?)");
  }
  // An incomplete run cannot pass: its figures cover less than the suite asked for.
  results.passed = results.passed && results.complete;
  return results;
}

}  // namespace qb::report
