// What a driver implements (its backend, as a DPDK PMD implements ethdev's ops): the control
// path (capabilities/open/apply/start/stop/stats/close, returning Status; Errc::not_supported is
// a normal answer) and the fast path (Queue and Clock: burst calls that never throw and never
// allocate). The generic layer (driver.hpp) checks call order, the topology and the plan against
// capabilities() once, before any backend call: a backend never repeats those checks.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/policies/qos_plan.hpp"

namespace qb::drv {

/// One message (RDMA work request, or Ethernet frame) posted by the engine.
struct Message {
  uint32_t flow = 0;         // flow instance index in the QosPlan
  uint32_t bytes = 0;        // payload bytes (eth: frame bytes incl. FCS)
  int64_t scheduled_ns = 0;  // when the generator meant it to leave (run time, ns)
  uint64_t sequence = 0;     // per flow, from 0
};

struct Completion {
  /// sent_ns of a message whose send times the receiver cannot know (a receiver on another
  /// host): counted, but no latency is recorded for it.
  static constexpr int64_t kUntimed = INT64_MIN;
  enum class Kind : uint8_t {
    rx_packet,   // one packet of a message reached the receiver
    tx_done,     // the sender's completion for a whole message (RDMA: ACK arrived)
    rx_message,  // a whole message reached the receiver (verbs: a receive completion sees
                 // messages, not packets): payload_bytes and wire_bytes are the message's,
                 // its packets are counted from the wire model; last_of_message is true
  };
  Kind kind = Kind::rx_packet;
  bool last_of_message = false;  // rx_packet: the message's last packet
  /// tx_done: how many of the flow's messages completed at once, the last of them being
  /// `sequence` (a driver may fold a burst's completions of one flow into one: 1 per frame
  /// costs as much as building the frame). The simulator always reports 1.
  uint16_t messages = 1;
  uint32_t flow = 0;
  uint32_t payload_bytes = 0;  // rx_packet: payload in this packet; tx_done: message bytes
                               // (the last message's)
  uint32_t wire_bytes = 0;     // rx_packet: wire bytes of this packet (wire.hpp); tx_done: 0
  uint64_t sequence = 0;
  int64_t scheduled_ns = 0;  // the Message's scheduled time (tx_done: the last message's)
  int64_t sent_ns = 0;       // when the message actually left the sender (sim: its first
                             // byte went on the wire; dpdk: the Tx timestamp in the payload)
  int64_t time_ns = 0;       // rx_packet: arrival at the receiver; tx_done: completion time
};

/// Fast path: one per worker. Never throws, never allocates.
class Queue {
 public:
  virtual ~Queue() = default;
  /// Posts messages; returns how many were accepted (the rest: retry later).
  virtual uint32_t tx_burst(std::span<const Message> messages) noexcept = 0;
  /// Fills `out` with completions; returns how many.
  virtual uint32_t poll(std::span<Completion> out) noexcept = 0;
};

/// The engine never reads time directly. Real drivers give a TSC clock; the simulator gives
/// virtual time that advances only inside wait_until().
class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t now_ns() noexcept = 0;
  /// Returns once now_ns() >= deadline_ns, or earlier when the queue has something to poll
  /// that the engine must react to (a tx_done, or a nearly full completion buffer).
  virtual void wait_until(int64_t deadline_ns) noexcept = 0;
  /// Named in the results: "virtual" (simulator), "tsc", "nic".
  virtual std::string_view name() const noexcept = 0;
};

struct Capabilities {
  /// Virtual time: results are deterministic per seed, and repetitions may run side by side.
  bool virtual_time = false;
  bool hw_sched_tree = false;  // enforces the mlx5 tree in hardware
  bool hw_timestamps = false;
  uint32_t max_workers = 1;
  uint32_t max_flows = UINT32_MAX;  // flow instances per run
  uint32_t max_hosts = 1;           // sending hosts of the plan (QosPlan::hosts)
  /// Runs a multi-switch fabric (QosPlan::graph: a suite's [topology]) in one process.
  bool fabric_graph = false;
  /// apply() needs a scheduling tree with every flow on one of its elements (a driver that
  /// enforces the tree, in hardware or in software).
  bool needs_tree = true;
  /// Most messages a flow may have posted and not yet completed (tx_done); the engine never
  /// exceeds it, so a driver's per-flow send queue of this depth cannot overflow.
  uint32_t max_outstanding_per_flow = 512;
  /// false: a send-only driver (e.g. DPDK with rx_port = "none"); its receiver, in another
  /// process or host, measures and judges the run.
  bool receives = true;
  /// Runs the plan's congestion settings: ECN marking at a switch, CNPs, the DPA program
  /// (policy::CongestionPlan). Today only the simulator, whose DPA is the emulator.
  bool congestion_model = false;
  /// In a multi-host job, connects its endpoints to the other hosts' through
  /// Topology::job's exchange, once per repetition (verbs: QP numbers, PSNs, GIDs, rkeys). A
  /// driver whose frames find their receiver on their own (DPDK on a switched fabric) does not.
  bool exchanges_endpoints = false;
  /// Buffers of the largest message (Topology::max_message_bytes) each worker allocates and
  /// registers up front (verbs: a source and a target); the run's memory estimate counts them.
  uint32_t message_buffers_per_worker = 0;
  /// Why this driver's frames cannot reach another process of a multi-host job (the verbs fake
  /// device lives in one process); empty: they can. A job's "nothing received" then says so.
  std::string no_data_between_processes;
};

/// A multi-host job's collective for the drivers that must connect endpoints across hosts,
/// provided by the job (cluster/, over MPI) instead of a driver's own connection.
class JobExchange {
 public:
  virtual ~JobExchange() = default;
  /// Every rank's `mine` in rank order, this rank's included. Every rank of the job takes part
  /// once per repetition, between open() and start(); a rank whose driver failed before takes
  /// part with its error, which every rank then gets (named by rank and host) instead.
  virtual Result<std::vector<std::string>> all_gather(const std::string& mine) = 0;
};

/// This process's part in a multi-host job (one rank per host, plus the receiver's; or, for a
/// suite's [topology], one rank per host that sends and receives).
struct JobPart {
  JobExchange* exchange = nullptr;  // null: the driver does not exchange endpoints
  /// The rank that receives every flow and measures; the others send.
  bool receiver = false;
  /// A sender: the plan's flows it sends (ascending); each other flow is another host's.
  std::vector<uint32_t> sent_flows;
  /// A fabric job ([topology]): every rank sends its host's flows (sent_flows) and receives
  /// the flows destined to its host (received_flows, ascending); `exchange` is set for every
  /// driver. flow_receiver_rank[f]: the rank that receives flow f (where a sender addresses
  /// it). Empty in a one-receiver job.
  bool fabric = false;
  uint32_t rank = 0;
  std::vector<uint32_t> received_flows;
  std::vector<uint32_t> flow_receiver_rank;
};

struct Topology {
  double port_rate_bps = 0.0;
  policy::WireModel wire;
  int64_t propagation_delay_ns = 0;  // one way
  uint32_t flow_count = 0;
  uint32_t workers = 1;
  /// Which repetition of its scenario this run is (0-based): a driver's own random streams
  /// (the simulator's ECN marking) draw a stream per repetition, so repetitions sample them.
  uint32_t repetition = 0;
  /// The largest message any flow posts (payload bytes): what a driver's buffers must hold.
  uint32_t max_message_bytes = 0;
  /// Set (by a signal handler) when the run must end: waits in open() and start(), such as a
  /// link coming up, give up with an error instead of running out their time. May be null.
  const std::atomic<bool>* stop = nullptr;
  /// A rank of a multi-host job (cluster/): this host's job clock (qb/common/job_clock.hpp)
  /// minus the receiver's, as rank 0 measured it. A driver whose frames carry their send time
  /// stamps them in the job clock less this (the receiver's clock), and a receiver reads them
  /// so; unset (one process): the driver's own timestamps, as on one host.
  std::optional<int64_t> job_clock_offset_ns;
  /// A rank of a multi-host job: its part, and the exchange for capabilities().exchanges_endpoints
  /// drivers. Unset: one process drives and receives every flow.
  std::optional<JobPart> job;
  /// The measured window, [window_start_ns, window_end_ns) of run time: what a driver counts per
  /// flow besides the completions (flow_drops()) counts inside it, as the engine counts those.
  int64_t window_start_ns = 0;
  int64_t window_end_ns = INT64_MAX;
};

/// The worker that drives flow `flow`: the engine gives worker w every flow f with
/// f % workers == w, and a driver with per-flow resources (QPs) puts them on that worker.
inline uint32_t worker_of_flow(uint32_t flow, uint32_t workers) noexcept {
  return workers == 0 ? 0 : flow % workers;
}

/// Counters a driver reports after a run (copied into the results).
using DriverStats = std::vector<std::pair<std::string, double>>;

/// A switch egress queue's depth over the measured window, per time bin (the simulator's).
struct QueueDepthSeries {
  std::string name;                // the egress class: "port", "TC3", "VL1"
  std::vector<double> max_bytes;   // per bin: the deepest
  std::vector<double> mean_bytes;  // per bin: time-weighted mean
};

/// How much of a switch class's sending hosts' time lossless back-pressure held them (waiting
/// for credit), per time bin of the measured window (the simulator's).
struct BackpressureSeries {
  std::string name;                     // the switch class: "port", "TC3", "VL1"
  std::vector<double> paused_fraction;  // per bin: time-weighted, mean over the class's hosts
};

/// What a driver's plan check knows besides the plan, before anything is opened.
struct PlanContext {
  bool in_job = false;  // a rank of a multi-host job (one process per host and the receiver)
};

/// The ops a driver implements. The generic Driver calls them in order (open -> apply [-> apply]
/// -> start -> queue/clock -> stop -> stats -> close), with a topology and plan that already
/// passed the checks of capabilities(); close() may come in any state and releases everything.
/// The optional ops have defaults (as rdma-core's unset provider ops answer EOPNOTSUPP): apply()
/// answers Errc::not_supported, the figures are none; a new driver implements what it can.
class DriverBackend {
 public:
  virtual ~DriverBackend() = default;
  virtual Capabilities capabilities() const = 0;
  /// What this driver cannot run in `plan`, known from its options alone: checked before
  /// anything is opened (`run`, and `validate --driver`), with the suite key in Error::where
  /// ("driver.verbs.hw_pacing", "flows[3]"). Nothing by default: capabilities() says the rest.
  virtual Status check_plan(const policy::QosPlan& plan, const PlanContext& context) const {
    (void)plan;
    (void)context;
    return {};
  }
  virtual Status open(const Topology& topology) = 0;
  /// Programs the plan's QoS (tree, classes, caps); by default the driver can program none.
  virtual Status apply(const policy::QosPlan& plan);
  /// Time zero of the run.
  virtual Status start() = 0;
  virtual Queue& queue(uint32_t worker) = 0;
  virtual Clock& clock(uint32_t worker) = 0;
  virtual Status stop() = 0;
  /// The driver's own counters (named, sorted as it likes); none by default.
  virtual DriverStats stats() const { return {}; }
  /// Queue depth over time, for the drivers that model a switch; none by default.
  virtual std::vector<QueueDepthSeries> queue_depth_series() const { return {}; }
  /// Back-pressure over time, for the drivers that model a lossless switch; none by default.
  virtual std::vector<BackpressureSeries> backpressure_series() const { return {}; }
  /// Per flow instance (plan order): its packets the driver's fabric dropped inside the measured
  /// window, which no completion reports (the simulator's switch and VL15 discards); empty
  /// (the default): none counted.
  virtual std::vector<uint64_t> flow_drops() const { return {}; }
  virtual void close() noexcept = 0;
};

}  // namespace qb::drv
