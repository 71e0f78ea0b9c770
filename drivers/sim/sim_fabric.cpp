// The simulator's general model: arbitration classes at every NIC, several hosts, the switch
// with per-(ingress, class) credit, and the VL15 discard engine. See sim_port.hpp and the
// "Simulator" section of docs/semantics.md for the model choices.
#include <algorithm>

#include "qb/drivers/sim_driver.hpp"
#include "sim_port.hpp"

namespace qb::drv::sim {
namespace {

constexpr uint32_t kSqMask = kSimSendQueueDepth - 1;
// Model choice: every (ingress, class) switch buffer holds at least 64 KiB, and always more
// than the credit loop of one uncontended NIC (so back-pressure only bites under contention).
constexpr int64_t kMinSwitchBufferBytes = 64 * 1024;
constexpr uint64_t kRingSlack = SimPort::kDueHighWater + 64;

uint64_t packet_ps(uint64_t wire_bytes, int64_t rate_bps) {
  return std::max<uint64_t>(1, wire_bytes * 8ULL * kPsPerSecond / static_cast<uint64_t>(rate_bps));
}

size_t ring_entries(uint64_t entries) {
  return static_cast<size_t>(std::min<uint64_t>(entries, SimPort::kMaxRxRing));
}

}  // namespace

void SimPort::configure_general(const Topology& topology, const policy::QosPlan& plan) {
  scheduler_.reset();
  wire_ = topology.wire;
  rate_bps_ = std::max<int64_t>(1, static_cast<int64_t>(topology.port_rate_bps + 0.5));
  propagation_ps_ = topology.propagation_delay_ns * 1000;
  switched_ = plan.switched;
  // Model choice: NIC -> switch and switch -> receiver each take half the one-way delay; the
  // ACK (not serialised, no contention) takes the whole one-way delay back.
  nic_propagation_ps_ = switched_ ? propagation_ps_ / 2 : propagation_ps_;
  switch_propagation_ps_ = propagation_ps_ - nic_propagation_ps_;
  switch_rate_bps_ = plan.switch_rate_bps > 0.0
                         ? std::max<int64_t>(1, static_cast<int64_t>(plan.switch_rate_bps + 0.5))
                         : rate_bps_;

  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  const uint32_t host_count = std::max<uint32_t>(1, plan.hosts);
  flows_.assign(flow_count, FlowQueue{});
  send_queues_.assign(static_cast<size_t>(flow_count) * kSimSendQueueDepth, SqEntry{});

  arbiters_.clear();
  arbiters_.reserve(host_count);
  for (uint32_t h = 0; h < host_count; ++h)
    arbiters_.emplace_back(plan.nic_qos, topology.port_rate_bps);
  hosts_.assign(host_count, Host{});
  for (Host& host : hosts_) {
    host.sched_of_class.fill(-1);
    host.class_buffer.fill(kNoBuffer);
  }
  if (switched_) {
    switch_arbiter_.emplace(plan.switch_qos, static_cast<double>(switch_rate_bps_));
    switch_classes_ = switch_arbiter_->class_count();
  } else {
    switch_arbiter_.reset();
    switch_classes_ = 1;
  }

  // Flows -> (host, class) schedulers; dropped flows to their host's discard engine.
  const bool nic_classes = plan.nic_qos.kind != policy::PortQos::Kind::none;
  const bool switch_classes = switched_ && plan.switch_qos.kind != policy::PortQos::Kind::none;
  info_.assign(flow_count, FlowInfo{});
  sched_flows_.clear();
  nic_class_mask_ = 0;
  switch_class_mask_ = 0;
  std::vector<uint32_t> flows_per_buffer(size_t{host_count} * switch_classes_, 0);
  for (uint32_t f = 0; f < flow_count; ++f) {
    const policy::FlowPlan& flow = plan.flows[f];
    FlowInfo& info = info_[f];
    flows_[f].op = flow.op;
    info.host = flow.host;
    info.nic_class = nic_classes ? flow.arb_class : 0;
    info.switch_class = switch_classes ? flow.switch_arb_class : 0;
    info.buffer = info.host * switch_classes_ + info.switch_class;
    info.dropped = flow.dropped;
    Host& host = hosts_[info.host];
    if (info.dropped) {
      host.dropped_flows.push_back(f);
      continue;
    }
    int32_t& sched = host.sched_of_class[info.nic_class];
    if (sched < 0) {
      sched = static_cast<int32_t>(sched_flows_.size());
      sched_flows_.emplace_back();
      host.class_mask |= 1U << info.nic_class;
    }
    int32_t& class_buffer = host.class_buffer[info.nic_class];
    if (class_buffer == kNoBuffer) {
      class_buffer = static_cast<int32_t>(info.buffer);
    } else if (class_buffer != static_cast<int32_t>(info.buffer)) {
      class_buffer = kSeveralBuffers;
    }
    info.sched = static_cast<uint32_t>(sched);
    info.local = static_cast<uint32_t>(sched_flows_[info.sched].size());
    sched_flows_[info.sched].push_back(f);
    nic_class_mask_ |= 1U << info.nic_class;
    if (switched_) switch_class_mask_ |= 1U << info.switch_class;
    ++flows_per_buffer[info.buffer];
  }

  const uint32_t largest = largest_packet_wire_bytes(wire_);
  largest_packet_bytes_ = largest;
  const uint32_t smallest = std::max(1u, wire_.packet_wire_bytes(0, false, policy::RdmaOp::send));
  policy::TreeScheduler::Config config;
  config.ticks_per_second = static_cast<double>(kPsPerSecond);
  config.quantum_bytes = largest;
  scheds_.clear();
  scheds_.reserve(sched_flows_.size());
  for (const auto& flows : sched_flows_) {
    std::vector<uint32_t> queue_leaf(flows.size());
    for (size_t q = 0; q < flows.size(); ++q) queue_leaf[q] = plan.flows[flows[q]].leaf;
    scheds_.emplace_back(plan.tree, queue_leaf, config);
  }

  // Completion rings, sized as the plain model's (see configure()).
  const uint64_t depth_entries = uint64_t{flow_count} * kSimSendQueueDepth + 1;
  const int64_t lane_rate = switched_ ? switch_rate_bps_ : rate_bps_;
  const uint64_t min_ps = packet_ps(smallest, lane_rate);
  const uint64_t max_ps = packet_ps(largest, lane_rate) + 1;
  const auto rx_delay = static_cast<uint64_t>(switched_ ? switch_propagation_ps_ : propagation_ps_);
  const auto ack = static_cast<uint64_t>(propagation_ps_);
  lanes_.assign(switched_ ? 1 : host_count, Lane{});
  for (Lane& lane : lanes_) {
    lane.rx.reset(ring_entries((rx_delay + max_ps) / min_ps + kRingSlack));
    lane.tx_done.reset(
        ring_entries(std::min((rx_delay + ack + max_ps) / min_ps + kRingSlack, depth_entries)));
  }
  for (Host& host : hosts_) {
    host.drop_done.reset(host.dropped_flows.size() * kSimSendQueueDepth + 1);
  }

  // Switch: buffers large enough for one NIC's credit loop (its packet, the way there, the
  // credit's way back) and at least kMinSwitchBufferBytes.
  switch_queues_.clear();
  credit_used_.clear();
  paused_.clear();
  if (switched_) {
    const auto loop_ps = static_cast<double>(2 * nic_propagation_ps_) +
                         static_cast<double>(packet_ps(largest, rate_bps_));
    const auto loop_bytes = static_cast<int64_t>(static_cast<double>(rate_bps_) / 8.0 * loop_ps /
                                                 static_cast<double>(kPsPerSecond));
    switch_buffer_bytes_ =
        std::max<int64_t>(kMinSwitchBufferBytes, loop_bytes + 2 * static_cast<int64_t>(largest));
    const size_t buffers = size_t{host_count} * switch_classes_;
    switch_queues_.resize(buffers);
    for (auto& queue : switch_queues_) {
      queue.reset(static_cast<size_t>(switch_buffer_bytes_ / smallest) + 2);
    }
    credit_used_.assign(buffers, 0);
    paused_.resize(buffers);
    for (size_t b = 0; b < buffers; ++b) paused_[b].reserve(flows_per_buffer[b]);
    const uint64_t sw_min_ps = packet_ps(smallest, switch_rate_bps_);
    credits_.reset(
        ring_entries(static_cast<uint64_t>(nic_propagation_ps_) / sw_min_ps + kRingSlack));
  } else {
    switch_buffer_bytes_ = 0;
    credits_.reset(1);
  }
}

bool SimPort::take_packet(uint32_t flow, uint32_t& payload, uint32_t& wire_bytes,
                          uint16_t& slot) noexcept {
  FlowQueue& fq = flows_[flow];
  SqEntry& sq = entry(flow, fq.next_tx);
  const uint32_t index = fq.next_packet;
  if (index == 0) {
    sq.sent_ps = now_ps_;
    fq.packets = wire_.packets_for_message(sq.message.bytes);
  }
  payload = wire_.packet_payload_bytes(sq.message.bytes, index);
  wire_bytes = wire_.packet_wire_bytes(payload, index == 0, fq.op);
  slot = static_cast<uint16_t>(fq.next_tx & kSqMask);
  const bool last = index + 1 >= fq.packets;
  if (last) {
    ++fq.next_tx;
    fq.next_packet = 0;
    ++stats_.messages;
  } else {
    ++fq.next_packet;
  }
  return last;
}

uint32_t SimPort::next_packet_wire_bytes(uint32_t flow) noexcept {
  const FlowQueue& fq = flows_[flow];
  const SqEntry& sq = entry(flow, fq.next_tx);
  const uint32_t payload = wire_.packet_payload_bytes(sq.message.bytes, fq.next_packet);
  return wire_.packet_wire_bytes(payload, fq.next_packet == 0, fq.op);
}

// The queue class `nic_class` of `host` would send now, or kNone. With a switch, the credit
// check comes first. When every flow of the class feeds one switch buffer (the usual case: the
// link's credits are per VL / PFC priority), the whole class waits while that buffer has no room
// for a largest packet, and its tree keeps its state, so the NIC's shares inside the class hold
// under back-pressure. Otherwise, a flow whose next packet does not fit leaves its tree (as if
// idle) until credit comes back, so its siblings take the bandwidth.
uint32_t SimPort::ready_queue(uint32_t host, uint32_t nic_class) noexcept {
  Host& nic = hosts_[host];
  const auto s = static_cast<uint32_t>(nic.sched_of_class[nic_class]);
  policy::TreeScheduler& sched = scheds_[s];
  const uint32_t bit = 1U << nic_class;
  const int32_t class_buffer = nic.class_buffer[nic_class];
  if (switched_ && class_buffer >= 0 && sched.any_backlogged()) {
    const bool no_room = credit_used_[static_cast<uint32_t>(class_buffer)] + largest_packet_bytes_ >
                         switch_buffer_bytes_;
    if (no_room) {
      if ((nic.credit_held_mask & bit) == 0) ++stats_.credit_pauses;
      nic.credit_held_mask |= bit;
      return policy::TreeScheduler::kNone;
    }
  }
  nic.credit_held_mask &= ~bit;
  while (sched.any_backlogged()) {
    const uint32_t q = sched.pick(now_ps_);
    if (q == policy::TreeScheduler::kNone || !switched_) return q;
    const uint32_t flow = sched_flows_[s][q];
    FlowInfo& info = info_[flow];
    if (credit_used_[info.buffer] + next_packet_wire_bytes(flow) <= switch_buffer_bytes_) return q;
    sched.on_sent(q, 0, false, now_ps_);
    info.paused = true;
    paused_[info.buffer].push_back(flow);
    ++stats_.credit_pauses;
  }
  return policy::TreeScheduler::kNone;
}

bool SimPort::nic_transmit(uint32_t h) noexcept {
  Host& host = hosts_[h];
  host.held_mask = 0;
  if (host.link_free_ps > now_ps_ || host.class_mask == 0) return true;
  bool any = false;
  for (uint32_t m = host.class_mask; m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    any = any || scheds_[static_cast<uint32_t>(host.sched_of_class[c])].any_backlogged();
  }
  if (!any) return true;
  if (!switched_ && (lanes_[h].rx.full() || lanes_[h].tx_done.full())) {
    ++stats_.ring_stalls;
    return false;
  }
  uint32_t ready = 0;
  for (uint32_t m = host.class_mask; m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    const uint32_t q = ready_queue(h, c);
    if (q == policy::TreeScheduler::kNone) continue;
    host.ready_queue[c] = q;
    ready |= 1U << c;
  }
  if (ready == 0) return true;
  const int picked = arbiters_[h].pick(ready, now_ps_);
  if (picked == policy::PortArbiter::kNone) {
    host.held_mask = ready;  // capped, or VLs no table serves
    return true;
  }
  const auto c = static_cast<uint32_t>(picked);
  const auto s = static_cast<uint32_t>(host.sched_of_class[c]);
  const uint32_t q = host.ready_queue[c];
  const uint32_t flow = sched_flows_[s][q];
  uint32_t payload = 0;
  uint32_t wire_bytes = 0;
  uint16_t slot = 0;
  const bool last = take_packet(flow, payload, wire_bytes, slot);
  const int64_t end_ps =
      now_ps_ + serialise(wire_bytes, static_cast<uint64_t>(rate_bps_), host.carry);
  arbiters_[h].sent(c, wire_bytes, now_ps_);
  scheds_[s].on_sent(q, wire_bytes, flows_[flow].next_tx != flows_[flow].tail, now_ps_);

  if (switched_) {
    const uint32_t buffer = info_[flow].buffer;
    switch_queues_[buffer].push(
        SwPacket{end_ps + nic_propagation_ps_, flow, slot, last, payload, wire_bytes});
    credit_used_[buffer] += wire_bytes;
    stats_.switch_buffer_high_water_bytes = std::max(stats_.switch_buffer_high_water_bytes,
                                                     static_cast<uint64_t>(credit_used_[buffer]));
  } else {
    Lane& lane = lanes_[h];
    lane.rx.push(RxEvent{end_ps + propagation_ps_, flow, slot, last, payload, wire_bytes});
    if (last) lane.tx_done.push(TxDoneEvent{end_ps + 2 * propagation_ps_, flow});
  }
  host.link_free_ps = end_ps;
  stats_.busy_ps += static_cast<uint64_t>(end_ps - now_ps_);
  ++stats_.packets;
  stats_.wire_bytes += wire_bytes;
  stats_.payload_bytes += payload;
  ++stats_.class_packets[c];
  stats_.class_wire_bytes[c] += wire_bytes;
  return true;
}

bool SimPort::switch_forward() noexcept {
  switch_held_mask_ = 0;
  if (switch_free_ps_ > now_ps_) return true;
  const auto host_count = static_cast<uint32_t>(hosts_.size());
  uint32_t ready = 0;
  for (uint32_t m = switch_class_mask_; m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    for (uint32_t h = 0; h < host_count; ++h) {
      const RingBuffer<SwPacket>& queue = switch_queues_[h * switch_classes_ + c];
      if (!queue.empty() && queue.front().arrive_ps <= now_ps_) {
        ready |= 1U << c;
        break;
      }
    }
  }
  if (ready == 0) return true;
  Lane& lane = lanes_[0];
  if (lane.rx.full() || lane.tx_done.full()) {
    ++stats_.ring_stalls;
    return false;
  }
  const int picked = switch_arbiter_->pick(ready, now_ps_);
  if (picked == policy::PortArbiter::kNone) {
    switch_held_mask_ = ready;
    return true;
  }
  const auto c = static_cast<uint32_t>(picked);
  // Inside a class: round robin over the ingress ports with a packet in.
  uint32_t buffer = 0;
  for (uint32_t i = 0; i < host_count; ++i) {
    const uint32_t h = (switch_rr_[c] + i) % host_count;
    buffer = h * switch_classes_ + c;
    const RingBuffer<SwPacket>& queue = switch_queues_[buffer];
    if (!queue.empty() && queue.front().arrive_ps <= now_ps_) {
      switch_rr_[c] = (h + 1) % host_count;
      break;
    }
  }
  RingBuffer<SwPacket>& queue = switch_queues_[buffer];
  const SwPacket packet = queue.front();
  queue.pop();
  const int64_t end_ps =
      now_ps_ +
      serialise(packet.wire_bytes, static_cast<uint64_t>(switch_rate_bps_), switch_carry_);
  switch_arbiter_->sent(c, packet.wire_bytes, now_ps_);
  lane.rx.push(RxEvent{end_ps + switch_propagation_ps_, packet.flow, packet.slot, packet.last,
                       packet.payload_bytes, packet.wire_bytes});
  if (packet.last) {
    lane.tx_done.push(TxDoneEvent{end_ps + switch_propagation_ps_ + propagation_ps_, packet.flow});
  }
  // The buffer space frees as the packet starts out; the NIC hears of it one hop later.
  credits_.push(CreditEvent{now_ps_ + nic_propagation_ps_, buffer, packet.wire_bytes});
  switch_free_ps_ = end_ps;
  stats_.switch_busy_ps += static_cast<uint64_t>(end_ps - now_ps_);
  ++stats_.switch_class_packets[c];
  stats_.switch_class_wire_bytes[c] += packet.wire_bytes;
  return true;
}

void SimPort::return_credits() noexcept {
  while (!credits_.empty() && credits_.front().time_ps <= now_ps_) {
    const CreditEvent credit = credits_.front();
    credits_.pop();
    credit_used_[credit.buffer] -= credit.bytes;
    auto& paused = paused_[credit.buffer];
    for (const uint32_t flow : paused) {
      FlowInfo& info = info_[flow];
      info.paused = false;
      scheds_[info.sched].on_backlogged(info.local, now_ps_);
    }
    paused.clear();
  }
}

// Model choice: a VL15 flow's messages are discarded whole at the NIC, one after another at the
// port rate (no link time taken from anyone), and complete without an ACK when discarded.
void SimPort::drop_messages(uint32_t h) noexcept {
  Host& host = hosts_[h];
  const auto count = static_cast<uint32_t>(host.dropped_flows.size());
  if (count == 0 || host.drop_free_ps > now_ps_ || host.drop_done.full()) return;
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t at = (host.drop_cursor + i) % count;
    const uint32_t flow = host.dropped_flows[at];
    FlowQueue& fq = flows_[flow];
    if (fq.next_tx == fq.tail) continue;
    SqEntry& sq = entry(flow, fq.next_tx);
    sq.sent_ps = now_ps_;
    const uint32_t packets = wire_.packets_for_message(sq.message.bytes);
    int64_t end_ps = now_ps_;
    for (uint32_t p = 0; p < packets; ++p) {
      const uint32_t payload = wire_.packet_payload_bytes(sq.message.bytes, p);
      end_ps += serialise(wire_.packet_wire_bytes(payload, p == 0, fq.op),
                          static_cast<uint64_t>(rate_bps_), host.drop_carry);
    }
    host.drop_done.push(TxDoneEvent{end_ps, flow});
    host.drop_free_ps = end_ps;
    host.drop_cursor = (at + 1) % count;
    ++fq.next_tx;
    stats_.drops += packets;
    ++stats_.dropped_messages;
    return;
  }
}

bool SimPort::step_general() noexcept {
  if (switched_) {
    return_credits();
    if (!switch_forward()) return false;
  }
  bool ok = true;
  for (uint32_t h = 0; h < hosts_.size(); ++h) {
    ok = nic_transmit(h) && ok;
    drop_messages(h);
  }
  return ok;
}

int64_t SimPort::next_event_ps() const noexcept {
  int64_t next = INT64_MAX;
  for (uint32_t h = 0; h < hosts_.size(); ++h) {
    const Host& host = hosts_[h];
    if (host.link_free_ps > now_ps_) {
      next = std::min(next, host.link_free_ps);
    } else {
      // Credit-held classes wait for a credit return, an event of its own.
      for (uint32_t m = host.class_mask & ~host.credit_held_mask; m != 0; m &= m - 1) {
        const auto c = static_cast<uint32_t>(__builtin_ctz(m));
        const policy::TreeScheduler& sched = scheds_[static_cast<uint32_t>(host.sched_of_class[c])];
        if (sched.any_backlogged()) next = std::min(next, sched.next_eligible());
      }
      if (host.held_mask != 0) next = std::min(next, arbiters_[h].next_eligible_ps(host.held_mask));
    }
    if (host.drop_free_ps > now_ps_) {
      for (const uint32_t flow : host.dropped_flows) {
        if (flows_[flow].next_tx != flows_[flow].tail) {
          next = std::min(next, host.drop_free_ps);
          break;
        }
      }
    }
    if (!host.drop_done.empty()) next = std::min(next, host.drop_done.front().time_ps);
  }
  if (switched_) {
    if (switch_free_ps_ > now_ps_) {
      next = std::min(next, switch_free_ps_);
    } else {
      for (const auto& queue : switch_queues_) {
        if (!queue.empty() && queue.front().arrive_ps > now_ps_) {
          next = std::min(next, queue.front().arrive_ps);
        }
      }
      if (switch_held_mask_ != 0) {
        next = std::min(next, switch_arbiter_->next_eligible_ps(switch_held_mask_));
      }
    }
    if (!credits_.empty()) next = std::min(next, credits_.front().time_ps);
  }
  for (const Lane& lane : lanes_) {
    if (!lane.tx_done.empty()) next = std::min(next, lane.tx_done.front().time_ps);
  }
  return next;
}

bool SimPort::tx_done_due() const noexcept {
  for (const Lane& lane : lanes_) {
    if (!lane.tx_done.empty() && lane.tx_done.front().time_ps <= now_ps_) return true;
  }
  for (const Host& host : hosts_) {
    if (!host.drop_done.empty() && host.drop_done.front().time_ps <= now_ps_) return true;
  }
  return false;
}

bool SimPort::rx_due_high_water() const noexcept {
  for (const Lane& lane : lanes_) {
    if (lane.rx.size() >= kDueHighWater && lane.rx.at(kDueHighWater - 1).time_ps <= now_ps_) {
      return true;
    }
  }
  return false;
}

void SimPort::wait_until_general(int64_t deadline_ps) noexcept {
  while (true) {
    ++stats_.steps;
    if (!step_general()) return;  // a completion ring is full: the caller must poll
    if (tx_done_due() || rx_due_high_water()) return;
    if (now_ps_ >= deadline_ps) return;
    const int64_t next_ps = std::min(deadline_ps, next_event_ps());
    now_ps_ = std::max(next_ps, now_ps_ + 1);
  }
}

void SimPort::fill_rx(Completion& c, const RxEvent& rx) const noexcept {
  const SqEntry& sq = send_queues_[static_cast<size_t>(rx.flow) * kSimSendQueueDepth + rx.slot];
  c.kind = Completion::Kind::rx_packet;
  c.last_of_message = rx.last;
  c.messages = 1;
  c.flow = rx.flow;
  c.payload_bytes = rx.payload_bytes;
  c.wire_bytes = rx.wire_bytes;
  c.sequence = sq.message.sequence;
  c.scheduled_ns = sq.message.scheduled_ns;
  c.sent_ns = sq.sent_ps / 1000;
  c.time_ns = rx.time_ps / 1000;
}

void SimPort::fill_tx_done(Completion& c, const TxDoneEvent& done) noexcept {
  FlowQueue& flow = flows_[done.flow];
  const SqEntry& sq = entry(done.flow, flow.head);
  c.kind = Completion::Kind::tx_done;
  c.last_of_message = true;
  c.messages = 1;
  c.flow = done.flow;
  c.payload_bytes = sq.message.bytes;
  c.wire_bytes = 0;
  c.sequence = sq.message.sequence;
  c.scheduled_ns = sq.message.scheduled_ns;
  c.sent_ns = sq.sent_ps / 1000;
  c.time_ns = done.time_ps / 1000;
  ++flow.head;  // the send-queue slot is free again
}

uint32_t SimPort::poll_general(std::span<Completion> out) noexcept {
  uint32_t count = 0;
  while (count < out.size()) {
    // The earliest due event over every ring; ties go to packets, then to the lower ring.
    RingBuffer<RxEvent>* best_rx = nullptr;
    RingBuffer<TxDoneEvent>* best_done = nullptr;
    int64_t best_ps = now_ps_ + 1;
    for (Lane& lane : lanes_) {
      if (!lane.rx.empty() && lane.rx.front().time_ps < best_ps) {
        best_ps = lane.rx.front().time_ps;
        best_rx = &lane.rx;
      }
    }
    for (Lane& lane : lanes_) {
      if (!lane.tx_done.empty() && lane.tx_done.front().time_ps < best_ps) {
        best_ps = lane.tx_done.front().time_ps;
        best_rx = nullptr;
        best_done = &lane.tx_done;
      }
    }
    for (Host& host : hosts_) {
      if (!host.drop_done.empty() && host.drop_done.front().time_ps < best_ps) {
        best_ps = host.drop_done.front().time_ps;
        best_rx = nullptr;
        best_done = &host.drop_done;
      }
    }
    if (best_rx != nullptr) {
      fill_rx(out[count++], best_rx->front());
      best_rx->pop();
    } else if (best_done != nullptr) {
      fill_tx_done(out[count++], best_done->front());
      best_done->pop();
    } else {
      break;
    }
  }
  return count;
}

}  // namespace qb::drv::sim
