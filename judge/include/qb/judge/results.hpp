// The results model: what a run measured, judged against what the policy should give.
// Plain data; every reporter (console, JSON, HTML, JUnit) renders these structs.
// All *_bps figures count wire bytes (see policies/wire.hpp) unless named *_payload_bps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qb/engine/counters.hpp"
#include "qb/engine/latency_summary.hpp"
#include "qb/judge/topology_results.hpp"

namespace qb::judge {

inline constexpr const char* kResultsSchema = "qosbench.results/1";

// The latency figures of a flow, group or class (engine/latency_summary.hpp).
using LatencySummary = engine::LatencySummary;
using LatencyReps = engine::LatencyReps;

struct FlowResult {
  std::string name;
  std::string group;
  std::string leaf;
  std::optional<double> offered_bps;  // empty: saturating
  /// What the policy should give it over the measured window: each epoch's share weighted by
  /// the time the epoch lasted in the window (judge/expectation_window.hpp).
  double expected_bps = 0.0;
  double measured_bps = 0.0;  // mean over repetitions
  double measured_payload_bps = 0.0;
  double error = 0.0;  // measured / expected - 1
  /// The relative standard uncertainty (1 sigma) of measured_bps from sampling alone
  /// (judge/sampling_noise.hpp); share judgements allow z times it.
  double noise = 0.0;
  /// False: not judged (started after the window ended); `not_judged` says why. Absent (true)
  /// in older results.
  bool judged = true;
  std::string not_judged;
  std::vector<double> measured_bps_reps;
  engine::Counters counts;  // the results carry those counters.hpp marks in_results
  LatencySummary latency;            // from scheduled send time
  LatencySummary latency_from_sent;  // from actual send time
  LatencyReps latency_reps;          // per repetition
  std::vector<double> series_bps;    // per bin, mean over repetitions
  // Traffic class and arbitration (Ethernet TC, InfiniBand SL/VL). Written to JSON only when the
  // scenario has classes (ScenarioResult::classes not empty); absent in older results.
  uint32_t host = 0;      // sending host
  std::string tclass;     // tx traffic class after inheritance: "best_effort", "dscp:46", ...
  uint32_t dscp = 0;      // IP DSCP on the wire
  uint32_t sl = 0;        // IB SL (RoCE: the QP's sl)
  uint32_t priority = 0;  // Ethernet priority the port uses
  std::string arb_class;  // the class it is judged in: "TC3", "VL1", "port" (see ClassResult)
};

/// One arbitration class (Ethernet TC or IB VL) at the port that decides the shares: the switch
/// egress when the plan has a switch, else the NIC port (summed over hosts).
struct ClassResult {
  std::string name;  // "TC3" / "VL1" / "port"
  uint32_t flows = 0;
  double expected_bps = 0.0;  // sum of its flows' expected
  double measured_bps = 0.0;
  double error = 0.0;           // measured / expected - 1
  double expected_share = 0.0;  // of the class port's capacity (0..1)
  double measured_share = 0.0;
  LatencySummary latency;  // merged from its flows (from scheduled send time)
};

struct GroupResult {
  std::string name;
  std::string leaf;
  uint32_t flows = 0;
  double expected_bps = 0.0;  // sum of its flows' (time-weighted)
  double measured_bps = 0.0;
  double error = 0.0;
  double noise = 0.0;  // relative 1 sigma, from its flows'
  bool judged = true;  // false: none of its flows started in the window
  std::vector<double> measured_bps_reps;
  LatencySummary latency;
  LatencySummary latency_from_sent;
  LatencyReps latency_reps;
  std::vector<double> series_bps;
};

/// One element of the scheduling tree with what it should and did carry.
struct ElementResult {
  std::string name;
  std::string parent;  // empty for the root
  bool is_leaf = false;
  uint32_t bw_share = 0;
  uint32_t weight = 1;
  std::optional<double> cap_bps;
  double demand_bps = 0.0;  // +inf is written as null (saturating subtree)
  double expected_bps = 0.0;
  double measured_bps = 0.0;
};

/// The scheduling tree of one sending host's NIC (multi-host runs: every NIC runs the suite's
/// tree over its own flows). Figures are that host's flows only; ScenarioResult::tree sums them.
struct HostTreeResult {
  uint32_t host = 0;
  std::vector<ElementResult> tree;
};

/// One Ethernet traffic class as the port's ETS (IEEE 802.1Qaz, mlx5 dcbnl) programs it.
struct EtsTcResult {
  uint32_t tc = 0;
  std::string tsa;                     // "strict", "ets" or "vendor"
  uint32_t ets_percent = 0;            // DWRR share among the ETS TCs (0 for strict and vendor)
  std::optional<double> max_rate_bps;  // the TC cap as the hardware stores it; empty: none
  uint32_t group = 0;                  // mlx5 arbitration group: a higher group is served first
};

/// One VLArb table entry, in programmed order.
struct VlArbEntryResult {
  uint32_t vl = 0;
  uint32_t weight = 0;  // 64-byte credits; 0: the entry is skipped
};

/// What one port arbitrates by, as the plan programmed it: Ethernet ETS or InfiniBand
/// SL2VL + VLArb. Only the fields of its kind are set.
struct PortArbitrationResult {
  std::string port;           // "nic" (every sending NIC) or "switch" (the switch egress port)
  std::string kind;           // "ets" or "vlarb"
  bool decides = false;       // the port whose classes ScenarioResult::classes reports
  double capacity_bps = 0.0;  // one such port's line rate (wire bit/s)
  // ets
  std::string trust;              // "pcp" or "dscp": what picks a packet's priority
  std::vector<uint32_t> prio_tc;  // priority -> TC, 8 entries
  std::vector<EtsTcResult> tcs;   // TC0..TC7
  // vlarb
  std::vector<uint32_t> sl2vl;  // SL -> VL, 16 entries (15: dropped)
  std::vector<VlArbEntryResult> vlarb_high;
  std::vector<VlArbEntryResult> vlarb_low;
  uint32_t high_limit = 0;  // high-table bytes before a low entry must get a turn, in 4 KB units
                            // (255: unlimited)
  uint32_t op_vls = 0;      // IBA encoding: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14
};

/// What a gate's figure is: it decides how reporters write the value and the threshold.
enum class GateKind {
  ratio,     // a relative figure (share error, cap overshoot), written as a percentage
  duration,  // nanoseconds (a latency percentile), written with a time unit
  index,     // a plain number (the normalised Jain index)
  bytes,     // a size (a switch queue depth), written with a byte unit
};

/// Which side of the threshold passes.
enum class GateBound {
  at_most,   // value <= threshold
  at_least,  // value >= threshold
};

struct GateResult {
  std::string name;  // "max_share_error", "latency.p99[g1-qp]", ...
  bool passed = false;
  double value = 0.0;
  double threshold = 0.0;
  std::string unit;    // "", "ns"
  std::string detail;  // which flow/element decided it
  /// Written into the results JSON; a file written before them gets both derived from the
  /// name and unit (gate_kind.hpp).
  GateKind kind = GateKind::ratio;
  GateBound bound = GateBound::at_most;
  /// What the judgement allows beyond the threshold for sampling noise (same unit as value):
  /// it passes when value is within threshold + allowance (at_most) or threshold - allowance
  /// (at_least). 0 when the figure is exact.
  double allowance = 0.0;
  /// False: listed but not judged (turned off by the suite, or nothing to judge: no flow
  /// started, no samples); `detail` says why, and it neither passes nor fails the run.
  bool judged = true;
  /// The limit is the documented default (the suite did not write it).
  bool default_limit = false;
  /// When it failed: what did not hold, for the verdict ("shares not held: g1 +47.0% (limit
  /// 5%)"). Not in the file (the verdict is).
  std::string failure;
};

/// A gate with the fields every gate has (the others keep their defaults).
inline GateResult gate_result(std::string name, bool passed, double value, double threshold,
                              std::string unit, std::string detail, GateKind kind,
                              GateBound bound) {
  GateResult gate;
  gate.name = std::move(name);
  gate.passed = passed;
  gate.value = value;
  gate.threshold = threshold;
  gate.unit = std::move(unit);
  gate.detail = std::move(detail);
  gate.kind = kind;
  gate.bound = bound;
  return gate;
}

struct Fairness {
  double jain = 1.0;              // normalised: over measured/expected of every flow
  double worst_flow_error = 0.0;  // max |error|
  std::string worst_flow;
  double worst_group_error = 0.0;
  std::string worst_group;
  std::vector<double> jain_series;  // per time bin
  std::vector<double> jain_reps;    // per repetition
};

/// How the flows' rates settled on their shares after each change of the active flows (a
/// flow's start), judged on the time series: an epoch has converged from the first bin after
/// which every active flow stays within `tolerance` of its share until the epoch ends.
struct ConvergenceEpoch {
  int64_t start_ns = 0;  // from time zero (the warm-up's start)
  uint32_t active_flows = 0;
  bool judged = false;     // false: no whole time bin inside the epoch's measured part
  bool converged = false;  // judged and settled before the epoch ended
  int64_t time_ns = 0;     // converged: from the epoch's start to the first settled bin
  std::string not_judged;  // why, when not judged: "starts after the window", "no whole bin"
};

/// One flow's share over one epoch's settled part (the settled share judgement's rows; not in
/// the file).
struct SettledShare {
  std::string flow;
  double error = 0.0;  // mean over the settled bins / the epoch's share - 1
  double noise = 0.0;  // relative 1 sigma over those bins
};

struct Convergence {
  bool present = false;  // the scenario has flows joining later, or a DPA program
  double tolerance = 0.05;
  std::vector<ConvergenceEpoch> epochs;
  bool converged = false;     // every judged epoch converged (and one was judged)
  int64_t worst_time_ns = 0;  // over the judged epochs
  /// From when the settled figures below are measured (the last epoch's settled bin) to the
  /// end of the window; the share and fairness gates use them.
  int64_t settled_from_ns = 0;
  double jain_settled = 1.0;
  double worst_flow_error_settled = 0.0;
  std::string worst_flow_settled;
  double worst_flow_noise_settled = 0.0;  // that flow's relative noise over its settled bins
  /// Lossless back-pressure, not the program, held the rates: a sender spent more than
  /// kBackpressureHeldFraction of the window paused by credit (docs/semantics.md).
  bool held_by_backpressure = false;
  double paused_fraction = 0.0;  // the most-paused sender's paused time over the run
  std::vector<SettledShare> settled_shares;        // per (flow, epoch); not in the file
  std::vector<SettledShare> settled_group_shares;  // per (group, epoch); not in the file
};

/// A reconciliation of the port's counter deltas with the run (nic/counter_checks.hpp): a
/// failed one is a warning in the results, not a failed judgement (the port may carry other
/// traffic).
struct NicCheckResult {
  std::string name;  // "priority_bytes", "cnp_vs_ecn", "pause_on_lossy", "retransmissions"
  bool passed = true;
  bool checked = true;  // false: the counters or the run's direction do not allow it
  std::string detail;
};

/// A switch egress queue's depth per time bin of the measured window.
struct QueueDepthSeries {
  std::string name;                // the egress class: "port", "TC3", "VL1"
  std::vector<double> max_bytes;   // per bin: the deepest over the repetitions
  std::vector<double> mean_bytes;  // per bin: time-weighted, mean over the repetitions
};

/// One channel (an egress port and its cable) of a [topology] that flows cross: what the
/// expectation puts on it against what the flows crossing it measured, and the simulator's own
/// figures for it (0 when the driver gave none).
struct LinkResult {
  std::string name;  // "leaf0:3->spine1:1"
  double rate_bps = 0.0;
  double expected_bps = 0.0;
  double measured_bps = 0.0;  // the sum of the measured rates of the flows crossing it
  double utilisation = 0.0;   // busy time over the window
  double queue_max_bytes = 0.0;
  double queue_p50_bytes = 0.0;  // a switch egress: the bytes queued as its packets joined
  double queue_p99_bytes = 0.0;  // (every class, the packet included; whole run)
  double paused_ns = 0.0;  // held for credit downstream (every class), mean over repetitions
  double ecn_marks = 0.0;  // marked at this egress (whole run), mean over repetitions
  double drops = 0.0;      // lossy: tail-dropped at this egress (whole run), mean over repetitions
};

/// A flow that fell short of its expectation while a channel on its path was paused by a switch
/// whose egress towards the flow was not congested: it lost to congestion on other flows' paths
/// (PFC congestion spreading; docs/semantics.md, "Victims").
struct VictimResult {
  std::string flow;
  std::string paused_at;  // the channel that was paused
  double paused_ns = 0.0;
  double error = 0.0;  // the flow's measured / expected - 1
};

/// Real-time drivers: the repetition whose worker lost the largest fraction of its run to
/// other processes (engine/starvation.hpp, docs/dpdk.md "Starved workers").
struct Starvation {
  bool present = false;  // measured (real-time drivers only); not in the file otherwise
  int64_t lost_ns = 0;   // lost to other processes (engine::lost_to_others)
  int64_t run_ns = 0;    // the worker's loop
  double lost_fraction = 0.0;
  int64_t run_delay_ns = 0;
  int64_t stalled_ns = 0;
  int64_t longest_stall_ns = 0;
  uint64_t stalls = 0;
  int64_t involuntary_switches = 0;
  bool unreliable = false;  // lost_fraction above the warning bound (1 %)
  bool invalid = false;     // above the invalid-measurement bound (10 %): exit 3
};

struct ScenarioResult {
  std::string name;
  std::string transport;
  uint32_t mtu_bytes = 0;
  double capacity_bps = 0.0;  // port line rate, wire bit/s
  uint64_t seed = 0;
  uint32_t repetitions = 0;
  uint32_t repetitions_completed = 0;
  /// Interrupted repetitions whose rates are over the time they measured (measured_ns_reps,
  /// one entry per measured repetition); both only in the file when there is one.
  uint32_t repetitions_partial = 0;
  std::vector<int64_t> measured_ns_reps;
  int64_t warmup_ns = 0, duration_ns = 0, bin_ns = 0;
  /// The suite's `bin` when the series used a coarser one (bin_ns); 0 when it was used as is.
  int64_t bin_requested_ns = 0;
  double wall_seconds = 0.0;  // sum over repetitions
  std::vector<FlowResult> flows;
  std::vector<GroupResult> groups;
  std::vector<ElementResult> tree;  // summed over hosts
  /// Per sending host when there are several (empty otherwise and in older results).
  std::vector<HostTreeResult> host_trees;
  /// The ports that arbitrate between classes (empty when none does, and in older results).
  std::vector<PortArbitrationResult> arbitration;
  /// Per arbitration class, in class order; empty when the port has no classes and one host.
  std::vector<ClassResult> classes;
  std::vector<std::string> oracle_notes;  // e.g. "VLArb credit rule (low table): ..."
  /// Why a class or flow is expected far below what it offers (suite/shortfall.hpp).
  std::vector<std::string> shortfalls;
  /// A [topology]'s nodes, links and per-flow paths, for the report's drawing (empty otherwise
  /// and in older results).
  TopologyResult topology;
  Fairness fairness;
  Convergence convergence;  // in the file only when present
  Starvation starvation;    // in the file only when present
  std::vector<GateResult> gates;
  std::vector<std::pair<std::string, double>> driver_stats;  // mean over repetitions
  /// The port's counters against the run; in the file only when the driver read them
  /// (driver_stats "nic.*").
  std::vector<NicCheckResult> nic_checks;
  std::vector<QueueDepthSeries> queue_depth;  // in the file only when the driver gave it
  /// A [topology]'s channels that flows cross, and its victims (both only in the file then).
  std::vector<LinkResult> links;
  std::vector<VictimResult> victims;
  bool passed = true;
};

/// A scenario none of whose repetitions measured anything (the run was interrupted before the
/// first one reached its window's end or was cut in it): its figures are not figures.
inline bool nothing_measured(const ScenarioResult& scenario) {
  return scenario.repetitions_completed == 0 && scenario.repetitions_partial == 0;
}
inline constexpr const char* kNothingMeasured =
    "nothing measured: the run was interrupted before a repetition was measured";

/// The run's verdict in words: what failed and what was not judged, so that the last line never
/// says more than was judged (judge/verdict.hpp).
struct Verdict {
  uint32_t judged = 0;  // judgements made (gates with judged = true)
  uint32_t held = 0;
  uint32_t unmeasured = 0;              // scenarios with nothing measured (not in the file)
  std::vector<std::string> failed;      // "shares not held: h0-silver +47.0% (limit 5%)"
  std::vector<std::string> not_judged;  // "group shares: off in the suite"
  std::string summary;                  // the console's last line without the timing
};

struct Results {
  std::string schema = kResultsSchema;
  std::string tool_version;
  std::string suite;
  std::string suite_file;
  std::string config_hash;
  std::string driver;
  std::string clock;
  std::string host;
  std::string date_utc;  // ISO 8601
  uint32_t jobs = 1;
  bool complete = true;
  /// A signal (Ctrl-C, SIGTERM) stopped the run (complete is then false): what a wrapper of
  /// mpirun, which turns a rank's exit 3 into 1, reads to tell an interrupt from a failure.
  bool interrupted = false;
  bool passed = true;
  double wall_seconds = 0.0;
  std::vector<std::string> warnings;
  /// Ports the run programmed (nic_qos = "apply") and could not put back, one line each: the
  /// run fails (exit 3) whatever its gates say.
  std::vector<std::string> nic_left_changed;
  std::vector<ScenarioResult> scenarios;
  Verdict verdict;
};

}  // namespace qb::judge
