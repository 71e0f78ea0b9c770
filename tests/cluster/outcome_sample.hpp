// A repetition's outcome with every field set (several flows, driver stats, queue depths,
// starvation, histograms past 2^53), for the codec's tests and the fuzz target's seed.
#pragma once

#include <random>

#include "qb/engine/outcome_codec.hpp"

namespace qb::engine {

inline RepetitionOutcome sample_outcome() {
  RepetitionOutcome outcome;
  outcome.scenario = 2;
  outcome.repetition = 5;
  outcome.workers = 3;
  outcome.clock = "virtual";
  RepetitionMeasurement& m = outcome.measurement;
  for (uint64_t f = 0; f < 3; ++f) {
    FlowCounters c;
    c.counts.messages = 10 + f;
    c.counts.packets = 100 + f;
    c.counts.payload_bytes = 1'000'000 + f;
    c.counts.wire_bytes = 1'100'000 + f;
    c.counts.drops = f;
    c.counts.posted_messages = 12 + f;
    c.counts.late_posts = f * 2;
    c.series_wire_bytes = {f, f + 1, 0, 123456789012ULL};
    m.flows.push_back(c);
    m.flow_latency.push_back(RepetitionLatency{c.counts.messages, 1, 2, 3, 4});
  }
  m.group_latency.push_back(RepetitionLatency{7, 10, 20, 30, 40});
  m.driver_stats = {{"sim_steps", 12345.0}, {"ratio", 0.1 + 0.2}};
  m.queue_depth = {{"port", {1.0, 2.5e6}, {0.5, 1.0 / 7.0}}, {"TC3", {}, {}}};
  m.starvation = {true, 1'000'000, 20'000, 15'000, 20'000, 5'000, 7, 3};
  m.wall_seconds = 1.0 / 3.0;
  m.ran = true;
  m.complete = false;
  m.measured_ns = 987'654'321;

  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> latency_ns(9.0, 2.0);
  outcome.latency.resize(3);
  for (auto& l : outcome.latency) {
    for (int i = 0; i < 5000; ++i) {
      l.from_scheduled_ns.record(static_cast<int64_t>(latency_ns(rng)));
      l.from_sent_ns.record(static_cast<int64_t>(latency_ns(rng)) - 5);  // some clamp at 0
    }
  }
  // Messages outstanding at the window's end, by age.
  outcome.latency[2].outstanding_age_ns.record_n(51'200'000, 16);
  outcome.latency[2].outstanding_age_ns.record(3'000);
  // Past 2^53 the sum is kept as a double: that state must travel too.
  outcome.latency[1].from_scheduled_ns.record_n(20'000'000'000, 1'000'000);
  return outcome;
}

/// The fuzz target's seed: the sample with one flow's latency (a small file).
inline RepetitionOutcome sample_fuzz_seed() {
  RepetitionOutcome small = sample_outcome();
  small.latency.resize(1);
  return small;
}

}  // namespace qb::engine
