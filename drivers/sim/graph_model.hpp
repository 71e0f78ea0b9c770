// The simulator's model of a multi-switch fabric (issue 29 part 5, docs/semantics.md "The
// simulator as a graph"): hosts, switches and directed channels from a policy::FabricPlan.
//
// - A host's NIC is the one-switch model's NIC: per class a TreeScheduler over the host's flows
//   of that class, a PortArbiter between the classes, serialisation at its link's rate.
// - A switch egress channel keeps, per class, one FIFO per ingress channel (round robin over
//   them: `per-ingress`) or per flow (`per-flow`), and a PortArbiter with the channel's QoS.
// - Store and forward; a packet crosses a channel in serialisation + propagation.
// - Lossless: every channel into a switch has, per class, an ingress buffer at the switch
//   (credit): the upstream egress (NIC or switch) starts a packet of class c only while that
//   buffer has room for a largest packet; the credit comes back one propagation delay after the
//   packet leaves the switch. A class held so is paused on that channel (PFC-like: per link and
//   class), and the pause spreads upstream as buffers fill: the victims of docs/semantics.md.
// - The receiver is a host; its ACK returns after the path's propagation (not serialised, as in
//   the one-switch model).
// - ECN (plan.congestion.ecn, per class): RED on the bytes a switch egress class holds as a
//   packet joins it; the receiver answers a marked packet with a CNP (at most one per flow per
//   cnp_interval), which takes the ACK's way back.
// - Lossy (plan.congestion.lossy): no credit; a switch egress class holds at most `buffer`
//   bytes and tail-drops the packet that does not fit; the receiver takes packets in PSN order
//   and NACKs a gap (GoBackNReceiver), the sender goes back N; a transport timer, restarted by
//   every packet a flow sends, repairs a lost tail (as the one-switch model).
// - A rate-control program (rate_control.hpp, e.g. the DPA emulator running DCQCN) sees the
//   one-switch model's events and acts through the same RateActions: a per-flow rate limiter
//   in front of the flow's NIC tree holds the flow out of it until its next packet may go.
// Events in a binary heap (time, then order of scheduling); one worker, virtual time.
#pragma once

#include <array>
#include <cstdint>
#include <queue>
#include <span>
#include <string_view>
#include <vector>

#include "qb/drivers/driver.hpp"
#include "qb/policies/congestion.hpp"
#include "qb/policies/fabric_plan.hpp"
#include "qb/policies/port_arbiter.hpp"
#include "qb/policies/tree_scheduler.hpp"
#include "depth_histogram.hpp"
#include "flow_rate_limiter.hpp"
#include "go_back_n.hpp"
#include "queue_depth_recorder.hpp"
#include "rate_control.hpp"
#include "sim_time.hpp"

namespace qb::drv::sim {

/// Counters of one channel inside the measured window.
struct ChannelStats {
  uint64_t wire_bytes = 0;
  uint64_t packets = 0;
  int64_t busy_ps = 0;
  int64_t queue_max_bytes = 0;  // most bytes queued at this egress (every class), at any time
  int64_t class_queue_max_bytes = 0;  // most bytes one class queued at this egress, at any time
  std::vector<int64_t> paused_ps;  // per class: held for lack of credit downstream
  uint64_t ecn_marks = 0;          // packets marked as they joined this egress (whole run)
  uint64_t drops = 0;              // lossy: packets tail-dropped at this egress (whole run)
  DepthHistogram depth;            // a switch egress: its bytes (every class) as each packet
                                   // joined, that packet included (whole run)
};

/// The queue depth series the graph model records: a switch egress class the expectation
/// loads to its rate (the fabric's bottlenecks, the most crossed first, at most kMaxSeries).
struct GraphSeries {
  uint32_t channel = 0;
  uint32_t c = 0;  // class
};

struct GraphStats {
  uint64_t packets = 0;  // started on their NIC link
  uint64_t messages = 0;
  uint64_t posted_messages = 0;
  uint64_t rejected_posts = 0;
  uint64_t wire_bytes = 0;  // on NIC links
  uint64_t payload_bytes = 0;
  uint64_t events = 0;
  uint64_t completions = 0;
  uint64_t dropped_messages = 0;
  uint32_t max_send_queue_depth = 0;
  uint64_t ecn_marks = 0;  // whole run, every switch egress
  uint64_t cnps = 0;       // sent by the receivers, whole run
  // Lossy mode, whole run.
  uint64_t switch_drops = 0;
  uint64_t out_of_sequence_packets = 0;  // arrived at the receiver out of PSN order: discarded
  uint64_t nacks = 0;
  uint64_t retransmitted_packets = 0;
  uint64_t retransmitted_wire_bytes = 0;
  uint64_t retransmit_timeouts = 0;
};

class GraphModel final : public Queue, public Clock, private RateActions {
 public:
  /// The rate-control program of the next runs (before configure(); nullptr: none).
  void attach(RateControl* program) noexcept { program_ = program; }
  /// Builds the model for one run from plan.graph (set). Validation is the driver's job.
  void configure(const Topology& topology, const policy::QosPlan& plan);
  void start() noexcept;
  void stop() noexcept { running_ = false; }

  uint32_t tx_burst(std::span<const Message> messages) noexcept override;
  uint32_t poll(std::span<Completion> out) noexcept override;
  int64_t now_ns() noexcept override { return now_ps_ / 1000; }
  void wait_until(int64_t deadline_ns) noexcept override;
  std::string_view name() const noexcept override { return "virtual"; }

  int64_t now_ps() const noexcept { return now_ps_; }
  const GraphStats& stats() const noexcept { return stats_; }
  const std::vector<ChannelStats>& channel_stats() const noexcept { return channel_stats_; }
  /// Classes in use (index bound of ChannelStats::paused_ps).
  uint32_t class_count() const noexcept { return classes_; }
  const std::vector<uint64_t>& flow_drops() const noexcept { return flow_drops_; }
  /// Bytes of each (channel into a switch, class) ingress buffer (lossless).
  int64_t buffer_bytes(uint32_t channel) const noexcept { return buffer_cap_[channel]; }
  bool lossy() const noexcept { return lossy_; }
  /// Lossy: the bytes every switch egress class holds at most.
  int64_t lossy_buffer_bytes() const noexcept { return lossy_buffer_bytes_; }
  /// The queue depth series recorded (empty without bins), and series `i`'s bins.
  const std::vector<GraphSeries>& series() const noexcept { return series_; }
  void series_bins(uint32_t i, std::vector<double>& max_bytes,
                   std::vector<double>& mean_bytes) const {
    depth_series_.series(i, now_ps_, max_bytes, mean_bytes);
  }
  static constexpr uint32_t kMaxSeries = 8;

 private:
  static constexpr uint32_t kNil = UINT32_MAX;
  struct SqEntry {
    Message message;
    int64_t sent_ps = 0;  // its first packet's first start
  };
  struct FlowState {
    uint32_t head = 0, next_tx = 0, tail = 0;  // send queue (see SimModel)
    uint32_t next_packet = 0, packets = 0;
    uint32_t host = 0, sched = 0, local = 0;
    int64_t ack_delay_ps = 0;  // the path's propagation, the ACK's way back
    int64_t last_cnp_ps = INT64_MIN;  // the receiver's last CNP for this flow
    int64_t release_ps = 0;           // held for rate: its release event's time
    uint32_t timer_generation = 0;    // the pending timer event's (older ones are stale)
    uint8_t probe = 0;                // kProbe* state of its RTT probe
    bool held_for_rate = false;       // out of its tree until its limiter lets it go
    bool started = false;             // its start event went
    // Lossy mode: PSNs, go-back-N and the transport timer.
    uint32_t next_psn = 0;           // PSN of the packet to send next
    uint32_t psn_end = 0;            // one past the highest PSN sent (below: a retransmission)
    uint32_t epoch = 0;              // how often the flow went back
    int64_t timeout_ps = INT64_MAX;  // the transport timer fires then (restarted per packet)
    bool timer_pending = false;      // a retransmit event is in the heap
  };
  static constexpr uint8_t kProbeNone = 0, kProbeOut = 1, kProbeWaiting = 2, kProbeBack = 3;
  struct Packet {
    uint32_t flow = 0;
    uint32_t next = kNil;  // FIFO link
    uint32_t payload_bytes = 0;
    uint32_t wire_bytes = 0;
    uint16_t slot = 0;
    uint8_t hop = 0;  // index into the flow's path of the channel it is on or queued for
    bool last = false;
    bool ecn = false;  // marked Congestion Experienced at a switch egress
    uint32_t psn = 0;
    uint32_t epoch = 0;  // its flow's epoch when sent (lossy: which round a NACK answers)
  };
  struct Fifo {
    uint32_t head = kNil, tail = kNil;
    uint32_t next_active = kNil;  // the class's ring of non-empty FIFOs at its egress
  };
  // Per (channel, class): the ring of non-empty FIFOs, bytes queued, pause state, credit.
  struct ClassState {
    uint32_t ring_head = kNil, ring_tail = kNil;
    int64_t queued_bytes = 0;
    int64_t credit_used = 0;        // bytes the upstream counts in the downstream buffer
    int64_t paused_since_ps = -1;   // held for credit since (-1: not held)
  };
  struct Egress {
    int64_t free_ps = 0;
    bool busy = false;
    uint64_t rate_bps = 1;
    uint64_t carry = 0;
    Serialiser serialiser;
    int64_t delay_ps = 0;
    uint32_t class_mask = 0;  // classes with queued packets (switch egress) or flows (NIC)
    int64_t wake_ps = INT64_MAX;  // a wake-up is scheduled then
    bool into_switch = false;     // the far end holds credit buffers
    int64_t queued_bytes = 0;
  };
  struct Host {
    uint32_t uplink = 0;
    int64_t discard_free_ps = 0;  // the discard engine of dropped (VL15) flows frees then
    uint64_t discard_carry = 0;
    std::vector<int32_t> sched_of_class;  // -1: none
  };
  enum class EventKind : uint8_t {
    channel_free, arrive, credit, ack, wake,
    // rate control (a = flow, b = a generation where a newer event replaces older ones)
    release, timer, probe_arrive, probe_back, program_wakeup, cnp, kick,
    // lossy mode (a = flow; b = the PSN the receiver expects)
    nack, retransmit
  };
  struct Event {
    int64_t time_ps = 0;
    uint64_t order = 0;
    EventKind kind = EventKind::wake;
    uint32_t a = 0;  // channel, packet or flow
    uint32_t b = 0;  // class (credit)
    uint32_t bytes = 0;
    bool operator>(const Event& o) const noexcept {
      return time_ps != o.time_ps ? time_ps > o.time_ps : order > o.order;
    }
  };

  // configure()'s steps, in order.
  void configure_channels();
  void configure_fifos();
  void configure_flows(const policy::QosPlan& plan);
  void configure_schedulers(const policy::QosPlan& plan);
  void schedule(int64_t time_ps, EventKind kind, uint32_t a, uint32_t b = 0,
                uint32_t bytes = 0) noexcept;
  void handle(const Event& event) noexcept;
  void try_send(uint32_t channel) noexcept;
  void nic_send(uint32_t host) noexcept;
  void switch_send(uint32_t channel) noexcept;
  /// Whether `channel`'s class `c` may start a packet (room downstream); keeps the pause time.
  bool has_credit(uint32_t channel, uint32_t c) noexcept;
  void transmit(uint32_t channel, uint32_t c, uint32_t packet) noexcept;
  void arrive(uint32_t packet) noexcept;
  void enqueue(uint32_t channel, uint32_t c, uint32_t fifo, uint32_t packet) noexcept;
  uint32_t dequeue(uint32_t channel, uint32_t c) noexcept;
  void wake_at(uint32_t channel, int64_t time_ps) noexcept;
  uint32_t new_packet() noexcept;
  void free_packet(uint32_t packet) noexcept { pool_[packet].next = free_; free_ = packet; }
  SqEntry& entry(uint32_t flow, uint32_t index) noexcept;
  /// The flow's next packet: payload, wire bytes and slot; advances its send queue.
  void take_packet(uint32_t flow, Packet& packet) noexcept;
  void discard(uint32_t flow) noexcept;
  /// [from, to) of virtual time inside the measured window.
  int64_t in_window(int64_t from_ps, int64_t to_ps) const noexcept;
  uint32_t fifo_of(uint32_t channel, uint32_t c, uint32_t in_channel, uint32_t packet) const
      noexcept;
  uint32_t host_of_uplink(uint32_t channel) const noexcept { return host_of_channel_[channel]; }
  /// Whether RED marks a packet joining class `c` that now holds `queued_bytes`.
  bool marks_ecn(uint32_t c, int64_t queued_bytes) noexcept;
  /// A marked packet of `flow` reached its receiver: a CNP back, unless one went too recently.
  void answer_mark(uint32_t flow) noexcept;
  /// A packet reached its destination host: delivered (a completion) or, lossy, discarded.
  void receive(uint32_t packet) noexcept;
  /// Lossy: whether class `c` of switch egress `channel` has no room for `packet` (then dropped).
  bool tail_drops(uint32_t channel, uint32_t c, uint32_t packet) noexcept;
  /// Lossy: `flow` goes back to `psn` (a NACK, or its timeout): its next packet is that one.
  void go_back(uint32_t flow, uint32_t psn) noexcept;
  /// Lossy: restarts `flow`'s transport timer (one event in the heap per flow at most).
  void restart_timer(uint32_t flow) noexcept;
  void retransmit_timeout(uint32_t flow) noexcept;
  void configure_series(const policy::QosPlan& plan);
  /// Records a switch egress's depth as a packet joins or leaves it.
  void depth_changed(uint32_t channel, uint32_t c) noexcept;
  // Rate control.
  void deliver(const RateEvent& event) noexcept;
  /// `flow` has work and may be in its tree: into it (unless its limiter holds it).
  void admit(uint32_t flow) noexcept;
  void hold_for_rate(uint32_t flow) noexcept;
  void handle_rate_event(const Event& event) noexcept;
  void probe_arrived(uint32_t flow) noexcept;
  void set_rate(uint32_t flow, double rate_bps) noexcept override;
  void request_rtt_probe(uint32_t flow) noexcept override;
  void set_timer(uint32_t flow, int64_t delay_ns) noexcept override;
  void answer_probe(uint32_t flow) noexcept override;
  void set_wakeup(int64_t delay_ns) noexcept override;
  uint64_t tx_wire_bytes(uint32_t host) const noexcept override;
  ClassState& class_state(uint32_t channel, uint32_t c) noexcept {
    return class_state_[static_cast<size_t>(channel) * classes_ + c];
  }

  const policy::FabricPlan* graph_ = nullptr;
  policy::WireModel wire_;
  bool running_ = false;
  int64_t now_ps_ = 0;
  uint64_t order_ = 0;
  uint32_t classes_ = 1;
  uint32_t largest_packet_bytes_ = 1;
  int64_t window_start_ps_ = 0, window_end_ps_ = INT64_MAX;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;

  std::vector<FlowState> flows_;
  std::vector<policy::RdmaOp> ops_;         // per flow
  std::vector<uint32_t> host_of_channel_;   // per channel from a host: its host index
  std::vector<uint8_t> dropped_;
  std::vector<SqEntry> send_queues_;
  std::vector<Host> hosts_;
  std::vector<policy::TreeScheduler> scheds_;
  std::vector<std::vector<uint32_t>> sched_flows_;
  std::vector<Egress> egress_;
  std::vector<policy::PortArbiter> arbiters_;  // per channel
  std::vector<ClassState> class_state_;        // channel * classes_ + class
  std::vector<int64_t> buffer_cap_;            // per channel (into a switch)
  std::vector<uint32_t> in_index_;             // per channel: its index among its far end's inputs
  std::vector<uint32_t> fifo_base_;            // per channel: first FIFO (per ingress fairness)
  std::vector<uint32_t> node_inputs_;          // per node: channels into it
  std::vector<uint32_t> flow_fifo_base_;       // per flow: first FIFO (per-flow fairness)
  std::vector<Fifo> fifos_;
  std::vector<Packet> pool_;
  uint32_t free_ = kNil;

  // Congestion: RED per class, the receivers' CNP spacing, the program and its limiter.
  std::array<policy::EcnMarking, policy::kMaxArbClasses> ecn_{};
  bool any_ecn_ = false;
  int64_t cnp_interval_ps_ = 0;
  uint64_t seed_ = 1;
  uint64_t random_state_ = 1;
  double line_rate_bps_ = 0.0;
  RateControl* program_ = nullptr;
  uint32_t program_events_ = 0;  // RateControl::event_mask()
  FlowRateLimiter limiter_;
  uint32_t wakeup_generation_ = 0;
  std::vector<uint64_t> host_tx_wire_bytes_;  // per host, since the run began
  std::vector<uint32_t> host_of_flow_;        // per flow (RateStart)
  std::vector<int64_t> probe_sent_ps_;        // per flow
  std::vector<int64_t> probe_answered_ps_;    // per flow

  std::vector<Completion> done_;  // due completions, in time order
  size_t done_read_ = 0;
  uint32_t tx_done_pending_ = 0;

  // Lossy mode.
  bool lossy_ = false;
  int64_t lossy_buffer_bytes_ = 0;
  int64_t retransmit_timeout_ps_ = 0;
  GoBackNReceiver receiver_;
  std::vector<uint32_t> first_psn_;  // per send queue slot: its message's first PSN (lossy only:
                                     // 4 KiB per flow that lossless runs need not carry)
  uint32_t& first_psn(uint32_t flow, uint32_t index) noexcept;

  // Queue depth series: per channel and class its index in series_ (kNil: none).
  std::vector<GraphSeries> series_;
  std::vector<uint32_t> series_of_;  // channel * classes_ + class
  QueueDepthRecorder depth_series_;

  GraphStats stats_;
  std::vector<ChannelStats> channel_stats_;
  std::vector<uint64_t> flow_drops_;
};

}  // namespace qb::drv::sim
