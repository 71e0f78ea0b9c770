// The simulated switch; see sim_switch.hpp and docs/semantics.md ("Simulator") for the model.
#include "sim_switch.hpp"

#include <algorithm>

#include "sim_time.hpp"

namespace qb::drv::sim {
namespace {

// Model choice: every (ingress, class) switch buffer holds at least 64 KiB, and always more
// than the credit loop of one uncontended NIC (so back-pressure only bites under contention).
constexpr int64_t kMinBufferBytes = 64 * 1024;

}  // namespace

void SimSwitch::configure(const Config& config) {
  hosts_ = config.hosts;
  rate_bps_ = config.rate_bps;
  nic_propagation_ps_ = config.nic_propagation_ps;
  receiver_propagation_ps_ = config.receiver_propagation_ps;
  ack_propagation_ps_ = config.ack_propagation_ps;
  arbiter_.emplace(config.qos, static_cast<double>(rate_bps_));
  classes_ = arbiter_->class_count();
  class_mask_ = 0;

  // Buffers large enough for one NIC's credit loop (its packet, the way there, the credit's
  // way back) and at least kMinBufferBytes.
  const int64_t largest = config.largest_packet_bytes;
  const auto loop_ps =
      static_cast<double>(2 * nic_propagation_ps_) +
      static_cast<double>(packet_ps(config.largest_packet_bytes, config.nic_rate_bps));
  const auto loop_bytes = static_cast<int64_t>(static_cast<double>(config.nic_rate_bps) / 8.0 *
                                               loop_ps / static_cast<double>(kPsPerSecond));
  buffer_bytes_ = std::max<int64_t>(kMinBufferBytes, loop_bytes + 2 * largest);
  const size_t buffers = size_t{hosts_} * classes_;
  queues_.assign(buffers, RingBuffer<Packet>{});
  for (auto& queue : queues_) {
    queue.reset(static_cast<size_t>(buffer_bytes_ / config.smallest_packet_bytes) + 2);
  }
  credit_used_.assign(buffers, 0);
  const uint64_t min_ps = packet_ps(config.smallest_packet_bytes, rate_bps_);
  credits_.reset(ring_entries(static_cast<uint64_t>(nic_propagation_ps_) / min_ps + kRingSlack));
  start();
}

void SimSwitch::start() noexcept {
  for (auto& queue : queues_) queue.clear();
  std::fill(credit_used_.begin(), credit_used_.end(), 0);
  credits_.clear();
  rr_.fill(0);
  free_ps_ = 0;
  carry_ = 0;
  held_mask_ = 0;
}

void SimSwitch::accept(uint32_t buffer, const Packet& packet, PortStats& stats) noexcept {
  queues_[buffer].push(packet);
  credit_used_[buffer] += packet.wire_bytes;
  stats.switch_buffer_high_water_bytes =
      std::max(stats.switch_buffer_high_water_bytes, static_cast<uint64_t>(credit_used_[buffer]));
}

int64_t SimSwitch::queued_bytes(uint32_t buffer) const noexcept {
  const RingBuffer<Packet>& queue = queues_[buffer];
  int64_t bytes = 0;
  for (size_t i = 0; i < queue.size(); ++i) bytes += queue.at(i).wire_bytes;
  return bytes;
}

bool SimSwitch::forward(int64_t now_ps, Lane& lane, PortStats& stats) noexcept {
  held_mask_ = 0;
  if (free_ps_ > now_ps) return true;
  uint32_t ready = 0;
  for (uint32_t m = class_mask_; m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    for (uint32_t h = 0; h < hosts_; ++h) {
      const RingBuffer<Packet>& queue = queues_[buffer_of(h, c)];
      if (!queue.empty() && queue.front().arrive_ps <= now_ps) {
        ready |= 1U << c;
        break;
      }
    }
  }
  if (ready == 0) return true;
  if (lane.rx.full() || lane.tx_done.full()) {
    ++stats.ring_stalls;
    return false;
  }
  const int picked = arbiter_->pick(ready, now_ps);
  if (picked == policy::PortArbiter::kNone) {
    held_mask_ = ready;
    return true;
  }
  const auto c = static_cast<uint32_t>(picked);
  // Inside a class: round robin over the ingress ports with a packet in.
  uint32_t buffer = 0;
  for (uint32_t i = 0; i < hosts_; ++i) {
    const uint32_t h = (rr_[c] + i) % hosts_;
    buffer = buffer_of(h, c);
    const RingBuffer<Packet>& queue = queues_[buffer];
    if (!queue.empty() && queue.front().arrive_ps <= now_ps) {
      rr_[c] = (h + 1) % hosts_;
      break;
    }
  }
  RingBuffer<Packet>& queue = queues_[buffer];
  const Packet packet = queue.front();
  queue.pop();
  const int64_t end_ps =
      now_ps + serialise(packet.wire_bytes, static_cast<uint64_t>(rate_bps_), carry_);
  arbiter_->sent(c, packet.wire_bytes, now_ps);
  lane.rx.push(RxEvent{end_ps + receiver_propagation_ps_, packet.flow, packet.slot, packet.last,
                       packet.payload_bytes, packet.wire_bytes});
  if (packet.last) {
    lane.tx_done.push(
        TxDoneEvent{end_ps + receiver_propagation_ps_ + ack_propagation_ps_, packet.flow});
  }
  // The buffer space frees as the packet starts out; the NIC hears of it one hop later.
  credits_.push(CreditEvent{now_ps + nic_propagation_ps_, buffer, packet.wire_bytes});
  free_ps_ = end_ps;
  stats.switch_busy_ps += static_cast<uint64_t>(end_ps - now_ps);
  ++stats.switch_class_packets[c];
  stats.switch_class_wire_bytes[c] += packet.wire_bytes;
  return true;
}

int64_t SimSwitch::next_event_ps(int64_t now_ps) const noexcept {
  int64_t next = INT64_MAX;
  if (free_ps_ > now_ps) {
    next = free_ps_;
  } else {
    for (const auto& queue : queues_) {
      if (!queue.empty() && queue.front().arrive_ps > now_ps) {
        next = std::min(next, queue.front().arrive_ps);
      }
    }
    if (held_mask_ != 0) next = std::min(next, arbiter_->next_eligible_ps(held_mask_));
  }
  if (!credits_.empty()) next = std::min(next, credits_.front().time_ps);
  return next;
}

}  // namespace qb::drv::sim
