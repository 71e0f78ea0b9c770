#include "qb/cluster/fabric_merge.hpp"

#include <algorithm>
#include <array>

#include "qb/engine/latency_summary.hpp"

namespace qb::cluster {
namespace {

engine::RepetitionLatency percentiles_of(const engine::Histogram& histogram) {
  std::array<int64_t, engine::kHeadlinePercentiles.size()> values{};
  histogram.values_at_percentiles(engine::kHeadlinePercentiles, values);
  return engine::RepetitionLatency{histogram.count(), values[0], values[1], values[2], values[3]};
}

const engine::RepetitionOutcome* find_outcome(
    const std::vector<engine::RepetitionOutcome>& outcomes, uint32_t scenario,
    uint32_t repetition) {
  const auto found =
      std::find_if(outcomes.begin(), outcomes.end(), [&](const engine::RepetitionOutcome& o) {
        return o.scenario == scenario && o.repetition == repetition;
      });
  return found == outcomes.end() ? nullptr : &*found;
}

// Flow f of `merged` from its receiving rank's `from` (what arrived) and its sending rank's
// `posted` (what was posted); either may be missing (that rank was not heard from).
void take_flow(size_t f, const engine::RepetitionOutcome* from,
               const engine::RepetitionOutcome* posted, engine::RepetitionOutcome& merged) {
  engine::FlowCounters flow;
  engine::FlowLatency latency;
  engine::RepetitionLatency flow_latency;
  if (from != nullptr && f < from->measurement.flows.size()) {
    engine::merge_counters(flow.counts, from->measurement.flows[f].counts,
                           engine::CounterSide::receiver);
    flow.series_wire_bytes = from->measurement.flows[f].series_wire_bytes;
    if (f < from->latency.size()) latency = from->latency[f];
    if (f < from->measurement.flow_latency.size()) {
      flow_latency = from->measurement.flow_latency[f];
    }
  }
  if (posted != nullptr && f < posted->measurement.flows.size()) {
    engine::merge_counters(flow.counts, posted->measurement.flows[f].counts,
                           engine::CounterSide::sender);
  }
  merged.measurement.flows[f] = std::move(flow);
  merged.latency[f] = std::move(latency);
  merged.measurement.flow_latency[f] = flow_latency;
}

}  // namespace

std::vector<engine::RepetitionOutcome> merge_fabric_outcomes(
    std::vector<std::vector<engine::RepetitionOutcome>>& by_rank,
    const std::vector<FabricFlows>& flows) {
  std::vector<engine::RepetitionOutcome> merged_all;
  if (by_rank.empty()) return merged_all;
  for (const engine::RepetitionOutcome& base : by_rank[0]) {
    engine::RepetitionOutcome merged;
    merged.scenario = base.scenario;
    merged.repetition = base.repetition;
    merged.workers = base.workers;
    merged.clock = base.clock;
    engine::RepetitionMeasurement& m = merged.measurement;
    m.ran = base.measurement.ran;
    m.complete = base.measurement.complete;
    m.measured_ns = base.measurement.measured_ns;
    std::vector<const engine::RepetitionOutcome*> parts(by_rank.size(), nullptr);
    for (size_t rank = 0; rank < by_rank.size(); ++rank) {
      parts[rank] = find_outcome(by_rank[rank], base.scenario, base.repetition);
      const engine::RepetitionOutcome* part = parts[rank];
      if (part == nullptr) {
        m.complete = false;  // a rank's side is missing
        continue;
      }
      m.ran = m.ran && part->measurement.ran;
      m.complete = m.complete && part->measurement.complete;
      // Every rank measured its own window (they start together): the shortest bounds them all.
      if (part->measurement.ran) m.measured_ns = std::min(m.measured_ns, part->measurement.measured_ns);
      m.wall_seconds = std::max(m.wall_seconds, part->measurement.wall_seconds);
      // A starved rank makes the figures of every flow it sends or receives unreliable.
      m.starvation.keep_worse(part->measurement.starvation);
    }
    const size_t flow_count = base.measurement.flows.size();
    m.flows.resize(flow_count);
    m.flow_latency.resize(flow_count);
    merged.latency.resize(flow_count);
    const FabricFlows* ranks = base.scenario < flows.size() ? &flows[base.scenario] : nullptr;
    for (size_t f = 0; f < flow_count; ++f) {
      const engine::RepetitionOutcome* from = nullptr;
      const engine::RepetitionOutcome* posted = nullptr;
      if (ranks != nullptr && f < ranks->destination_rank.size() &&
          ranks->destination_rank[f] < parts.size()) {
        from = parts[ranks->destination_rank[f]];
      }
      if (ranks != nullptr && f < ranks->source_rank.size() &&
          ranks->source_rank[f] < parts.size()) {
        posted = parts[ranks->source_rank[f]];
      }
      take_flow(f, from, posted, merged);
    }
    // A group's latency: its flows' histograms merged, whichever ranks received them.
    const uint32_t groups = ranks != nullptr ? ranks->groups : 0;
    for (uint32_t group = 0; group < groups; ++group) {
      engine::Histogram histogram;
      for (size_t f = 0; f < flow_count && f < ranks->group.size(); ++f) {
        if (ranks->group[f] == group) histogram.merge(merged.latency[f].from_scheduled_ns);
      }
      m.group_latency.push_back(percentiles_of(histogram));
    }
    merged_all.push_back(std::move(merged));
  }
  return merged_all;
}

}  // namespace qb::cluster
