#include "qb/judge/judge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string_view>

#include "convergence.hpp"
#include "fabric_results.hpp"
#include "fabric_topology.hpp"
#include "nic_counter_checks.hpp"
#include "policy_results.hpp"
#include "qb/common/units.hpp"
#include "qb/engine/latency_summary.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run_memory.hpp"
#include "qb/judge/expectation_window.hpp"
#include "qb/judge/sampling_noise.hpp"
#include "qb/judge/starvation_verdict.hpp"
#include "qb/judge/verdict.hpp"
#include "qb/suite/shortfall.hpp"

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

// A judgement listed but not made, and why (off in the suite, nothing to judge).
GateResult not_judged_gate(std::string name, std::string why, GateKind kind, GateBound bound) {
  GateResult gate = gate_result(std::move(name), true, 0.0, 0.0, "", std::move(why), kind, bound);
  gate.judged = false;
  return gate;
}

// `limit` empty is a judgement turned off (the loader lists it in spec.off).
template <class Limit>
bool off_in_suite(const Limit& limit, const char* key, GateKind kind, GateBound bound,
                  ScenarioResult& scenario) {
  if (limit.has_value()) return false;
  scenario.gates.push_back(not_judged_gate(key, "off in the suite", kind, bound));
  return true;
}

// A share judgement over rows with errors and relative noise: the row that needs the least
// allowance to fail decides (largest |error| - allowance).
struct ShareRow {
  const std::string* name;
  double error;
  double noise;
};

// Why a gate over the flows (or groups: `what`) has none to judge: what every flow says when
// they all say the same (a fabric's expectation that is not defined, or one late start), else
// that none started in the measured window.
std::string nothing_to_judge(const ScenarioResult& scenario, const char* what) {
  const auto& flows = scenario.flows;
  if (!flows.empty() && !flows.front().not_judged.empty() &&
      std::all_of(flows.begin(), flows.end(), [&](const FlowResult& flow) {
        return flow.not_judged == flows.front().not_judged;
      })) {
    return flows.front().not_judged;
  }
  return fmt::format("no {} started in the measured window", what);
}

GateResult share_gate(const char* name, const char* what, const std::vector<ShareRow>& rows,
                      double limit, const std::string& span, const ScenarioResult& scenario) {
  if (rows.empty()) {
    return not_judged_gate(name, nothing_to_judge(scenario, what), GateKind::ratio,
                           GateBound::at_most);
  }
  const double z = noise_quantile(rows.size());
  const ShareRow* worst = &rows.front();
  for (const ShareRow& row : rows) {
    if (std::fabs(row.error) - z * row.noise > std::fabs(worst->error) - z * worst->noise) {
      worst = &row;
    }
  }
  GateResult gate = gate_result(
      name, false, std::fabs(worst->error), limit, "",
      fmt::format("worst {}: {} ({:+.3f}%{}){}", what, *worst->name, worst->error * 100.0,
                  worst->noise > 0.0
                      ? fmt::format(", sampling noise ±{:.3g}% at {:g}% confidence",
                                    z * worst->noise * 100.0, kNoiseConfidence * 100.0)
                      : "",
                  span),
      GateKind::ratio, GateBound::at_most);
  gate.allowance = z * worst->noise;
  gate.passed = gate.value <= gate.threshold + gate.allowance;
  gate.failure = fmt::format(
      "{} not held: {} {:+.1f}% (limit {:g}%{})",
      std::string_view(what) == "flow" ? "shares" : "group shares", *worst->name,
      worst->error * 100.0, limit * 100.0,
      gate.allowance > 0.0 ? fmt::format(" + ±{:.2g}% noise", gate.allowance * 100.0) : "");
  return gate;
}

// With joins or a program, the settled figures need an epoch judged inside the window.
bool no_epoch_judged(const Convergence& convergence) {
  if (!convergence.present) return false;
  for (const ConvergenceEpoch& epoch : convergence.epochs) {
    if (epoch.judged) return false;
  }
  return true;
}
constexpr const char* kNoEpochJudged =
    "no change of the active flows has a whole time bin in the window";

void judge_shares(const suite::GateSpec& spec, ScenarioResult& scenario) {
  const Convergence& settled = scenario.convergence;
  if (!off_in_suite(spec.max_share_error, "max_share_error", GateKind::ratio, GateBound::at_most,
                    scenario)) {
    std::vector<ShareRow> rows;
    std::string span;
    if (no_epoch_judged(settled)) {
      scenario.gates.push_back(
          not_judged_gate("max_share_error", kNoEpochJudged, GateKind::ratio, GateBound::at_most));
    } else if (settled.present) {
      // Congestion control: shares are judged once the rates settled, not while converging;
      // every (flow, epoch) is a row, so the confidence covers all of them.
      for (const SettledShare& share : settled.settled_shares) {
        rows.push_back(ShareRow{&share.flow, share.error, share.noise});
      }
      span = fmt::format(" after each change settled (the last from {})",
                         format_duration_ns(static_cast<double>(settled.settled_from_ns)));
    } else {
      for (const FlowResult& flow : scenario.flows) {
        if (flow.judged) rows.push_back(ShareRow{&flow.name, flow.error, flow.noise});
      }
    }
    if (!no_epoch_judged(settled)) {
      scenario.gates.push_back(
          share_gate("max_share_error", "flow", rows, *spec.max_share_error, span, scenario));
    }
  }
  if (!off_in_suite(spec.max_group_share_error, "max_group_share_error", GateKind::ratio,
                    GateBound::at_most, scenario)) {
    std::vector<ShareRow> rows;
    if (settled.present) {
      for (const SettledShare& share : settled.settled_group_shares) {
        rows.push_back(ShareRow{&share.flow, share.error, share.noise});
      }
    } else {
      for (const GroupResult& group : scenario.groups) {
        if (group.judged) rows.push_back(ShareRow{&group.name, group.error, group.noise});
      }
    }
    if (no_epoch_judged(settled)) {
      scenario.gates.push_back(not_judged_gate("max_group_share_error", kNoEpochJudged,
                                               GateKind::ratio, GateBound::at_most));
    } else {
      scenario.gates.push_back(share_gate("max_group_share_error", "group", rows,
                                          *spec.max_group_share_error,
                                          settled.present ? " after each change settled" : "",
                                          scenario));
    }
  }
}

// 1 - Jain is about the variance of the flows' ratios: noise alone gives mean(noise^2), and its
// spread over n flows about sqrt(2 / n) of that (a chi-square's).
double jain_allowance(const std::vector<const FlowResult*>& flows) {
  if (flows.empty()) return 0.0;
  double mean_square = 0.0;
  for (const FlowResult* flow : flows) mean_square += flow->noise * flow->noise;
  mean_square /= static_cast<double>(flows.size());
  const double z = noise_quantile(1);
  return mean_square * (1.0 + z * std::sqrt(2.0 / static_cast<double>(flows.size())));
}

void judge_jain(const suite::GateSpec& spec, ScenarioResult& scenario) {
  if (off_in_suite(spec.min_jain, "min_jain", GateKind::index, GateBound::at_least, scenario))
    return;
  const Convergence& settled = scenario.convergence;
  std::vector<const FlowResult*> judged;
  for (const FlowResult& flow : scenario.flows) {
    if (flow.judged && flow.expected_bps > 0.0) judged.push_back(&flow);
  }
  if (judged.empty() || no_epoch_judged(settled)) {
    scenario.gates.push_back(not_judged_gate(
        "min_jain", judged.empty() ? nothing_to_judge(scenario, "flow") : kNoEpochJudged,
        GateKind::index, GateBound::at_least));
    return;
  }
  const double jain = settled.present ? settled.jain_settled : scenario.fairness.jain;
  GateResult gate =
      gate_result("min_jain", false, jain, *spec.min_jain, "", settled.present ? "settled" : "",
                  GateKind::index, GateBound::at_least);
  gate.allowance = settled.present ? 0.0 : jain_allowance(judged);
  gate.passed = gate.value >= gate.threshold - gate.allowance;
  gate.failure =
      fmt::format("fairness not held: normalised Jain {:.4f} (limit {:g})", jain, *spec.min_jain);
  scenario.gates.push_back(std::move(gate));
}

void judge_caps(const suite::GateSpec& spec, ScenarioResult& scenario) {
  // Every NIC enforces the tree's caps on its own flows: with several hosts each host's tree
  // is held to them, not the merged tree (which may carry the cap once per host).
  double worst = 0.0;
  std::string worst_name;
  auto judge_tree = [&](const std::vector<ElementResult>& tree, const std::string& prefix) {
    for (const auto& element : tree) {
      if (!element.cap_bps) continue;
      const double overshoot = element.measured_bps / *element.cap_bps - 1.0;
      if (worst_name.empty() || overshoot > worst) {
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
  const bool written = spec.written("max_cap_overshoot");
  if (worst_name.empty() && !written) return;  // no cap to judge, and the suite asked nothing
  if (off_in_suite(spec.max_cap_overshoot, "max_cap_overshoot", GateKind::ratio, GateBound::at_most,
                   scenario)) {
    return;
  }
  if (worst_name.empty()) {
    scenario.gates.push_back(not_judged_gate("max_cap_overshoot", "no capped element",
                                             GateKind::ratio, GateBound::at_most));
    return;
  }
  GateResult gate = gate_result("max_cap_overshoot", worst <= *spec.max_cap_overshoot, worst,
                                *spec.max_cap_overshoot, "", "worst element: " + worst_name,
                                GateKind::ratio, GateBound::at_most);
  gate.failure = fmt::format("caps not held: {} {:+.1f}% over its cap (limit {:g}%)", worst_name,
                             worst * 100.0, *spec.max_cap_overshoot * 100.0);
  scenario.gates.push_back(std::move(gate));
}

void judge_convergence_gate(const suite::GateSpec& spec, ScenarioResult& scenario) {
  const Convergence& settled = scenario.convergence;
  if (!settled.present) return;
  if (off_in_suite(spec.convergence_time_ns, "convergence_time", GateKind::duration,
                   GateBound::at_most, scenario)) {
    return;
  }
  if (no_epoch_judged(settled)) {
    scenario.gates.push_back(not_judged_gate("convergence_time", kNoEpochJudged, GateKind::duration,
                                             GateBound::at_most));
    return;
  }
  const bool bounded = *spec.convergence_time_ns != suite::kSettleWithinEpoch;
  // Never converging fails: the value is then +inf, written n/a.
  const double value = settled.converged ? static_cast<double>(settled.worst_time_ns)
                                         : std::numeric_limits<double>::infinity();
  const double limit = bounded ? static_cast<double>(*spec.convergence_time_ns)
                               : std::numeric_limits<double>::infinity();
  std::string detail = fmt::format("within {:g}% of the shares, slowest of {} change(s){}",
                                   spec.convergence_tolerance * 100.0, settled.epochs.size(),
                                   bounded ? "" : "; limit: settles before the next change");
  bool passed = settled.converged && value <= limit;
  if (settled.held_by_backpressure) {
    passed = false;
    detail = fmt::format(
        "held by lossless back-pressure, not by the program: a sender was paused "
        "by credit {:.1f}% of the run",
        settled.paused_fraction * 100.0);
  }
  GateResult gate = gate_result("convergence_time", passed, value, limit, "ns", detail,
                                GateKind::duration, GateBound::at_most);
  if (settled.held_by_backpressure) {
    gate.failure = "convergence not the program's: " + detail;
  } else if (!settled.converged) {
    gate.failure = "rates never settled after a change (" + detail + ")";
  } else {
    gate.failure = fmt::format("rates settled in {} (limit {})", format_duration_ns(value),
                               format_duration_ns(limit));
  }
  scenario.gates.push_back(std::move(gate));
}

// A latency bound over the delivered messages and those still outstanding at the window's end
// (their latency is at least their age): a percentile that the outstanding ones censor is only
// a lower bound, and cannot pass; no delivered message at all is "no samples", not 0 ns.
void judge_latency(const suite::GateSpec& spec, const engine::ScenarioMeasurement& measured,
                   ScenarioResult& scenario) {
  static const engine::FlowLatency kNoSamples;
  for (const auto& gate : spec.latency) {
    const engine::FlowLatency* latency = latency_named(measured, scenario, gate.flow);
    if (latency == nullptr) latency = &kNoSamples;
    const bool sent = gate.basis == suite::LatencyGate::Basis::sent;
    const engine::Histogram& merged = sent ? latency->from_sent_ns : latency->from_scheduled_ns;
    auto add = [&](const char* key, const std::optional<int64_t>& threshold, double percentile) {
      if (!threshold) return;
      GateResult result = gate_result(
          fmt::format("latency.{}[{}{}]", key, gate.flow, sent ? ",sent" : ""), false, 0.0,
          static_cast<double>(*threshold), "ns", "", GateKind::duration, GateBound::at_most);
      if (merged.count() == 0) {
        result.value = std::numeric_limits<double>::quiet_NaN();
        result.detail = "no samples: no message of it completed in the window";
        result.failure = result.name + ": no samples (no message of it completed)";
        scenario.gates.push_back(std::move(result));
        return;
      }
      const int64_t value =
          percentile >= 100 ? merged.max() : merged.value_at_percentile(percentile);
      // Send times of outstanding messages are unknown: only the scheduled basis is censored.
      const bool censored =
          !sent && engine::censored_at_age(merged, latency->outstanding_age_ns, percentile, value);
      result.value = static_cast<double>(value);
      result.passed = value <= *threshold && !censored;
      result.detail = fmt::format("{} samples", merged.count());
      if (censored) {
        result.detail +=
            fmt::format("; >= {}: {} message(s) outstanding at the window's end, the oldest {} old",
                        format_duration_ns(result.value), latency->outstanding_age_ns.count(),
                        format_duration_ns(static_cast<double>(latency->outstanding_age_ns.max())));
      }
      result.failure =
          censored
              ? fmt::format("{} at least {} (messages stuck at the window's end; limit {})",
                            result.name, format_duration_ns(result.value),
                            format_duration_ns(result.threshold))
              : fmt::format("{} {} above its limit {}", result.name,
                            format_duration_ns(result.value), format_duration_ns(result.threshold));
      scenario.gates.push_back(std::move(result));
    };
    add("p50", gate.p50_ns, 50);
    add("p90", gate.p90_ns, 90);
    add("p99", gate.p99_ns, 99);
    add("p999", gate.p999_ns, 99.9);
    add("max", gate.max_ns, 100);
  }
}

void judge_gates(const suite::GateSpec& spec, const engine::ScenarioMeasurement& measured,
                 ScenarioResult& scenario) {
  judge_shares(spec, scenario);
  judge_jain(spec, scenario);
  judge_convergence_gate(spec, scenario);
  if (spec.max_queue_depth_bytes) {
    // The driver's figure, the deepest of any repetition; a driver that measured no switch
    // queue cannot pass the gate.
    double depth = std::numeric_limits<double>::infinity();
    for (const auto& [name, value] : measured.driver_stats_max) {
      if (name == "switch_queue_max_bytes") depth = value;
    }
    GateResult gate =
        gate_result("max_queue_depth", depth <= static_cast<double>(*spec.max_queue_depth_bytes),
                    depth, static_cast<double>(*spec.max_queue_depth_bytes), "B",
                    "deepest switch egress class queue", GateKind::bytes, GateBound::at_most);
    gate.failure = std::isfinite(depth) ? fmt::format("queue too deep: {:.0f} B (limit {:.0f} B)",
                                                      depth, gate.threshold)
                                        : "queue depth: the driver measured no switch queue";
    scenario.gates.push_back(std::move(gate));
  }
  judge_caps(spec, scenario);
  judge_latency(spec, measured, scenario);
  for (GateResult& gate : scenario.gates) {
    for (const char* key : suite::kDefaultJudgements) {
      if (gate.name == key && gate.judged && !spec.written(key)) gate.default_limit = true;
    }
    scenario.passed = scenario.passed && (gate.passed || !gate.judged);
  }
}

// Interrupted before any repetition measured: every flow read 0 bit/s over no time, which is not
// a -100 % error nor a Jain index of 0. Nothing is judged, and the scenario cannot pass.
void forget_figures(ScenarioResult& scenario) {
  for (FlowResult& flow : scenario.flows) {
    flow.judged = false;
    flow.error = 0.0;
    flow.not_judged = kNothingMeasured;
  }
  for (GroupResult& group : scenario.groups) {
    group.judged = false;
    group.error = 0.0;
  }
  scenario.fairness = Fairness{};
  scenario.convergence = Convergence{};
  for (GateResult& gate : scenario.gates) {
    if (!gate.judged) continue;
    gate = not_judged_gate(gate.name, kNothingMeasured, gate.kind, gate.bound);
  }
  scenario.passed = false;
}

// A congestion-control program is judged on what it did: when the lossless fabric paused a
// sender for a good part of the window, credit back-pressure held its rate, not the program.
// The simulator's backpressure_paused_ns.h<host>.<class> (drivers/sim) give each host's paused
// time; the most-paused host decides.
void attribute_backpressure(const suite::CompiledScenario& compiled,
                            const engine::ScenarioMeasurement& measured, int64_t span_ns,
                            ScenarioResult& out) {
  Convergence& c = out.convergence;
  if (!c.present || span_ns <= 0) return;
  constexpr std::string_view kPerHost = "backpressure_paused_ns.h";
  // A host's classes may wait at the same time: its most-paused class, not their sum. The
  // counters run from the start of the warm-up (the run's whole time).
  double worst_ns = 0.0;
  for (const auto& [name, value] : measured.driver_stats) {
    if (!std::string_view(name).starts_with(kPerHost)) continue;
    const std::string_view rest = std::string_view(name).substr(kPerHost.size());
    uint32_t host = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), host);
    if (ec == std::errc() && end != rest.data()) worst_ns = std::max(worst_ns, value);
  }
  const auto run_ns = static_cast<double>(out.warmup_ns + span_ns);
  c.paused_fraction = std::min(1.0, worst_ns / run_ns);
  c.held_by_backpressure = !compiled.plan.congestion.dpa.program.empty() &&
                           c.paused_fraction > kBackpressureHeldFraction;
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
// What the scenario was and what the run says about itself, before any judging.
ScenarioResult scenario_figures(const engine::ScenarioRun& run,
                                const engine::ScenarioMeasurement& measured) {
  const suite::CompiledScenario& compiled = run.compiled;
  const suite::Scenario& spec = *compiled.scenario;
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
  out.repetitions_partial = measured.repetitions_partial;
  if (measured.repetitions_partial != 0) out.measured_ns_reps = measured.measured_ns_reps;
  out.wall_seconds = measured.wall_seconds;
  out.driver_stats = measured.driver_stats;
  for (const drv::QueueDepthSeries& q : measured.queue_depth) {
    out.queue_depth.push_back(QueueDepthSeries{q.name, q.max_bytes, q.mean_bytes});
  }
  out.starvation = starvation_of(run);
  return out;
}

// Each flow against what it should have had over `window` (ending at `window_end_ns`), with
// its sampling noise (`model`: each flow's modelled noise); its packets add to
// `delivered_packets`.
void judge_flows(const suite::CompiledScenario& compiled,
                 const engine::ScenarioMeasurement& measured, const SpanExpectation& window,
                 const std::vector<double>& model, int64_t window_end_ns, ScenarioResult& out,
                 uint64_t& delivered_packets) {
  const policy::SchedTree& tree = compiled.plan.tree;
  for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
    const auto& plan = compiled.plan.flows[f];
    const engine::TrafficMeasurement& m = measured.flows[f];
    FlowResult flow;
    flow.name = plan.name;
    flow.group = plan.group;
    flow.leaf = tree.elements[plan.leaf].name;
    if (std::isfinite(compiled.offered_bps[f])) flow.offered_bps = compiled.offered_bps[f];
    flow.expected_bps = window.flow_bps[f];
    flow.measured_bps = m.measured_bps;
    flow.measured_payload_bps = m.measured_payload_bps;
    flow.measured_bps_reps = m.measured_bps_reps;
    flow.counts = m.counts;
    flow.latency = m.latency;
    flow.latency_from_sent = m.latency_from_sent;
    flow.latency_reps = m.latency_reps;
    flow.series_bps = m.series_bps;
    flow.error = relative_error(flow.measured_bps, flow.expected_bps);
    flow.noise = noise_of_mean(model[f], flow.measured_bps_reps, flow.measured_bps);
    if (!compiled.unjudgeable.empty()) {
      // No expectation to compare with (a fabric's that did not settle): said, not judged.
      flow.judged = false;
      flow.error = 0.0;
      flow.not_judged = compiled.unjudgeable;
    } else if (!started_before(compiled, f, window_end_ns)) {
      // It never ran in the window: nothing to compare, and no error to report.
      flow.judged = false;
      flow.error = 0.0;
      flow.not_judged = fmt::format("not started: starts at {}, after the window ends at {}",
                                    format_duration_ns(static_cast<double>(plan.start_ns)),
                                    format_duration_ns(static_cast<double>(window_end_ns)));
    }
    flow.host = plan.host;
    flow.tclass = policy::tc_name(plan.tx_tclass);
    flow.dscp = plan.dscp;
    flow.sl = plan.sl;
    flow.priority = plan.priority;
    flow.arb_class = policy::arb_class_name(compiled.plan.deciding_port_qos(),
                                            compiled.plan.deciding_class_of(plan));
    delivered_packets += flow.counts.packets;
    out.flows.push_back(std::move(flow));
  }
}

void judge_groups(const suite::CompiledScenario& compiled,
                  const engine::ScenarioMeasurement& measured, ScenarioResult& out) {
  const suite::Scenario& spec = *compiled.scenario;
  // Groups, in the order the suite lists its flows.
  for (uint32_t g = 0; g < spec.flows.size(); ++g) {
    const engine::TrafficMeasurement& m = measured.groups[g];
    GroupResult group;
    group.name = spec.flows[g].name;
    std::vector<double> noise, expected;
    group.judged = false;
    for (size_t f = 0; f < out.flows.size(); ++f) {
      if (compiled.flow_spec[f] != g) continue;
      group.leaf = out.flows[f].leaf;
      group.expected_bps += out.flows[f].expected_bps;
      group.judged = group.judged || out.flows[f].judged;
      noise.push_back(out.flows[f].noise);
      expected.push_back(out.flows[f].expected_bps);
    }
    group.flows = m.flows;
    group.measured_bps = m.measured_bps;
    group.measured_bps_reps = m.measured_bps_reps;
    group.series_bps = m.series_bps;
    group.latency = m.latency;
    group.latency_from_sent = m.latency_from_sent;
    group.latency_reps = m.latency_reps;
    group.error = group.judged ? relative_error(group.measured_bps, group.expected_bps) : 0.0;
    group.noise = noise_of_sum(noise, expected);
    out.groups.push_back(std::move(group));
  }
}

void judge_tree(const suite::CompiledScenario& compiled,
                const engine::ScenarioMeasurement& measured, const SpanExpectation& window,
                ScenarioResult& out) {
  const policy::SchedTree& tree = compiled.plan.tree;
  // Tree elements: with joins, each element's expectation over the window is its flows' sum.
  std::vector<double> element_expected = compiled.expected.element_bps;
  if (!compiled.epochs.empty() || window.flow_bps != compiled.expected.flow_bps) {
    std::fill(element_expected.begin(), element_expected.end(), 0.0);
    for (size_t f = 0; f < out.flows.size(); ++f) {
      for (uint32_t e = compiled.plan.flows[f].leaf; e != policy::SchedTree::kNoParent;
           e = tree.elements[e].parent) {
        element_expected[e] += out.flows[f].expected_bps;
      }
    }
  }
  for (size_t e = 0; e < tree.elements.size(); ++e) {
    out.tree.push_back(element_result(tree, e, compiled.expected.element_demand_bps[e],
                                      element_expected[e], measured.element_bps[e]));
  }
}

void judge_fairness(const engine::ScenarioRun& run, const engine::ScenarioMeasurement& measured,
                    uint32_t measured_reps, ScenarioResult& out) {
  const suite::CompiledScenario& compiled = run.compiled;
  // Fairness, over the flows judged (a flow that never started has nothing to be fair about).
  std::vector<double> ratios;
  for (const auto& flow : out.flows) {
    if (!flow.judged) continue;
    if (flow.expected_bps > 0) ratios.push_back(flow.measured_bps / flow.expected_bps);
    if (out.fairness.worst_flow.empty() || std::fabs(flow.error) > out.fairness.worst_flow_error) {
      out.fairness.worst_flow_error = std::fabs(flow.error);
      out.fairness.worst_flow = flow.name;
    }
  }
  out.fairness.jain = jain_index(ratios);
  for (size_t r = 0; r < measured_reps; ++r) {
    std::vector<double> rep_ratios;
    for (const auto& flow : out.flows) {
      if (flow.judged && flow.expected_bps > 0)
        rep_ratios.push_back(flow.measured_bps_reps[r] / flow.expected_bps);
    }
    out.fairness.jain_reps.push_back(jain_index(rep_ratios));
  }
  for (const auto& group : out.groups) {
    if (!group.judged) continue;
    if (out.fairness.worst_group.empty() ||
        std::fabs(group.error) > out.fairness.worst_group_error) {
      out.fairness.worst_group_error = std::fabs(group.error);
      out.fairness.worst_group = group.name;
    }
  }
  // Per bin, against what that bin should carry (each epoch's shares over the bin).
  const bool epochs = !compiled.epochs.empty();
  for (size_t b = 0; b < measured.bins; ++b) {
    const int64_t bin_start = run.warmup_ns + static_cast<int64_t>(b) * run.bin_ns;
    const std::vector<double> bin_expected =
        epochs ? expectation_over(compiled, bin_start, bin_start + run.bin_ns).flow_bps
               : compiled.expected.flow_bps;
    std::vector<double> bin_ratios;
    for (size_t f = 0; f < out.flows.size(); ++f) {
      if (bin_expected[f] > 0) bin_ratios.push_back(out.flows[f].series_bps[b] / bin_expected[f]);
    }
    out.fairness.jain_series.push_back(jain_index(bin_ratios));
  }
}

ScenarioResult judge_scenario(const engine::ScenarioRun& run,
                              const engine::ScenarioMeasurement& measured,
                              uint64_t& delivered_packets) {
  const suite::CompiledScenario& compiled = run.compiled;
  const suite::Scenario& spec = *compiled.scenario;
  ScenarioResult out = scenario_figures(run, measured);

  // The window every rate is over: the duration, or (interrupted repetitions) what they measured.
  const uint32_t measured_reps = measured.repetitions_completed + measured.repetitions_partial;
  int64_t span_ns = run.duration_ns;
  if (measured.repetitions_partial != 0 && !measured.measured_ns_reps.empty()) {
    int64_t sum = 0;
    for (const int64_t ns : measured.measured_ns_reps) sum += ns;
    span_ns = sum / static_cast<int64_t>(measured.measured_ns_reps.size());
  }
  const int64_t window_end_ns = run.warmup_ns + span_ns;
  const SpanExpectation window = expectation_over(compiled, run.warmup_ns, window_end_ns);
  const std::vector<double> model =
      model_noise(compiled, NoiseInput{window.flow_bps, window.active_ns, span_ns});

  judge_flows(compiled, measured, window, model, window_end_ns, out, delivered_packets);
  judge_groups(compiled, measured, out);
  if (compiled.plan.has_classes()) judge_classes(compiled, measured, out);
  judge_tree(compiled, measured, window, out);
  out.host_trees = host_tree_results(compiled, out.flows);
  out.arbitration = arbitration_results(compiled.plan);
  // From the shares while flows run (as explain gives them), not the window's time-weighted
  // means, in which a late joiner would look starved.
  for (const suite::Shortfall& shortfall :
       suite::shortfall_causes(compiled, compiled.expected.flow_bps)) {
    out.shortfalls.push_back(shortfall.cause);
  }

  judge_fairness(run, measured, measured_reps, out);
  out.repetitions_completed = measured.repetitions_completed;
  judge_convergence(compiled, spec.gates.convergence_tolerance, out);
  attribute_backpressure(compiled, measured, span_ns, out);
  judge_gates(spec.gates, measured, out);
  out.nic_checks = nic_counter_checks(compiled, out);
  judge_fabric(compiled, spec.gates.max_share_error.value_or(suite::kDefaultMaxShareError), out);
  describe_topology(compiled, out);
  if (nothing_measured(out)) forget_figures(out);
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
                          const engine::SuiteMeasurement& measurement,
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
  results.interrupted = run.interrupted;
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
                      "no packet reached a receiver during the measured window: nothing to judge " +
                          (run.no_data_reason.empty()
                               ? std::string("(is the duration long enough, and does the driver "
                                             "carry traffic?)")
                               : "(" + run.no_data_reason + ")"));
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
  // Back-pressure held a congestion-controlled run's rates: said whatever its gates judge.
  for (const ScenarioResult& scenario : results.scenarios) {
    if (!scenario.convergence.held_by_backpressure) continue;
    results.warnings.push_back(fmt::format(
        "scenario \"{}\": lossless back-pressure, not the congestion-control program, held the "
        "rates: a sender was paused by credit {:.1f}% of the run (docs/semantics.md, "
        "\"Back-pressure\")",
        scenario.name, scenario.convergence.paused_fraction * 100.0));
  }
  // A starved worker's figures describe the machine, not the policy: said, and past the bound
  // the run cannot pass (the command exits 3).
  for (const ScenarioResult& scenario : results.scenarios) {
    if (scenario.starvation.unreliable) {
      results.warnings.push_back(starvation_message(scenario.name, scenario.starvation));
    }
  }
  // The port's counters disagree with the run: said, not judged.
  for (const ScenarioResult& scenario : results.scenarios) {
    for (const NicCheckResult& check : scenario.nic_checks) {
      if (!check.passed) {
        results.warnings.push_back(fmt::format("scenario \"{}\": NIC counters, {}: {}",
                                               scenario.name, check.name, check.detail));
      }
    }
  }
  // An incomplete run cannot pass: its figures cover less than the suite asked for.
  results.passed = results.passed && results.complete && !starved_invalid(results);
  results.verdict = verdict_of(results);
  return results;
}

}  // namespace qb::judge
