// What a run measured, per flow instance and repetition. Plain data, merged after the run.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/drivers/driver.hpp"
#include "qb/engine/counters.hpp"
#include "qb/engine/histogram.hpp"
#include "qb/engine/starvation.hpp"

namespace qb::engine {

/// Counters of one flow instance inside the measured window [warmup, warmup + duration):
/// a packet counts when it reaches the receiver inside the window; a message counts (and its
/// latency is recorded) when its last packet does.
/// The sender-side counters (counters.hpp) count over the whole run, warm-up included.
struct FlowCounters {
  Counters counts;
  std::vector<uint64_t> series_wire_bytes;  // per time-series bin of the measured window
};

/// Latency percentiles of one repetition (from the scheduled send time), kept so comparisons
/// can test a change across repetitions; the histograms themselves are merged.
struct RepetitionLatency {
  uint64_t count = 0;
  int64_t p50_ns = 0, p90_ns = 0, p99_ns = 0, p999_ns = 0;
};

struct RepetitionMeasurement {
  std::vector<FlowCounters> flows;               // per flow instance, in plan order
  std::vector<RepetitionLatency> flow_latency;   // per flow instance
  std::vector<RepetitionLatency> group_latency;  // per [[flow]] entry (its instances merged)
  drv::DriverStats driver_stats;
  std::vector<drv::QueueDepthSeries> queue_depth;  // per switch egress class, if modelled
  double wall_seconds = 0.0;
  bool ran = false;      // false: never started (the run was interrupted before it)
  bool complete = true;  // false when interrupted part-way
  /// Time of the measured window the repetition covered: the duration when complete, less when
  /// interrupted. Rates are divided by it.
  int64_t measured_ns = 0;
  /// Real-time drivers: the worker that lost the largest fraction of its run to others.
  WorkerStarvation starvation;
};

/// Latency of one flow instance over all repetitions, merged.
struct FlowLatency {
  Histogram from_scheduled_ns;  // delivery - scheduled send time (includes sender stalls)
  Histogram from_sent_ns;       // delivery - actual send time
  /// Messages posted and not delivered at the measured window's end: their age then, from
  /// the scheduled send time (a lower bound on their latency; censors the percentiles).
  Histogram outstanding_age_ns;
};

}  // namespace qb::engine
