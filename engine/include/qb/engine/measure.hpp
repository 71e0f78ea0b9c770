// Measure: turns what every repetition of a scenario counted (counters, histograms, series) into
// per-flow, per-group, per-class and per-tree-element measurements, once. The judge then only
// compares these with the expectations. All *_bps count wire bytes unless named *_payload_bps;
// rates are over the measured window, mean over the repetitions that ran.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qb/engine/counters.hpp"
#include "qb/engine/histogram.hpp"
#include "qb/engine/latency_summary.hpp"
#include "qb/engine/run.hpp"

namespace qb::engine {

/// A flow instance, or a group of them (a [[flow]] entry), or an arbitration class.
struct TrafficMeasurement {
  uint32_t flows = 0;
  double measured_bps = 0.0;
  double measured_payload_bps = 0.0;
  std::vector<double> measured_bps_reps;
  Counters counts;  // merged over its flows and the repetitions
  LatencySummary latency;            // from the scheduled send time
  LatencySummary latency_from_sent;  // from the actual send time
  LatencyReps latency_reps;
  std::vector<double> series_bps;  // per time bin
  FlowLatency histograms;          // for latency gates
};

struct ScenarioMeasurement {
  uint32_t repetitions_completed = 0;  // ran to the end of their window
  /// Interrupted part-way but measured: their rates are over measured_ns_reps, not the duration.
  uint32_t repetitions_partial = 0;
  std::vector<int64_t> measured_ns_reps;  // per repetition measured, the window it covered
  double wall_seconds = 0.0;              // sum over the repetitions
  /// Driver counters, mean over the repetitions (keeps counters, maxima and ratios meaningful
  /// without knowing what each one is), sorted by name.
  std::vector<std::pair<std::string, double>> driver_stats;
  /// The same counters' largest value over the repetitions, sorted by name: what a limit on a
  /// maximum (the deepest queue) judges, as one repetition above it is a failure.
  std::vector<std::pair<std::string, double>> driver_stats_max;
  /// Switch egress queue depth per bin: the deepest over the repetitions and the mean of
  /// their means; empty unless the driver models a switch that reports it.
  std::vector<drv::QueueDepthSeries> queue_depth;
  size_t bins = 0;
  std::vector<TrafficMeasurement> flows;   // per flow instance, plan order
  std::vector<TrafficMeasurement> groups;  // per [[flow]] entry, suite order
  /// Per arbitration class at the port that decides the shares (QosPlan::deciding_class_of),
  /// ascending; empty unless the plan has classes.
  std::vector<std::pair<uint32_t, TrafficMeasurement>> classes;
  std::vector<double> element_bps;  // per tree element: its flows' measured_bps, summed
};

ScenarioMeasurement measure(const ScenarioRun& run);

/// Every scenario of a run, in order.
struct SuiteMeasurement {
  std::vector<ScenarioMeasurement> scenarios;
};
SuiteMeasurement measure(const SuiteRun& run);

}  // namespace qb::engine
