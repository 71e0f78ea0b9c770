// The simulated port behind the sim driver: per-QP send queues -> TreeScheduler -> one link
// (serialisation at line rate, wire bytes per reference §8) -> propagation -> receiver, and the
// ACK back to the sender. It is the driver's Queue and Clock at once (one worker).
//
// Time is integer picoseconds (4194 B at 100 Gbit/s is 335.52 ns; ns would drift 0.15%);
// serialisation carries its remainder from packet to packet, so the link runs at exactly
// the port rate. Completions are produced when a packet starts serialising (its rx time and,
// for a message's last packet, its tx_done time are known then) into two ring buffers that are
// FIFO in time (one link, constant delays); poll() merges them. No allocation after configure().
//
// With port arbitration or a fabric (QosPlan::nic_qos, hosts, switched, dropped flows) the
// general model runs (docs/semantics.md, "Simulator"): per host NIC, one TreeScheduler per
// arbitration class over that class's flows, a PortArbiter picking the class, the NIC link;
// with a switch, per (ingress host, switch class) buffers with credit back-pressure, and the
// switch egress port arbitrating by class, round robin over ingress hosts inside a class.
// Flows whose SL maps to VL15 are dropped at the NIC by a discard engine paced at the port
// rate (no link time). The plain configuration (one host, no switch, kind none, no drops)
// keeps the original single-scheduler path, so its results are unchanged.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "qb/common/ring_buffer.hpp"
#include "qb/drivers/driver.hpp"
#include "qb/policies/port_arbiter.hpp"
#include "qb/policies/tree_scheduler.hpp"

namespace qb::drv::sim {

inline constexpr uint64_t kPsPerSecond = 1'000'000'000'000;

/// Wire bytes of the largest packet a flow can send: the DWRR quantum.
inline uint32_t largest_packet_wire_bytes(const policy::WireModel& wire) {
  if (wire.transport == policy::Transport::eth) {
    return wire.packet_wire_bytes(static_cast<uint32_t>(wire.max_message_bytes()), true,
                                  policy::RdmaOp::send);
  }
  return wire.packet_wire_bytes(wire.mtu_bytes, true, policy::RdmaOp::write);
}

struct PortStats {
  uint64_t packets = 0;
  uint64_t messages = 0;
  uint64_t posted_messages = 0;
  uint64_t wire_bytes = 0;
  uint64_t payload_bytes = 0;
  uint64_t steps = 0;           // event instants processed by wait_until()
  uint64_t busy_ps = 0;         // link serialising
  uint64_t rejected_posts = 0;  // tx_burst() short counts (send queue full / bad flow)
  uint64_t ring_stalls = 0;     // link held idle because a completion ring was full
  uint32_t max_send_queue_depth = 0;
  uint64_t completions = 0;

  // General model only (reported when it runs).
  uint64_t drops = 0;             // packets of VL15 (dropped) flows discarded at the NIC
  uint64_t dropped_messages = 0;  // their messages, completed without an ACK
  uint64_t switch_busy_ps = 0;    // switch egress link serialising
  uint64_t credit_pauses = 0;     // a flow held because its switch buffer had no room
  uint64_t switch_buffer_high_water_bytes = 0;  // most credit in use on one (ingress, class)
  std::array<uint64_t, policy::kMaxArbClasses> class_packets{};  // NIC classes, all hosts
  std::array<uint64_t, policy::kMaxArbClasses> class_wire_bytes{};
  std::array<uint64_t, policy::kMaxArbClasses> switch_class_packets{};
  std::array<uint64_t, policy::kMaxArbClasses> switch_class_wire_bytes{};
};

class SimPort final : public Queue, public Clock {
 public:
  /// Due completions at which wait_until() returns so the caller polls.
  static constexpr size_t kDueHighWater = 1024;
  /// Upper bound on the rx ring (entries); beyond it a long propagation delay stalls the link
  /// (counted in ring_stalls) rather than allocate on the event path.
  static constexpr size_t kMaxRxRing = size_t{1} << 21;

  /// Builds the model for one run. Validation is the driver's job.
  void configure(const Topology& topology, const policy::QosPlan& plan);
  /// Time zero; empties every queue and ring.
  void start() noexcept;
  void stop() noexcept { running_ = false; }
  bool configured() const noexcept { return configured_; }

  uint32_t tx_burst(std::span<const Message> messages) noexcept override;
  uint32_t poll(std::span<Completion> out) noexcept override;
  int64_t now_ns() noexcept override { return now_ps_ / 1000; }
  void wait_until(int64_t deadline_ns) noexcept override;
  std::string_view name() const noexcept override { return "virtual"; }

  int64_t now_ps() const noexcept { return now_ps_; }
  const PortStats& stats() const noexcept { return stats_; }
  size_t rx_ring_capacity() const noexcept {
    return general_ ? lanes_.front().rx.capacity() : rx_.capacity();
  }
  size_t tx_done_ring_capacity() const noexcept {
    return general_ ? lanes_.front().tx_done.capacity() : tx_done_.capacity();
  }

  /// Whether the general model (classes, hosts, switch, drops) runs.
  bool general() const noexcept { return general_; }
  uint32_t hosts() const noexcept { return static_cast<uint32_t>(hosts_.size()); }
  bool switched() const noexcept { return switched_; }
  /// Bytes of switch buffer per (ingress host, switch class).
  int64_t switch_buffer_bytes() const noexcept { return switch_buffer_bytes_; }
  /// Classes that have flows, at the NIC ports and at the switch egress.
  uint32_t nic_class_mask() const noexcept { return nic_class_mask_; }
  uint32_t switch_class_mask() const noexcept { return switch_class_mask_; }

 private:
  struct SqEntry {
    Message message;
    int64_t sent_ps = 0;  // start of the first packet
  };
  struct FlowQueue {
    uint32_t head = 0;     // oldest message whose tx_done has not been polled
    uint32_t next_tx = 0;  // message being (or next to be) transmitted
    uint32_t tail = 0;     // next free slot
    uint32_t next_packet = 0;
    uint32_t packets = 0;  // of the message at next_tx, once its first packet went
    policy::RdmaOp op = policy::RdmaOp::write;
  };
  struct RxEvent {
    int64_t time_ps = 0;
    uint32_t flow = 0;
    uint16_t slot = 0;
    bool last = false;
    uint32_t payload_bytes = 0;
    uint32_t wire_bytes = 0;
  };
  struct TxDoneEvent {
    int64_t time_ps = 0;
    uint32_t flow = 0;
  };

  // General model.
  struct FlowInfo {
    uint32_t host = 0;
    uint32_t sched = 0;   // index into scheds_
    uint32_t local = 0;   // queue index inside that scheduler
    uint32_t buffer = 0;  // switch buffer index: host * switch classes + switch class
    uint8_t nic_class = 0;
    uint8_t switch_class = 0;
    bool dropped = false;
    bool paused = false;  // out of its tree for want of switch-buffer credit
  };
  struct Lane {  // one link's completions towards the receiver: FIFO in time
    RingBuffer<RxEvent> rx;
    RingBuffer<TxDoneEvent> tx_done;
  };
  struct Host {
    std::array<int32_t, policy::kMaxArbClasses> sched_of_class{};  // -1: no flows
    std::array<uint32_t, policy::kMaxArbClasses> ready_queue{};
    uint32_t class_mask = 0;  // classes with a scheduler
    uint32_t held_mask = 0;   // ready classes the arbiter held at the last decision
    // The switch buffer every flow of a NIC class feeds (-1: several, or none), and the classes
    // held because that buffer has no room for a largest packet (woken by credit returns).
    std::array<int32_t, policy::kMaxArbClasses> class_buffer{};
    uint32_t credit_held_mask = 0;
    int64_t link_free_ps = 0;
    uint64_t carry = 0;
    std::vector<uint32_t> dropped_flows;
    uint32_t drop_cursor = 0;
    int64_t drop_free_ps = 0;
    uint64_t drop_carry = 0;
    RingBuffer<TxDoneEvent> drop_done;  // tx_done of dropped messages: FIFO in time
  };
  static constexpr int32_t kNoBuffer = -1;
  static constexpr int32_t kSeveralBuffers = -2;
  struct SwPacket {
    int64_t arrive_ps = 0;  // fully received by the switch (store and forward)
    uint32_t flow = 0;
    uint16_t slot = 0;
    bool last = false;
    uint32_t payload_bytes = 0;
    uint32_t wire_bytes = 0;
  };
  struct CreditEvent {
    int64_t time_ps = 0;  // the credit is back at the NIC
    uint32_t buffer = 0;
    uint32_t bytes = 0;
  };

  SqEntry& entry(uint32_t flow, uint32_t index) noexcept;
  int64_t serialisation_ps(uint32_t wire_bytes) noexcept;
  /// Starts the next packet when the link is idle and the scheduler has one. Returns false
  /// when a full completion ring held the link.
  bool try_transmit() noexcept;
  bool rx_due_at_least(size_t count) const noexcept;
  void wait_until_plain(int64_t deadline_ps) noexcept;
  uint32_t poll_plain(std::span<Completion> out) noexcept;

  void configure_general(const Topology& topology, const policy::QosPlan& plan);
  void wait_until_general(int64_t deadline_ps) noexcept;
  uint32_t poll_general(std::span<Completion> out) noexcept;
  /// Everything that can happen at now_ps_; false when a full completion ring held a link.
  bool step_general() noexcept;
  bool nic_transmit(uint32_t host) noexcept;
  uint32_t ready_queue(uint32_t host, uint32_t nic_class) noexcept;
  bool switch_forward() noexcept;
  void drop_messages(uint32_t host) noexcept;
  void return_credits() noexcept;
  int64_t next_event_ps() const noexcept;
  bool tx_done_due() const noexcept;
  bool rx_due_high_water() const noexcept;
  /// Takes the next packet of `flow`'s current message (payload, wire bytes, send-queue slot)
  /// and advances the bookkeeping; returns whether it was the message's last packet.
  bool take_packet(uint32_t flow, uint32_t& payload, uint32_t& wire_bytes, uint16_t& slot) noexcept;
  uint32_t next_packet_wire_bytes(uint32_t flow) noexcept;
  void fill_rx(Completion& c, const RxEvent& rx) const noexcept;
  void fill_tx_done(Completion& c, const TxDoneEvent& done) noexcept;
  static int64_t serialise(uint32_t wire_bytes, uint64_t rate, uint64_t& carry) noexcept;

  policy::WireModel wire_;
  int64_t rate_bps_ = 1;
  int64_t propagation_ps_ = 0;
  std::optional<policy::TreeScheduler> scheduler_;
  std::vector<FlowQueue> flows_;
  std::vector<SqEntry> send_queues_;  // flows_.size() * kSimSendQueueDepth
  RingBuffer<RxEvent> rx_;
  RingBuffer<TxDoneEvent> tx_done_;
  int64_t now_ps_ = 0;
  int64_t link_free_ps_ = 0;
  uint64_t serialisation_carry_ = 0;  // remainder of bits * 1e12 / rate, carried forward
  bool running_ = false;
  bool configured_ = false;
  PortStats stats_;

  bool general_ = false;
  bool switched_ = false;
  std::vector<FlowInfo> info_;
  std::vector<policy::TreeScheduler> scheds_;
  std::vector<std::vector<uint32_t>> sched_flows_;  // local queue -> flow
  std::vector<policy::PortArbiter> arbiters_;       // one per host
  std::vector<Host> hosts_;
  std::vector<Lane> lanes_;         // switched: one (the switch egress); else one per host
  int64_t nic_propagation_ps_ = 0;  // NIC -> switch (or -> receiver when not switched)
  int64_t switch_propagation_ps_ = 0;
  uint32_t nic_class_mask_ = 0;
  uint32_t switch_class_mask_ = 0;
  // Switch.
  uint32_t switch_classes_ = 1;
  int64_t switch_rate_bps_ = 1;
  int64_t switch_buffer_bytes_ = 0;
  int64_t largest_packet_bytes_ = 0;  // wire bytes of the largest packet the wire model makes
  std::optional<policy::PortArbiter> switch_arbiter_;
  std::vector<RingBuffer<SwPacket>> switch_queues_;  // per (host, switch class)
  std::vector<int64_t> credit_used_;                 // per (host, switch class): NIC's view
  std::vector<std::vector<uint32_t>> paused_;        // per (host, switch class): paused flows
  RingBuffer<CreditEvent> credits_;
  std::array<uint32_t, policy::kMaxArbClasses> switch_rr_{};  // next ingress host per class
  int64_t switch_free_ps_ = 0;
  uint64_t switch_carry_ = 0;
  uint32_t switch_held_mask_ = 0;
};

}  // namespace qb::drv::sim
