// The simulator's one model of the fabric (docs/semantics.md, "Simulator"): per host a NIC with
// per-QP send queues, one TreeScheduler per arbitration class over that class's flows, a
// PortArbiter picking the class, and the NIC's link (serialisation at the port rate, wire
// bytes per docs/semantics.md) -> propagation -> optional switch (SimSwitch: per (ingress host,
// switch class) buffers with credit back-pressure, egress arbitration) -> receiver, and the ACK
// back to the sender. Flows whose SL maps to VL15 are dropped at the NIC by a discard engine
// paced at the port rate (no link time). The model is the driver's Queue and Clock at once (one
// worker). Completions are produced when a packet starts serialising on the last link (its rx
// time and, for a message's last packet, its tx_done time are known then) into rings that are
// FIFO in time; poll() merges them. No allocation after configure().
//
// Design choice: one model, written once, instantiated for two shapes of fabric.
// SimModel<Fabric> takes any plan. SimModel<SingleLink> is the same code with the fabric's
// dimensions fixed at compile time (one host, one class, no arbiter, no switch, no drops): its
// one host, lane and scheduler are held inline (sim_dimension.hpp) and the loops over hosts,
// classes and rings fold away, so the common plan (one port, the tree, nothing else) keeps the
// per-packet cost of a dedicated single-scheduler loop. The shape is asked only in a handful of
// accessors below (host_count(), class_mask(), choose(), switched(), ...), never as a runtime
// flag on the per-packet path; SimPort picks the shape once per plan. Measured on
// sim_driver_bench's plans (callgrind, instructions per simulated packet): SingleLink no more
// than the old dedicated loop, the same plans run through SimModel<Fabric> +75-85%.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "flow_rate_limiter.hpp"
#include "qb/drivers/driver.hpp"
#include "qb/policies/port_arbiter.hpp"
#include "qb/policies/tree_scheduler.hpp"
#include "queue_depth_recorder.hpp"
#include "rate_control.hpp"
#include "sim_dimension.hpp"
#include "sim_events.hpp"
#include "sim_stats.hpp"
#include "sim_switch.hpp"
#include "sim_time.hpp"
#include "wakeup_heap.hpp"

namespace qb::drv::sim {

/// Shapes of the fabric a SimModel is built for.
struct SingleLink {  // one host, no port QoS (one class), no switch, no drops, no rate control
  static constexpr bool kFabric = false;
};
struct Fabric {  // anything: port QoS, hosts, a switch, dropped flows, a rate-control program
  static constexpr bool kFabric = true;
};

/// Whether `plan` needs the Fabric shape (port QoS, several hosts, a switch, a dropped flow).
bool needs_fabric(const policy::QosPlan& plan) noexcept;

template <class Shape>
class SimModel final : public Queue, public Clock, private RateActions {
 public:
  static constexpr bool kFabric = Shape::kFabric;

  /// The rate-control program of the next runs (before configure(); nullptr: none). Fabric
  /// only: SimPort builds a Fabric model when a program is attached.
  void attach(RateControl* program) noexcept;

  /// Builds the model for one run. Validation is the driver's job; SingleLink takes only plans
  /// for which needs_fabric() is false.
  void configure(const Topology& topology, const policy::QosPlan& plan);
  /// Time zero; empties every queue and ring.
  void start() noexcept;
  void stop() noexcept { running_ = false; }

  uint32_t tx_burst(std::span<const Message> messages) noexcept override;
  uint32_t poll(std::span<Completion> out) noexcept override;
  int64_t now_ns() noexcept override { return now_ps_ / 1000; }
  void wait_until(int64_t deadline_ns) noexcept override;
  std::string_view name() const noexcept override { return "virtual"; }

  int64_t now_ps() const noexcept { return now_ps_; }
  const PortStats& stats() const noexcept { return stats_; }
  size_t rx_ring_capacity() const noexcept {
    return lanes_.empty() ? 0 : lanes_.front().rx.capacity();
  }
  size_t tx_done_ring_capacity() const noexcept {
    return lanes_.empty() ? 0 : lanes_.front().tx_done.capacity();
  }
  uint32_t hosts() const noexcept { return static_cast<uint32_t>(hosts_.size()); }
  bool switched() const noexcept {
    if constexpr (kFabric) return switched_;
    return false;
  }
  /// Bytes of switch buffer per (ingress host, switch class); 0 without a switch.
  int64_t switch_buffer_bytes() const noexcept { return switched() ? switch_.buffer_bytes() : 0; }
  int64_t lossy_buffer_bytes() const noexcept {
    return switched() ? switch_.lossy_buffer_bytes() : 0;
  }
  int64_t queue_depth_percentile_bytes(double fraction) const noexcept {
    return switched() ? switch_.queue_depth_percentile_bytes(fraction) : 0;
  }
  int64_t queue_depth_max_bytes() const noexcept {
    return switched() ? switch_.queue_depth_max_bytes() : 0;
  }
  void queue_depth_series(uint32_t c, std::vector<double>& max_bytes,
                          std::vector<double>& mean_bytes) const {
    max_bytes.clear();
    mean_bytes.clear();
    if (switched()) switch_.depth_series(c, now_ps_, max_bytes, mean_bytes);
  }
  /// Per flow: its packets dropped (VL15 discards at the NIC, lossy switch tail drops) inside
  /// the measured window.
  const std::vector<uint64_t>& flow_drops() const noexcept { return flow_drops_; }
  /// Switch buffer `buffer` (an ingress host and switch class): whether flows feed it, and how
  /// long its senders waited for credit (lossless back-pressure) by now.
  bool buffer_has_flows(uint32_t buffer) const noexcept {
    return buffer < credit_waits_.size() && credit_waits_[buffer].flows;
  }
  int64_t backpressure_paused_ps(uint32_t buffer) const noexcept;
  /// Switch class `c`: per bin of the measured window, the share of its sending hosts' time
  /// spent waiting for credit (empty without a lossless switch or bins).
  void backpressure_series(uint32_t c, std::vector<double>& paused_fraction) const;
  uint32_t switch_buffer_count() const noexcept { return switched() ? switch_.buffer_count() : 0; }
  /// The host and switch class of switch buffer `buffer`.
  uint32_t host_of_buffer(uint32_t buffer) const noexcept { return switch_.host_of(buffer); }
  uint32_t class_of_buffer(uint32_t buffer) const noexcept {
    return buffer % switch_.class_count();
  }
  /// Classes that have flows, at the NIC ports and at the switch egress.
  uint32_t nic_class_mask() const noexcept { return nic_class_mask_; }
  bool lossy_fabric() const noexcept { return lossy(); }
  uint32_t switch_class_mask() const noexcept { return switched() ? switch_.class_mask() : 0; }

 private:
  struct SqEntry {
    Message message;
    int64_t sent_ps = 0;     // start of the first packet
    uint32_t first_psn = 0;  // its first packet's PSN (set when first sent)
  };
  struct FlowQueue {
    uint32_t head = 0;     // oldest message whose tx_done has not been polled
    uint32_t next_tx = 0;  // message being (or next to be) transmitted
    uint32_t tail = 0;     // next free slot
    uint32_t next_packet = 0;
    uint32_t packets = 0;  // of the message at next_tx, once its first packet went
    policy::RdmaOp op = policy::RdmaOp::write;
    uint32_t middle_wire_bytes = 0;  // of a packet neither first nor last of its message
    uint32_t next_psn = 0;           // PSN of the packet to send next
    uint32_t psn_end = 0;            // one past the highest PSN sent (below: a retransmission)
    uint32_t epoch = 0;              // lossy: how often the flow went back
    // The wire model's answers for the last message size this flow sent (packets == 0: none
    // yet): its packet count and its first packet's payload and wire bytes. A flow sends runs
    // of one size; the wire model is two calls per message otherwise.
    uint32_t cached_bytes = 0;
    uint32_t cached_packets = 0;
    uint32_t cached_first_payload = 0;
    uint32_t cached_first_wire = 0;
  };
  // Why a backlogged flow is out of its class's tree (FlowInfo::held): it is never scheduled
  // while any bit is set.
  static constexpr uint8_t kHeldDropped = 1;  // VL15: the discard engine takes its messages
  static constexpr uint8_t kHeldCredit = 2;   // its switch buffer has no room for its packet
  static constexpr uint8_t kHeldRate = 4;     // its rate limiter makes its next packet wait
  struct FlowInfo {
    uint32_t host = 0;
    uint32_t sched = 0;   // index into scheds_
    uint32_t local = 0;   // queue index inside that scheduler
    uint32_t buffer = 0;  // switch buffer index
    uint8_t nic_class = 0;
    uint8_t switch_class = 0;
    uint8_t held = 0;  // kHeld* bits
  };
  struct Host {
    std::array<int32_t, policy::kMaxArbClasses> sched_of_class{};  // -1: no flows
    uint32_t class_mask = 0;                                       // classes with a scheduler
    uint32_t held_mask = 0;  // ready classes the arbiter held at the last decision
    // The switch buffer every flow of a NIC class feeds (-1: several, or none), and the classes
    // held because that buffer has no room for a largest packet (woken by credit returns).
    std::array<int32_t, policy::kMaxArbClasses> class_buffer{};
    uint32_t credit_held_mask = 0;
    int64_t link_free_ps = 0;
    uint64_t carry = 0;
    Serialiser serialiser;       // the link's: serialise() with the last size's division kept
    uint64_t tx_wire_bytes = 0;  // started on the link (a program's Tx counter)
    std::vector<uint32_t> dropped_flows;
    uint32_t drop_cursor = 0;
    int64_t drop_free_ps = 0;
    uint64_t drop_carry = 0;
    RingBuffer<TxDoneEvent> drop_done;  // tx_done of dropped messages: FIFO in time
  };
  static constexpr int32_t kNoBuffer = -1;
  static constexpr int32_t kSeveralBuffers = -2;

  // The shape's facts: constants for SingleLink, so the loops over them fold away.
  uint32_t host_count() const noexcept {
    if constexpr (kFabric) return static_cast<uint32_t>(hosts_.size());
    return 1;
  }
  uint32_t lane_count() const noexcept {
    if constexpr (kFabric) return static_cast<uint32_t>(lanes_.size());
    return 1;
  }
  /// Classes of `host` with a scheduler (SingleLink: class 0's always exists, see configure()).
  uint32_t class_mask(const Host& host) const noexcept {
    if constexpr (kFabric) return host.class_mask;
    (void)host;
    return 1;
  }
  /// The scheduler of class `nic_class` at `host` (the class has one).
  uint32_t sched_of(const Host& host, uint32_t nic_class) const noexcept {
    if constexpr (kFabric) return static_cast<uint32_t>(host.sched_of_class[nic_class]);
    (void)host;
    (void)nic_class;
    return 0;
  }
  /// Classes of `host` waiting for switch credit.
  uint32_t credit_held_mask(const Host& host) const noexcept {
    return switched() ? host.credit_held_mask : 0;
  }
  /// Rings of tx_done events: each lane's, then (Fabric) the discard engine's of each host that
  /// has discarded flows (the others' stay empty), in host order.
  uint32_t done_ring_count() const noexcept {
    if constexpr (kFabric) return lane_count() + static_cast<uint32_t>(discard_hosts_.size());
    return lane_count();
  }
  RingBuffer<TxDoneEvent>& done_ring(uint32_t d) noexcept {
    if constexpr (kFabric) {
      if (d >= lane_count()) return hosts_[discard_hosts_[d - lane_count()]].drop_done;
    }
    return lanes_[d].tx_done;
  }
  /// The flow behind queue `queue` of scheduler `sched` (SingleLink: one scheduler, in order).
  uint32_t flow_of(uint32_t sched, uint32_t queue) const noexcept {
    if constexpr (kFabric) return sched_flows_[sched][queue];
    (void)sched;
    return queue;
  }

  /// The attached program (SingleLink: never one, so every use folds away).
  RateControl* program() const noexcept {
    if constexpr (kFabric) return program_;
    return nullptr;
  }

  SqEntry& entry(uint32_t flow, uint32_t index) noexcept;
  // configure()'s steps, in order.
  void configure_switch(const policy::QosPlan& plan, int64_t switch_rate_bps, uint32_t repetition);
  /// Flows to their (host, class) schedulers, dropped ones to their host's discard engine;
  /// returns the flows per switch buffer.
  std::vector<uint32_t> assign_flows(const policy::QosPlan& plan);
  void make_schedulers(const policy::QosPlan& plan);
  void size_rings(int64_t switch_rate_bps);
  void configure_backpressure(const policy::QosPlan& plan,
                              const std::vector<uint32_t>& flows_per_buffer);
  void configure_rate_control();
  /// Empties every queue and ring (time zero) without telling the program.
  void reset() noexcept;
  /// `flow` went from idle to backlogged, or what held it let go: into its class's tree, unless
  /// something holds it (its rate limiter may).
  void admit(uint32_t flow) noexcept;
  void hold_for_rate(uint32_t flow) noexcept;
  // Rate control: the limiter after a packet of `flow` went (returns whether the flow stays in
  // its tree), the events due at now_ps_, and one event to the program.
  bool after_send(uint32_t flow, uint32_t wire_bytes, bool backlogged) noexcept;
  void run_wakeups() noexcept;
  void deliver(const RateEvent& event) noexcept;
  void set_rate(uint32_t flow, double rate_bps) noexcept override;
  void request_rtt_probe(uint32_t flow) noexcept override;
  void set_timer(uint32_t flow, int64_t delay_ns) noexcept override;
  void answer_probe(uint32_t flow) noexcept override;
  void set_wakeup(int64_t delay_ns) noexcept override;
  uint64_t tx_wire_bytes(uint32_t host) const noexcept override;
  /// A probe of `flow` reached the receiver at now_ps_: to the program, or answered at once.
  void probe_arrived(uint32_t flow) noexcept;
  /// Everything that can happen at now_ps_; false when a full completion ring held a link.
  bool step() noexcept;
  /// The class of host `h` that sends now and its queue in that class's scheduler (false:
  /// none may). SingleLink: its one class, no arbiter.
  [[gnu::always_inline]] bool choose(uint32_t h, uint32_t& nic_class, uint32_t& queue) noexcept;
  /// Starts host `h`'s next packet when a class has one (its link is idle: the caller checks).
  bool nic_transmit(uint32_t h) noexcept;
  uint32_t ready_queue(uint32_t host, uint32_t nic_class) noexcept;
  void drop_messages(uint32_t host) noexcept;
  // Inlined into their one caller on the per-packet path (the call cost showed in profiles).
  [[gnu::always_inline]] int64_t next_event_ps() const noexcept;
  bool tx_done_due() const noexcept;
  bool rx_due_high_water() const noexcept;
  /// Takes the next packet of `flow`'s current message (payload, wire bytes, send-queue slot,
  /// PSN) and advances the bookkeeping; returns whether it was the message's last packet.
  [[gnu::always_inline]] bool take_packet(uint32_t flow, uint32_t& payload, uint32_t& wire_bytes,
                                          uint16_t& slot, uint32_t& psn) noexcept;
  /// Lossy: whether the switch drops instead of holding back.
  bool lossy() const noexcept { return switched() && switch_.lossy(); }
  /// Whether the wake-up heap is in use (a program, or lossy mode's retransmission timers).
  bool wakeups_used() const noexcept { return program() != nullptr || lossy(); }
  /// Lossy: `flow` goes back to `psn` (a NACK, or its timeout): its next packet is that one.
  void go_back(uint32_t flow, uint32_t psn) noexcept;
  /// Lossy: `flow` sent nothing for retransmit_timeout_ps_; goes back when the receiver lacks
  /// something it sent.
  void retransmit_timeout(uint32_t flow) noexcept;
  uint32_t next_packet_wire_bytes(uint32_t flow) noexcept;
  [[gnu::always_inline]] void fill_rx(Completion& c, const RxEvent& rx) const noexcept;
  [[gnu::always_inline]] void fill_tx_done(Completion& c, const TxDoneEvent& done) noexcept;

  policy::WireModel wire_;
  int64_t rate_bps_ = 1;
  int64_t propagation_ps_ = 0;      // one way, sender to receiver
  int64_t nic_propagation_ps_ = 0;  // NIC -> switch (or -> receiver when not switched)
  int64_t now_ps_ = 0;
  bool running_ = false;
  bool switched_ = false;
  PortStats stats_;

  std::vector<FlowQueue> flows_;
  std::vector<SqEntry> send_queues_;  // flows_.size() * kSimSendQueueDepth
  std::vector<FlowInfo> info_;
  PerHost<kFabric, policy::TreeScheduler> scheds_;  // SingleLink: one, class 0's
  std::vector<std::vector<uint32_t>> sched_flows_;  // local queue -> flow
  std::vector<policy::PortArbiter> arbiters_;       // one per host
  PerHost<kFabric, Host> hosts_;
  PerHost<kFabric, Lane> lanes_;  // switched: one (the switch egress); else one per host
  uint32_t nic_class_mask_ = 0;
  int64_t largest_packet_bytes_ = 0;  // wire bytes of the largest packet the wire model makes
  SimSwitch switch_;
  std::vector<std::vector<uint32_t>> paused_;  // per switch buffer: flows waiting for credit
  // Per switch buffer: the time its senders (a credit-held NIC class, or paused flows) waited
  // for credit, as one interval while any of them waits (back-pressure attribution).
  struct CreditWait {
    uint32_t waiting = 0;   // senders of the buffer waiting now
    bool flows = false;     // flows feed the buffer
    int64_t since_ps = 0;   // the wait began (waiting > 0)
    int64_t paused_ps = 0;  // closed waits
  };
  std::vector<CreditWait> credit_waits_;
  // Per switch class: hosts waiting for credit now, over time (a step function, as the queue
  // depth is), and hosts with flows.
  std::array<uint32_t, policy::kMaxArbClasses> paused_hosts_{};
  std::array<uint32_t, policy::kMaxArbClasses> class_hosts_{};
  QueueDepthRecorder paused_series_;
  /// A sender of `buffer` starts, or `senders` of it stop, waiting for credit at now_ps_.
  void credit_wait_begins(uint32_t buffer) noexcept;
  void credit_wait_ends(uint32_t buffer, uint32_t senders) noexcept;
  /// Counts `packets` of `flow` dropped at `at_ps` when inside the measured window.
  void count_drops(uint32_t flow, int64_t at_ps, uint64_t packets) noexcept {
    if (at_ps >= window_start_ps_ && at_ps < window_end_ps_) flow_drops_[flow] += packets;
  }
  std::vector<uint64_t> flow_drops_;  // per flow, inside the measured window
  int64_t window_start_ps_ = 0;
  int64_t window_end_ps_ = INT64_MAX;
  // Credit-held classes plus paused flows: while 0, a credit return wakes no one, so it is no
  // event of its own (the next step takes it back before anything asks for room).
  uint32_t credit_waiters_ = 0;
  bool every_event_ = false;  // every_event_for_tests(): take the events skipped above too

  // Which hosts a step visits (Fabric). A visit to a host whose link is busy, or whose link is
  // free with nothing it may send, changes nothing; so a step visits only the hosts marked due
  // (a bit each, visited in host order as before): those whose link frees now (host_wake_), whose
  // flows were admitted or whose switch credit came back, and those that stay due while their
  // link is free and a class has work (as every host was visited on every step before: the
  // trees' and arbiters' picks see the same instants). Hosts with discarded flows always stay due.
  void mark_due(uint32_t h) noexcept { due_[h >> 6] |= uint64_t{1} << (h & 63); }
  /// After visiting `h`: whether it stays due (else: due again when its link frees or when
  /// something admits a flow of it or returns its credit).
  bool stays_due(uint32_t h) noexcept;
  /// Whether a class of `host` not held for credit has a backlogged flow in its tree.
  bool class_has_work(const Host& host) const noexcept;
  /// The part of next_event_ps() host `h` adds (as when every host was looked at).
  [[gnu::always_inline]] int64_t host_next_event_ps(uint32_t h) const noexcept;
  std::vector<uint64_t> due_;            // bit per host
  WakeupHeap host_wake_;                 // key: host, when its busy link frees
  std::vector<uint32_t> discard_hosts_;  // hosts with discarded (VL15) flows

  // Rate control (Fabric, with a program).
  // kWakeProbeArrive: the flow's probe reaches the receiver; kWakeProbeBack: its answer reaches
  // the sender.
  // kWakeRetransmit: lossy mode's retransmission timer. (Equal times pop in key order, flow
  // first, so a new kind keeps the order of the others.)
  enum WakeKind : uint32_t {
    kWakeRelease,
    kWakeTimer,
    kWakeProbeArrive,
    kWakeProbeBack,
    kWakeRetransmit,
    kWakeKinds
  };
  int64_t retransmit_timeout_ps_ = 0;
  RateControl* program_ = nullptr;
  uint32_t program_events_ = 0;  // RateControl::event_mask()
  FlowRateLimiter limiter_;
  WakeupHeap wakeups_;  // key: flow * kWakeKinds + WakeKind; the program's wake-up: the last
  uint32_t program_wakeup_key_ = 0;
  std::vector<int64_t> probe_sent_ps_;      // per flow: when its outstanding probe left
  std::vector<int64_t> probe_answered_ps_;  // per flow: when the receiver answered it
  std::vector<uint8_t> probe_waiting_;      // per flow: its probe waits for answer_probe()
  std::vector<uint8_t> started_;            // per flow: its start event went
  std::vector<uint32_t> host_of_flow_;      // per flow (RateStart)
};

extern template class SimModel<SingleLink>;
extern template class SimModel<Fabric>;

}  // namespace qb::drv::sim
