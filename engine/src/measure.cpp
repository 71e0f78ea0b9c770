#include "qb/engine/measure.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace qb::engine {
namespace {

void add_repetition(LatencyReps& reps, const RepetitionLatency& latency) {
  reps.p50_ns.push_back(latency.p50_ns);
  reps.p90_ns.push_back(latency.p90_ns);
  reps.p99_ns.push_back(latency.p99_ns);
  reps.p999_ns.push_back(latency.p999_ns);
}

// Adds `flow` (already measured) into an aggregate of flows: rates and counters add, histograms
// merge; per-repetition latency is the aggregate's own (set by the caller where it exists).
void add_flow(TrafficMeasurement& into, const TrafficMeasurement& flow) {
  ++into.flows;
  into.measured_bps += flow.measured_bps;
  into.measured_payload_bps += flow.measured_payload_bps;
  if (into.measured_bps_reps.size() < flow.measured_bps_reps.size()) {
    into.measured_bps_reps.resize(flow.measured_bps_reps.size(), 0.0);
  }
  for (size_t r = 0; r < flow.measured_bps_reps.size(); ++r) {
    into.measured_bps_reps[r] += flow.measured_bps_reps[r];
  }
  merge_counters(into.counts, flow.counts);
  if (into.series_bps.size() < flow.series_bps.size()) {
    into.series_bps.resize(flow.series_bps.size(), 0.0);
  }
  for (size_t b = 0; b < flow.series_bps.size(); ++b) into.series_bps[b] += flow.series_bps[b];
  into.histograms.from_scheduled_ns.merge(flow.histograms.from_scheduled_ns);
  into.histograms.from_sent_ns.merge(flow.histograms.from_sent_ns);
  into.histograms.outstanding_age_ns.merge(flow.histograms.outstanding_age_ns);
  // One depth for the aggregate only when every flow in it has the same.
  into.latency.outstanding_limit =
      into.flows == 1 || into.latency.outstanding_limit == flow.latency.outstanding_limit
          ? flow.latency.outstanding_limit
          : 0;
}

// Outstanding messages censor the percentiles from the scheduled send time; their send times
// are not known until they complete, so the figures from the actual send time stay uncensored.
void summarise_histograms(TrafficMeasurement& m) {
  const uint32_t outstanding_limit = m.latency.outstanding_limit;
  m.latency = summarise(m.histograms.from_scheduled_ns, &m.histograms.outstanding_age_ns);
  m.latency.outstanding_limit = outstanding_limit;
  m.latency_from_sent = summarise(m.histograms.from_sent_ns);
}

}  // namespace

namespace {

// Per queue and bin: the deepest over the repetitions, the mean of their means (a queue or bin
// a repetition lacks counts as empty there).
std::vector<drv::QueueDepthSeries> merge_queue_depth(
    const std::vector<const RepetitionMeasurement*>& reps) {
  std::vector<drv::QueueDepthSeries> out;
  for (const auto* rep : reps) {
    for (const drv::QueueDepthSeries& q : rep->queue_depth) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const drv::QueueDepthSeries& o) { return o.name == q.name; });
      if (it == out.end()) {
        out.push_back(drv::QueueDepthSeries{q.name, {}, {}});
        it = std::prev(out.end());
      }
      if (it->max_bytes.size() < q.max_bytes.size()) it->max_bytes.resize(q.max_bytes.size());
      if (it->mean_bytes.size() < q.mean_bytes.size()) it->mean_bytes.resize(q.mean_bytes.size());
      for (size_t b = 0; b < q.max_bytes.size(); ++b) {
        it->max_bytes[b] = std::max(it->max_bytes[b], q.max_bytes[b]);
      }
      for (size_t b = 0; b < q.mean_bytes.size(); ++b) {
        it->mean_bytes[b] += q.mean_bytes[b] / static_cast<double>(reps.size());
      }
    }
  }
  return out;
}

// The driver's counters over the repetitions: their mean, and their largest.
void merge_driver_stats(const std::vector<const RepetitionMeasurement*>& reps,
                        ScenarioMeasurement& out) {
  std::map<std::string, double> mean;
  std::map<std::string, double> max;
  for (const auto* rep : reps) {
    for (const auto& [name, value] : rep->driver_stats) {
      mean[name] += value / static_cast<double>(reps.size());
      const auto [at, first] = max.try_emplace(name, value);
      if (!first) at->second = std::max(at->second, value);
    }
  }
  out.driver_stats.assign(mean.begin(), mean.end());
  out.driver_stats_max.assign(max.begin(), max.end());
}

}  // namespace

ScenarioMeasurement measure(const ScenarioRun& run) {
  const suite::CompiledScenario& compiled = run.compiled;
  const policy::QosPlan& plan = compiled.plan;
  ScenarioMeasurement out;

  std::vector<const RepetitionMeasurement*> reps;
  for (const auto& rep : run.reps) {
    if (rep.ran && rep.complete) reps.push_back(&rep);
  }
  // An interrupted repetition counts over the time it measured, after every completed one in
  // the per-repetition arrays (compare reads the completed ones only); one stopped before its
  // window began measured nothing and is left out.
  for (const auto& rep : run.reps) {
    if (rep.ran && !rep.complete && rep.measured_ns > 0) reps.push_back(&rep);
  }
  for (const auto* rep : reps) {
    if (rep->complete) {
      ++out.repetitions_completed;
    } else {
      ++out.repetitions_partial;
    }
  }
  for (const auto* rep : reps) out.wall_seconds += rep->wall_seconds;
  merge_driver_stats(reps, out);
  out.queue_depth = merge_queue_depth(reps);

  // Rates are over the window a repetition measured: all of it unless it was interrupted.
  auto window_ns = [&](const RepetitionMeasurement& rep) {
    return rep.complete || rep.measured_ns <= 0 ? run.duration_ns
                                                : std::min(rep.measured_ns, run.duration_ns);
  };
  auto window_s = [&](const RepetitionMeasurement& rep) {
    return static_cast<double>(window_ns(rep)) * 1e-9;
  };
  out.bins = reps.empty() ? 0 : reps.front()->flows.front().series_wire_bytes.size();
  // Interrupted everywhere: the series ends where the longest repetition stopped measuring.
  int64_t measured_ns = 0;
  for (const auto* rep : reps) measured_ns = std::max(measured_ns, window_ns(*rep));
  if (run.bin_ns > 0) {
    out.bins = std::min(out.bins, static_cast<size_t>((measured_ns + run.bin_ns - 1) / run.bin_ns));
  }
  auto bin_seconds = [&](size_t b) {
    const int64_t start = static_cast<int64_t>(b) * run.bin_ns;
    return static_cast<double>(std::min(run.bin_ns, run.duration_ns - start)) * 1e-9;
  };
  for (const auto* rep : reps) out.measured_ns_reps.push_back(window_ns(*rep));
  const double rep_count = std::max<double>(1.0, static_cast<double>(reps.size()));

  for (size_t f = 0; f < plan.flows.size(); ++f) {
    TrafficMeasurement flow;
    flow.flows = 1;
    flow.series_bps.assign(out.bins, 0.0);
    double payload_sum = 0.0;
    for (const auto* rep : reps) {
      const FlowCounters& c = rep->flows[f];
      const double duration_s = window_s(*rep);
      flow.measured_bps_reps.push_back(static_cast<double>(c.counts.wire_bytes) * 8.0 / duration_s);
      payload_sum += static_cast<double>(c.counts.payload_bytes) * 8.0 / duration_s;
      merge_counters(flow.counts, c.counts);
      if (f < rep->flow_latency.size()) add_repetition(flow.latency_reps, rep->flow_latency[f]);
      for (size_t b = 0; b < out.bins && b < c.series_wire_bytes.size(); ++b) {
        flow.series_bps[b] +=
            static_cast<double>(c.series_wire_bytes[b]) * 8.0 / bin_seconds(b) / rep_count;
      }
    }
    for (double bps : flow.measured_bps_reps) flow.measured_bps += bps / rep_count;
    flow.measured_payload_bps = payload_sum / rep_count;
    flow.histograms = run.latency[f];
    const suite::FlowSpec& spec = compiled.scenario->flows[compiled.flow_spec[f]];
    if (spec.arrival.saturating()) flow.latency.outstanding_limit = spec.arrival.outstanding;
    summarise_histograms(flow);
    out.flows.push_back(std::move(flow));
  }

  // Groups, in the order the suite lists its flows; their per-repetition latency was taken
  // from each repetition's merged histograms (percentiles do not add).
  const size_t group_count = compiled.scenario->flows.size();
  out.groups.resize(group_count);
  for (size_t g = 0; g < group_count; ++g) {
    TrafficMeasurement& group = out.groups[g];
    group.measured_bps_reps.assign(reps.size(), 0.0);
    group.series_bps.assign(out.bins, 0.0);
    for (size_t f = 0; f < out.flows.size(); ++f) {
      if (compiled.flow_spec[f] == g) add_flow(group, out.flows[f]);
    }
    for (const auto* rep : reps) {
      if (g < rep->group_latency.size()) add_repetition(group.latency_reps, rep->group_latency[g]);
    }
    summarise_histograms(group);
  }

  if (plan.has_classes()) {
    std::map<uint32_t, TrafficMeasurement> classes;
    for (size_t f = 0; f < out.flows.size(); ++f) {
      add_flow(classes[plan.deciding_class_of(plan.flows[f])], out.flows[f]);
    }
    for (auto& [arb_class, measured] : classes) {
      summarise_histograms(measured);
      out.classes.emplace_back(arb_class, std::move(measured));
    }
  }

  // A flow counts at its leaf and every ancestor.
  const policy::SchedTree& tree = plan.tree;
  out.element_bps.assign(tree.elements.size(), 0.0);
  for (size_t f = 0; f < out.flows.size(); ++f) {
    for (uint32_t e = plan.flows[f].leaf; e != policy::SchedTree::kNoParent;
         e = tree.elements[e].parent) {
      out.element_bps[e] += out.flows[f].measured_bps;
    }
  }
  return out;
}

SuiteMeasurement measure(const SuiteRun& run) {
  SuiteMeasurement out;
  for (const ScenarioRun& scenario : run.scenarios) out.scenarios.push_back(measure(scenario));
  return out;
}

}  // namespace qb::engine
