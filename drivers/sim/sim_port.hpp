// The simulated port behind the sim driver: per-QP send queues -> TreeScheduler -> one link
// (serialisation at line rate, wire bytes per reference §8) -> propagation -> receiver, and the
// ACK back to the sender. It is the driver's Queue and Clock at once (one worker).
//
// Time is integer picoseconds (4194 B at 100 Gbit/s is 335.52 ns; ns would drift 0.15%);
// serialisation carries its remainder from packet to packet, so the link runs at exactly
// the port rate. Completions are produced when a packet starts serialising (its rx time and,
// for a message's last packet, its tx_done time are known then) into two ring buffers that are
// FIFO in time (one link, constant delays); poll() merges them. No allocation after configure().
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "qb/drivers/driver.hpp"
#include "qb/policies/tree_scheduler.hpp"

namespace qb::drv::sim {

/// A fixed-capacity FIFO (power-of-two capacity).
template <class T>
class Ring {
 public:
  void reset(size_t min_capacity) {
    size_t capacity = 1;
    while (capacity < min_capacity) capacity <<= 1;
    slots_.assign(capacity, T{});
    mask_ = capacity - 1;
    head_ = tail_ = 0;
  }
  void clear() noexcept { head_ = tail_ = 0; }
  bool empty() const noexcept { return head_ == tail_; }
  bool full() const noexcept { return tail_ - head_ == slots_.size(); }
  size_t size() const noexcept { return static_cast<size_t>(tail_ - head_); }
  size_t capacity() const noexcept { return slots_.size(); }
  const T& front() const noexcept { return slots_[head_ & mask_]; }
  /// The i-th entry from the front (i < size()).
  const T& at(size_t i) const noexcept { return slots_[(head_ + i) & mask_]; }
  void push(const T& value) noexcept { slots_[tail_++ & mask_] = value; }
  void pop() noexcept { ++head_; }

 private:
  std::vector<T> slots_;
  uint64_t mask_ = 0;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
};

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
  bool configured() const noexcept { return scheduler_.has_value(); }

  uint32_t tx_burst(std::span<const Message> messages) noexcept override;
  uint32_t poll(std::span<Completion> out) noexcept override;
  int64_t now_ns() noexcept override { return now_ps_ / 1000; }
  void wait_until(int64_t deadline_ns) noexcept override;
  std::string_view name() const noexcept override { return "virtual"; }

  int64_t now_ps() const noexcept { return now_ps_; }
  const PortStats& stats() const noexcept { return stats_; }
  size_t rx_ring_capacity() const noexcept { return rx_.capacity(); }
  size_t tx_done_ring_capacity() const noexcept { return tx_done_.capacity(); }

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

  SqEntry& entry(uint32_t flow, uint32_t index) noexcept;
  int64_t serialisation_ps(uint32_t wire_bytes) noexcept;
  /// Starts the next packet when the link is idle and the scheduler has one. Returns false
  /// when a full completion ring held the link.
  bool try_transmit() noexcept;
  bool rx_due_at_least(size_t count) const noexcept;

  policy::WireModel wire_;
  int64_t rate_bps_ = 1;
  int64_t propagation_ps_ = 0;
  std::optional<policy::TreeScheduler> scheduler_;
  std::vector<FlowQueue> flows_;
  std::vector<SqEntry> send_queues_;  // flows_.size() * kSimSendQueueDepth
  Ring<RxEvent> rx_;
  Ring<TxDoneEvent> tx_done_;
  int64_t now_ps_ = 0;
  int64_t link_free_ps_ = 0;
  uint64_t serialisation_carry_ = 0;  // remainder of bits * 1e12 / rate, carried forward
  bool running_ = false;
  PortStats stats_;
};

}  // namespace qb::drv::sim
