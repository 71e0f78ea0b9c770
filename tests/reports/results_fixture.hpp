// A small but complete Results value for the reports tests: two groups, three flows, one
// scenario, every field set (so a round trip through JSON exercises all of them).
#pragma once

#include <limits>

#include "qb/reports/results.hpp"

namespace qb::report::testing {

inline LatencySummary latency(int64_t base_ns) {
  LatencySummary l;
  l.count = 1000;
  l.p50_ns = base_ns;
  l.p90_ns = base_ns * 2;
  l.p99_ns = base_ns * 3;
  l.p999_ns = base_ns * 4;
  l.max_ns = base_ns * 5;
  l.min_ns = base_ns / 2;
  l.mean_ns = static_cast<double>(base_ns) * 1.25;
  l.stdev_ns = static_cast<double>(base_ns) * 0.5;
  l.spectrum = {{0.0, base_ns / 2}, {50.0, base_ns}, {99.999, base_ns * 4}, {100.0, base_ns * 5}};
  return l;
}

inline LatencyReps latency_reps(int64_t base_ns, size_t reps) {
  LatencyReps r;
  for (size_t i = 0; i < reps; ++i) {
    r.p50_ns.push_back(base_ns);
    r.p90_ns.push_back(base_ns * 2);
    r.p99_ns.push_back(base_ns * 3);
    r.p999_ns.push_back(base_ns * 4);
  }
  return r;
}

inline FlowResult flow(const std::string& name, const std::string& group, double expected_bps,
                       const std::vector<double>& reps) {
  FlowResult f;
  f.name = name;
  f.group = group;
  f.leaf = group.substr(0, 2);
  f.expected_bps = expected_bps;
  f.measured_bps_reps = reps;
  double sum = 0.0;
  for (double r : reps) sum += r;
  f.measured_bps = sum / static_cast<double>(reps.size());
  f.measured_payload_bps = f.measured_bps * 0.98;
  f.error = f.measured_bps / expected_bps - 1.0;
  f.counts.messages = 1234;
  f.counts.packets = 2345;
  f.counts.payload_bytes = 4096ULL * 1234ULL;
  f.counts.wire_bytes = 4170ULL * 1234ULL;
  f.counts.drops = 1;
  f.counts.late_posts = 2;
  f.latency = latency(10'000);
  f.latency_from_sent = latency(5'000);
  f.latency_reps = latency_reps(10'000, reps.size());
  f.series_bps = {f.measured_bps, f.measured_bps * 1.01, f.measured_bps * 0.99};
  return f;
}

/// `g2_scale` multiplies every g2 measurement (0.9 plants a 10 % regression).
inline Results sample_results(size_t reps = 5, double g2_scale = 1.0) {
  Results r;
  r.tool_version = "0.1.0";
  r.suite = "two groups";
  r.suite_file = "configs/mlx5_two_groups.toml";
  r.config_hash = "0123456789abcdef";
  r.driver = "sim";
  r.clock = "virtual";
  r.host = "host \"quoted\" <x>";
  r.date_utc = "2026-11-22T05:50:00Z";
  r.jobs = 2;
  r.wall_seconds = 1.5;
  r.warnings = {"sched.leaf[2]: something"};

  ScenarioResult s;
  s.name = "two groups";
  s.transport = "rocev2";
  s.mtu_bytes = 4096;
  s.capacity_bps = 100e9;
  s.seed = 7;
  s.repetitions = static_cast<uint32_t>(reps);
  s.repetitions_completed = static_cast<uint32_t>(reps);
  s.warmup_ns = 10'000'000;
  s.duration_ns = 100'000'000;
  s.bin_ns = 1'000'000;
  s.wall_seconds = 0.75;
  std::vector<double> g1_reps, g2_reps;
  for (size_t i = 0; i < reps; ++i) {
    // Small, distinct per-repetition noise so the test sees real ranks.
    const double wiggle = 1.0 + 1e-4 * static_cast<double>(i);
    g1_reps.push_back(47.952e9 * wiggle);
    g2_reps.push_back(4.096e9 * wiggle * g2_scale);
  }
  s.flows.push_back(flow("g1-qp#0", "g1-qp", 47.952e9, g1_reps));
  s.flows.push_back(flow("g1-qp#1", "g1-qp", 47.952e9, g1_reps));
  s.flows.push_back(flow("g2-qp", "g2-qp", 4.096e9, g2_reps));
  s.flows[0].offered_bps = 50e9;
  for (const char* name : {"g1-qp", "g2-qp"}) {
    GroupResult g;
    g.name = name;
    g.leaf = std::string(name).substr(0, 2);
    const bool g1 = g.name == "g1-qp";
    g.flows = g1 ? 2 : 1;
    g.expected_bps = g1 ? 95.904e9 : 4.096e9;
    for (size_t i = 0; i < reps; ++i) {
      g.measured_bps_reps.push_back(g1 ? 2 * g1_reps[i] : g2_reps[i]);
    }
    g.measured_bps = g1 ? 2 * s.flows[0].measured_bps : s.flows[2].measured_bps;
    g.error = g.measured_bps / g.expected_bps - 1.0;
    g.latency = latency(20'000);
    g.latency_from_sent = latency(15'000);
    g.latency_reps = latency_reps(20'000, reps);
    g.series_bps = {g.measured_bps};
    s.groups.push_back(g);
  }
  ElementResult root;
  root.name = "root";
  root.demand_bps = std::numeric_limits<double>::infinity();
  root.expected_bps = 100e9;
  root.measured_bps = 99.9e9;
  ElementResult leaf;
  leaf.name = "g2";
  leaf.parent = "root";
  leaf.is_leaf = true;
  leaf.bw_share = 3;
  leaf.weight = 3;
  leaf.cap_bps = 4.096e9;
  leaf.demand_bps = std::numeric_limits<double>::infinity();
  leaf.expected_bps = 4.096e9;
  leaf.measured_bps = 4.095e9;
  s.tree = {root, leaf};
  s.fairness.jain = 0.99999;
  s.fairness.worst_flow_error = 0.0003;
  s.fairness.worst_flow = "g2-qp";
  s.fairness.worst_group_error = 0.0001;
  s.fairness.worst_group = "g2-qp";
  s.fairness.jain_series = {0.9999, 1.0};
  for (size_t i = 0; i < reps; ++i) s.fairness.jain_reps.push_back(0.99999);
  s.gates.push_back(gate_result("max_share_error", true, 0.0003, 0.01, "", "worst flow: g2-qp",
                                GateKind::ratio, GateBound::at_most));
  s.gates.push_back(gate_result("latency.p99[g1-qp]", false, 250000, 200000, "ns",
                                "1000 samples & <more>", GateKind::duration, GateBound::at_most));
  s.driver_stats = {{"zeta_events", 12.0}, {"alpha_packets", 34.5}};
  s.passed = false;
  r.scenarios.push_back(s);
  r.passed = false;
  return r;
}

}  // namespace qb::report::testing
