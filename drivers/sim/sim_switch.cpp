// The simulated switch; see sim_switch.hpp and docs/semantics.md ("Simulator") for the model.
#include "sim_switch.hpp"

#include <algorithm>
#include <cmath>

#include "red_marking.hpp"
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
  lossy_ = config.lossy;
  lossy_buffer_bytes_ = config.lossy_buffer_bytes;
  // Lossy: one ingress buffer may hold all of its class's.
  const int64_t most_queued_bytes = lossy_ ? lossy_buffer_bytes_ : buffer_bytes_;
  const size_t buffers = size_t{hosts_} * classes_;
  queues_.assign(buffers, RingBuffer<Packet>{});
  for (auto& queue : queues_) {
    queue.reset(static_cast<size_t>(most_queued_bytes / config.smallest_packet_bytes) + 2);
  }
  credit_used_.assign(buffers, 0);
  queue_bytes_.assign(buffers, 0);
  const uint64_t min_ps = packet_ps(config.smallest_packet_bytes, rate_bps_);
  credits_.reset(ring_entries(static_cast<uint64_t>(nic_propagation_ps_) / min_ps + kRingSlack));

  ecn_ = config.ecn;
  cnp_interval_ps_ = config.cnp_interval_ps;
  seed_ = config.seed;
  queue_cnps_ = config.queue_cnps;
  last_cnp_ps_.assign(config.flows, INT64_MIN);
  // CNPs in flight: at most one per packet leaving the egress during their way back.
  const auto cnp_flight_ps =
      static_cast<uint64_t>(receiver_propagation_ps_ + ack_propagation_ps_) + 1;
  cnps_.reset(queue_cnps_ ? ring_entries(cnp_flight_ps / min_ps + kRingSlack) : 1);
  depth_series_.configure(classes_, config.series_start_ps, config.series_bin_ps,
                          config.series_bins);
  receiver_.reset(lossy_ ? config.flows : 0);
  // One NACK per flow per sender round; a timeout may start a round while one is on its way.
  nacks_.reset(lossy_ ? 4 * size_t{config.flows} + 4 : 1);
  const int64_t class_bytes =
      lossy_ ? lossy_buffer_bytes_ : buffer_bytes_ * static_cast<int64_t>(hosts_);
  depth_counts_.assign(static_cast<size_t>(class_bytes / kDepthBucketBytes) + 2, 0);
  start();
}

void SimSwitch::start() noexcept {
  for (auto& queue : queues_) queue.clear();
  std::fill(credit_used_.begin(), credit_used_.end(), 0);
  std::fill(queue_bytes_.begin(), queue_bytes_.end(), 0);
  credits_.clear();
  rr_.fill(0);
  free_ps_ = 0;
  carry_ = 0;
  held_mask_ = 0;
  class_queued_bytes_.fill(0);
  // xorshift64* must not start at zero.
  random_state_ = seed_ * 0x9E3779B97F4A7C15ULL | 1;
  std::fill(last_cnp_ps_.begin(), last_cnp_ps_.end(), INT64_MIN);
  cnps_.clear();
  receiver_.start();
  depth_series_.start();
  nacks_.clear();
  std::fill(depth_counts_.begin(), depth_counts_.end(), 0);
  depth_samples_ = 0;
  queue_depth_max_bytes_ = 0;
}

bool SimSwitch::marks_ecn(uint32_t switch_class, int64_t queued_bytes) noexcept {
  return red_marks(ecn_[switch_class], queued_bytes, random_state_);
}

void SimSwitch::answer_mark(const Packet& packet, int64_t arrive_ps, PortStats& stats) noexcept {
  int64_t& last = last_cnp_ps_[packet.flow];
  if (last != INT64_MIN && arrive_ps - last < cnp_interval_ps_) return;
  last = arrive_ps;
  ++stats.cnps;
  if (!queue_cnps_) return;
  if (cnps_.full()) {
    ++stats.cnp_ring_overflows;
    return;
  }
  cnps_.push(Cnp{arrive_ps + ack_propagation_ps_, packet.flow});
}

int64_t SimSwitch::queue_depth_percentile_bytes(double fraction) const noexcept {
  if (depth_samples_ == 0) return 0;
  const auto wanted =
      static_cast<uint64_t>(std::ceil(fraction * static_cast<double>(depth_samples_)));
  uint64_t seen = 0;
  for (size_t b = 0; b < depth_counts_.size(); ++b) {
    seen += depth_counts_[b];
    if (seen >= wanted && seen > 0) {
      return std::min<int64_t>(static_cast<int64_t>(b + 1) * kDepthBucketBytes,
                               queue_depth_max_bytes_);
    }
  }
  return queue_depth_max_bytes_;
}

bool SimSwitch::accept(uint32_t buffer, const Packet& packet, int64_t now_ps,
                       PortStats& stats) noexcept {
  const uint32_t switch_class = buffer % classes_;
  int64_t& class_bytes = class_queued_bytes_[switch_class];
  if (lossy_ && class_bytes + packet.wire_bytes > lossy_buffer_bytes_) {
    ++stats.switch_drops;
    ++stats.switch_class_drops[switch_class];
    return false;
  }
  class_bytes += packet.wire_bytes;
  depth_series_.change(switch_class, now_ps, class_bytes);
  queue_depth_max_bytes_ = std::max(queue_depth_max_bytes_, class_bytes);
  ++depth_counts_[std::min<size_t>(static_cast<size_t>(class_bytes / kDepthBucketBytes),
                                   depth_counts_.size() - 1)];
  ++depth_samples_;
  Packet queued = packet;
  if (marks_ecn(switch_class, class_bytes)) {
    queued.ecn = true;
    ++stats.ecn_marks;
  }
  queues_[buffer].push(queued);
  queue_bytes_[buffer] += packet.wire_bytes;
  // The buffer a packet takes room in: lossless, its (ingress, class) buffer until its credit is
  // back at the NIC; lossy (no credit), its egress class's until it leaves.
  int64_t held_bytes = class_bytes;
  if (!lossy_) {
    credit_used_[buffer] += packet.wire_bytes;
    held_bytes = credit_used_[buffer];
  }
  stats.switch_buffer_high_water_bytes =
      std::max(stats.switch_buffer_high_water_bytes, static_cast<uint64_t>(held_bytes));
  return true;
}

int64_t SimSwitch::bytes_ahead_of_probe(uint32_t buffer) const noexcept {
  const int64_t own = queued_bytes(buffer);
  const uint32_t switch_class = buffer % classes_;
  int64_t ahead = own;
  for (uint32_t h = 0; h < hosts_; ++h) {
    const uint32_t other = buffer_of(h, switch_class);
    if (other != buffer) ahead += std::min(own, queued_bytes(other));
  }
  return ahead;
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
  queue_bytes_[buffer] -= packet.wire_bytes;
  const int64_t end_ps =
      now_ps + serialise(packet.wire_bytes, static_cast<uint64_t>(rate_bps_), carry_);
  arbiter_->sent(c, packet.wire_bytes, now_ps);
  class_queued_bytes_[c] -= packet.wire_bytes;
  depth_series_.change(c, now_ps, class_queued_bytes_[c]);
  const int64_t rx_ps = end_ps + receiver_propagation_ps_;
  if (packet.ecn) answer_mark(packet, rx_ps, stats);
  const GoBackNReceiver::Verdict verdict =
      lossy_ ? receiver_.on_arrival(packet.flow, packet.psn, packet.epoch)
             : GoBackNReceiver::Verdict::deliver;
  if (verdict == GoBackNReceiver::Verdict::deliver) {
    lane.rx.push(RxEvent{rx_ps, packet.flow, packet.slot, packet.last, packet.payload_bytes,
                         packet.wire_bytes});
    if (packet.last) lane.tx_done.push(TxDoneEvent{rx_ps + ack_propagation_ps_, packet.flow});
  } else {
    ++stats.out_of_sequence_packets;
    if (verdict == GoBackNReceiver::Verdict::discard_and_nack && !nacks_.full()) {
      ++stats.nacks;
      nacks_.push(
          Nack{rx_ps + ack_propagation_ps_, packet.flow, receiver_.expected_psn(packet.flow)});
    }
  }
  // The buffer space frees as the packet starts out; the NIC hears of it one hop later.
  if (!lossy_) credits_.push(CreditEvent{now_ps + nic_propagation_ps_, buffer, packet.wire_bytes});
  free_ps_ = end_ps;
  stats.switch_busy_ps += static_cast<uint64_t>(end_ps - now_ps);
  ++stats.switch_class_packets[c];
  stats.switch_class_wire_bytes[c] += packet.wire_bytes;
  return true;
}

int64_t SimSwitch::next_event_ps(int64_t now_ps, bool credit_awaited) const noexcept {
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
  if (credit_awaited && !credits_.empty()) next = std::min(next, credits_.front().time_ps);
  if (!cnps_.empty()) next = std::min(next, cnps_.front().time_ps);
  if (!nacks_.empty()) next = std::min(next, nacks_.front().time_ps);
  return next;
}

}  // namespace qb::drv::sim
