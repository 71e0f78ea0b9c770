// The simulator's model: the NICs, the event loop and the completions (sim_model.hpp); the
// switch is in sim_switch.cpp. Model choices: docs/semantics.md, "Simulator".
#include "sim_model.hpp"

#include <algorithm>
#include <cmath>

#include "every_event.hpp"
#include "red_marking.hpp"
#include "sim_driver.hpp"
#include "sim_time.hpp"

namespace qb::drv::sim {
namespace {

constexpr uint32_t kSqMask = kSimSendQueueDepth - 1;
static_assert((kSimSendQueueDepth & kSqMask) == 0, "the send queue depth must be a power of two");
static_assert(kSimSendQueueDepth <= 65536, "RxEvent::slot is 16 bits");

}  // namespace

bool needs_fabric(const policy::QosPlan& plan) noexcept {
  return plan.nic_qos.kind != policy::PortQos::Kind::none || plan.hosts > 1 || plan.switched ||
         std::any_of(plan.flows.begin(), plan.flows.end(),
                     [](const policy::FlowPlan& flow) { return flow.dropped; });
}

template <class Shape>
void SimModel<Shape>::attach(RateControl* program) noexcept {
  if constexpr (kFabric) program_ = program;
  (void)program;
}

template <class Shape>
void SimModel<Shape>::configure(const Topology& topology, const policy::QosPlan& plan) {
  wire_ = topology.wire;
  rate_bps_ = std::max<int64_t>(1, static_cast<int64_t>(topology.port_rate_bps + 0.5));
  propagation_ps_ = topology.propagation_delay_ns * 1000;
  switched_ = kFabric && plan.switched;
  // Model choice: NIC -> switch and switch -> receiver each take half the one-way delay; the
  // ACK (not serialised, no contention) takes the whole one-way delay back.
  nic_propagation_ps_ = switched_ ? propagation_ps_ / 2 : propagation_ps_;
  const int64_t switch_rate_bps =
      plan.switch_rate_bps > 0.0
          ? std::max<int64_t>(1, static_cast<int64_t>(plan.switch_rate_bps + 0.5))
          : rate_bps_;

  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  const uint32_t host_total = std::max<uint32_t>(1, plan.hosts);
  flows_.assign(flow_count, FlowQueue{});
  send_queues_.assign(static_cast<size_t>(flow_count) * kSimSendQueueDepth, SqEntry{});

  arbiters_.clear();
  arbiters_.reserve(host_total);
  for (uint32_t h = 0; h < host_total; ++h) {
    arbiters_.emplace_back(plan.nic_qos, topology.port_rate_bps);
  }
  hosts_.assign(host_total, Host{});
  for (Host& host : hosts_) {
    host.sched_of_class.fill(-1);
    host.class_buffer.fill(kNoBuffer);
  }
  largest_packet_bytes_ = largest_packet_wire_bytes(wire_);
  if (switched_) configure_switch(plan, switch_rate_bps, topology.repetition);
  const std::vector<uint32_t> flows_per_buffer = assign_flows(plan);
  make_schedulers(plan);
  size_rings(switch_rate_bps);
  configure_backpressure(plan, flows_per_buffer);
  flow_drops_.assign(flow_count, 0);
  window_start_ps_ = std::max<int64_t>(topology.window_start_ns, 0) * 1000;
  window_end_ps_ =
      topology.window_end_ns >= INT64_MAX / 1000 ? INT64_MAX : topology.window_end_ns * 1000;
  retransmit_timeout_ps_ = plan.congestion.retransmit_timeout_ns * 1000;
  every_event_ = every_event_for_tests();
  if (wakeups_used()) {
    program_wakeup_key_ = flow_count * kWakeKinds;
    wakeups_.reset(program_wakeup_key_ + 1);
  }
  if (program() != nullptr) configure_rate_control();
  reset();
  running_ = false;
}

template <class Shape>
void SimModel<Shape>::configure_switch(const policy::QosPlan& plan, int64_t switch_rate_bps,
                                       uint32_t repetition) {
  SimSwitch::Config config;
  config.qos = plan.switch_qos;
  config.rate_bps = switch_rate_bps;
  config.hosts = static_cast<uint32_t>(hosts_.size());
  config.nic_rate_bps = rate_bps_;
  config.nic_propagation_ps = nic_propagation_ps_;
  config.receiver_propagation_ps = propagation_ps_ - nic_propagation_ps_;
  config.ack_propagation_ps = propagation_ps_;
  config.largest_packet_bytes = largest_packet_wire_bytes(wire_);
  config.smallest_packet_bytes = smallest_packet_wire_bytes(wire_);
  config.flows = static_cast<uint32_t>(plan.flows.size());
  config.ecn = plan.congestion.ecn;
  config.cnp_interval_ps = plan.congestion.cnp_interval_ns * 1000;
  config.seed = marking_seed(plan.congestion.seed, repetition);
  config.queue_cnps = program() != nullptr;
  config.lossy = plan.congestion.lossy;
  config.lossy_buffer_bytes = plan.congestion.buffer_bytes;
  if (plan.congestion.reports_switch_queue()) {
    config.series_start_ps = plan.congestion.series_start_ns * 1000;
    config.series_bin_ps = plan.congestion.series_bin_ns * 1000;
    config.series_bins = plan.congestion.series_bins;
  }
  switch_.configure(config);
}

template <class Shape>
std::vector<uint32_t> SimModel<Shape>::assign_flows(const policy::QosPlan& plan) {
  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  const bool nic_classes = plan.nic_qos.kind != policy::PortQos::Kind::none;
  const bool switch_classes = switched_ && plan.switch_qos.kind != policy::PortQos::Kind::none;
  info_.assign(flow_count, FlowInfo{});
  sched_flows_.clear();
  if constexpr (!kFabric) {
    // Class 0's scheduler exists even without flows, so class_mask() is a constant.
    hosts_[0].sched_of_class[0] = 0;
    hosts_[0].class_mask = 1;
    sched_flows_.emplace_back();
  }
  nic_class_mask_ = 0;
  uint32_t switch_class_mask = 0;
  std::vector<uint32_t> flows_per_buffer(switched_ ? switch_.buffer_count() : 0, 0);
  for (uint32_t f = 0; f < flow_count; ++f) {
    const policy::FlowPlan& flow = plan.flows[f];
    FlowInfo& info = info_[f];
    flows_[f].op = flow.op;
    flows_[f].middle_wire_bytes = wire_.packet_wire_bytes(wire_.mtu_bytes, false, flow.op);
    info.host = flow.host;
    info.nic_class = nic_classes ? flow.arb_class : 0;
    info.switch_class = switch_classes ? flow.switch_arb_class : 0;
    info.buffer = switched_ ? switch_.buffer_of(info.host, info.switch_class) : 0;
    Host& host = hosts_[info.host];
    if (flow.dropped) {
      info.held = kHeldDropped;
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
    if (switched_) {
      switch_class_mask |= 1U << info.switch_class;
      ++flows_per_buffer[info.buffer];
    }
  }
  if (switched_) switch_.set_class_mask(switch_class_mask);
  return flows_per_buffer;
}

template <class Shape>
void SimModel<Shape>::make_schedulers(const policy::QosPlan& plan) {
  policy::TreeScheduler::Config config;
  config.ticks_per_second = static_cast<double>(kPsPerSecond);
  config.quantum_bytes = largest_packet_wire_bytes(wire_);
  scheds_.clear();
  scheds_.reserve(sched_flows_.size());
  for (const auto& flows : sched_flows_) {
    std::vector<uint32_t> queue_leaf(flows.size());
    for (size_t q = 0; q < flows.size(); ++q) queue_leaf[q] = plan.flows[flows[q]].leaf;
    scheds_.emplace_back(plan.tree, queue_leaf, config);
  }
}

template <class Shape>
void SimModel<Shape>::size_rings(int64_t switch_rate_bps) {
  const auto flow_count = static_cast<uint32_t>(flows_.size());
  const uint32_t largest = largest_packet_wire_bytes(wire_);
  const uint32_t smallest = smallest_packet_wire_bytes(wire_);
  // Completion rings: entries still in flight are spaced at least one smallest packet apart on
  // the link, plus what wait_until() lets become due before it hands back (kDueHighWater).
  const uint64_t depth_entries = uint64_t{flow_count} * kSimSendQueueDepth + 1;
  const int64_t lane_rate = switched_ ? switch_rate_bps : rate_bps_;
  const uint64_t min_ps = packet_ps(smallest, lane_rate);
  const uint64_t max_ps = packet_ps(largest, lane_rate) + 1;
  const auto rx_delay =
      static_cast<uint64_t>(propagation_ps_ - (switched_ ? nic_propagation_ps_ : 0));
  const auto ack = static_cast<uint64_t>(propagation_ps_);
  lanes_.assign(switched_ ? 1 : hosts_.size(), Lane{});
  for (Lane& lane : lanes_) {
    lane.rx.reset(ring_entries((rx_delay + max_ps) / min_ps + kRingSlack));
    lane.tx_done.reset(
        ring_entries(std::min((rx_delay + ack + max_ps) / min_ps + kRingSlack, depth_entries)));
  }
  discard_hosts_.clear();
  for (uint32_t h = 0; h < hosts_.size(); ++h) {
    Host& host = hosts_[h];
    host.drop_done.reset(host.dropped_flows.size() * kSimSendQueueDepth + 1);
    if (!host.dropped_flows.empty()) discard_hosts_.push_back(h);
  }
  if constexpr (kFabric) {
    due_.assign((hosts_.size() + 63) / 64, 0);
    host_wake_.reset(static_cast<uint32_t>(hosts_.size()));
  }
}

template <class Shape>
void SimModel<Shape>::configure_backpressure(const policy::QosPlan& plan,
                                             const std::vector<uint32_t>& flows_per_buffer) {
  paused_.assign(flows_per_buffer.size(), {});
  for (size_t b = 0; b < paused_.size(); ++b) paused_[b].reserve(flows_per_buffer[b]);
  credit_waits_.assign(flows_per_buffer.size(), CreditWait{});
  class_hosts_.fill(0);
  for (size_t b = 0; b < credit_waits_.size(); ++b) {
    credit_waits_[b].flows = flows_per_buffer[b] > 0;
    if (credit_waits_[b].flows) ++class_hosts_[class_of_buffer(static_cast<uint32_t>(b))];
  }
  if (switched_ && !plan.congestion.lossy) {
    paused_series_.configure(switch_.class_count(), plan.congestion.series_start_ns * 1000,
                             plan.congestion.series_bin_ns * 1000, plan.congestion.series_bins);
  } else {
    paused_series_.configure(0, 0, 0, 0);
  }
}

template <class Shape>
void SimModel<Shape>::configure_rate_control() {
  const auto flow_count = static_cast<uint32_t>(flows_.size());
  limiter_.configure(flow_count, largest_packet_wire_bytes(wire_));
  probe_sent_ps_.assign(flow_count, 0);
  probe_answered_ps_.assign(flow_count, 0);
  probe_waiting_.assign(flow_count, 0);
  started_.assign(flow_count, 0);
  host_of_flow_.resize(flow_count);
  for (uint32_t f = 0; f < flow_count; ++f) host_of_flow_[f] = info_[f].host;
}

template <class Shape>
void SimModel<Shape>::start() noexcept {
  reset();
  running_ = !lanes_.empty();  // configured
  if (program() != nullptr && running_) {
    program_events_ = program_->event_mask();
    RateStart start;
    start.flows = static_cast<uint32_t>(flows_.size());
    start.hosts = static_cast<uint32_t>(hosts_.size());
    start.host_of_flow = host_of_flow_;
    start.line_rate_bps = rate_bps_;
    program_->on_start(start, *this);
  }
}

template <class Shape>
void SimModel<Shape>::reset() noexcept {
  for (auto& flow : flows_) {
    FlowQueue fresh;
    fresh.op = flow.op;
    fresh.middle_wire_bytes = flow.middle_wire_bytes;
    flow = fresh;
  }
  for (FlowInfo& info : info_) info.held &= kHeldDropped;
  now_ps_ = 0;
  stats_ = PortStats{};
  for (Host& host : hosts_) {
    host.held_mask = 0;
    host.credit_held_mask = 0;
    host.link_free_ps = 0;
    host.carry = 0;
    host.tx_wire_bytes = 0;
    host.drop_cursor = 0;
    host.drop_free_ps = 0;
    host.drop_carry = 0;
    host.drop_done.clear();
  }
  for (Lane& lane : lanes_) {
    lane.rx.clear();
    lane.tx_done.clear();
  }
  for (auto& paused : paused_) paused.clear();
  credit_waiters_ = 0;
  for (CreditWait& wait : credit_waits_) wait = CreditWait{0, wait.flows, 0, 0};
  paused_hosts_.fill(0);
  paused_series_.start();
  std::fill(flow_drops_.begin(), flow_drops_.end(), 0);
  if constexpr (kFabric) {
    // Every host due once: the first step sorts them (a visit to an idle one changes nothing).
    std::fill(due_.begin(), due_.end(), 0);
    for (uint32_t h = 0; h < hosts_.size(); ++h) mark_due(h);
    host_wake_.clear();
  }
  if (switched()) switch_.start();
  if (wakeups_used()) wakeups_.clear();
  if (program() != nullptr) {
    limiter_.start();
    std::fill(probe_waiting_.begin(), probe_waiting_.end(), 0);
    std::fill(started_.begin(), started_.end(), 0);
  }
}

template <class Shape>
typename SimModel<Shape>::SqEntry& SimModel<Shape>::entry(uint32_t flow, uint32_t index) noexcept {
  return send_queues_[static_cast<size_t>(flow) * kSimSendQueueDepth + (index & kSqMask)];
}

template <class Shape>
uint32_t SimModel<Shape>::tx_burst(std::span<const Message> messages) noexcept {
  if (!running_) return 0;
  uint32_t accepted = 0;
  for (const Message& message : messages) {
    if (message.flow >= flows_.size()) break;
    FlowQueue& flow = flows_[message.flow];
    const uint32_t depth = flow.tail - flow.head;
    if (depth >= kSimSendQueueDepth) break;
    // Field by field, not `= SqEntry{message, 0}` nor `slot.message = message`: those copy
    // with 16-byte loads, and the caller has just written the message with 4- and 8-byte
    // stores, which cannot be forwarded to a wider load (a stall that was half of this
    // function's time).
    static_assert(sizeof(Message) == 24, "a new Message field is copied here too");
    SqEntry& slot = entry(message.flow, flow.tail);
    slot.message.flow = message.flow;
    slot.message.bytes = message.bytes;
    slot.message.scheduled_ns = message.scheduled_ns;
    slot.message.sequence = message.sequence;
    slot.sent_ps = 0;
    slot.first_psn = 0;
    const bool was_idle = flow.next_tx == flow.tail;
    ++flow.tail;
    stats_.max_send_queue_depth = std::max(stats_.max_send_queue_depth, depth + 1);
    if (was_idle) admit(message.flow);
    ++accepted;
    if (program() != nullptr && started_[message.flow] == 0) {
      started_[message.flow] = 1;
      deliver(RateEvent{RateEvent::Kind::start, message.flow, now_ps_ / 1000});
    }
  }
  stats_.posted_messages += accepted;
  if (accepted < messages.size()) ++stats_.rejected_posts;
  return accepted;
}

template <class Shape>
inline void SimModel<Shape>::admit(uint32_t flow) noexcept {
  if constexpr (kFabric) {
    const FlowInfo& info = info_[flow];
    if (info.held != 0) return;  // it comes back when what holds it lets go
    if (program() != nullptr && limiter_.ready_ps(flow) > now_ps_) {
      hold_for_rate(flow);
      return;
    }
    scheds_[info.sched].on_backlogged(info.local, now_ps_);
    mark_due(info.host);
  } else {
    scheds_[0].on_backlogged(flow, now_ps_);  // nothing holds a flow; one scheduler, in order
  }
}

template <class Shape>
inline bool SimModel<Shape>::take_packet(uint32_t flow, uint32_t& payload, uint32_t& wire_bytes,
                                         uint16_t& slot, uint32_t& psn) noexcept {
  FlowQueue& fq = flows_[flow];
  SqEntry& sq = entry(flow, fq.next_tx);
  const uint32_t index = fq.next_packet;
  psn = fq.next_psn++;
  const bool first_time = psn >= fq.psn_end;  // else a retransmission (lossy)
  if (first_time) fq.psn_end = psn + 1;
  if (index == 0) {
    if (first_time) {
      sq.sent_ps = now_ps_;
      sq.first_psn = psn;
    }
    const uint32_t bytes = sq.message.bytes;
    if (fq.cached_packets == 0 || fq.cached_bytes != bytes) [[unlikely]] {
      const uint32_t packets = wire_.packets_for_message(bytes);
      const bool only = packets <= 1;
      // A one-packet message carries all of it.
      const uint32_t first_payload = only ? bytes : wire_.packet_payload_bytes(bytes, 0);
      fq.cached_bytes = bytes;
      fq.cached_packets = packets;
      fq.cached_first_payload = first_payload;
      fq.cached_first_wire = wire_.packet_wire_bytes(first_payload, true, fq.op, only);
    }
    fq.packets = fq.cached_packets;
  }
  const bool last = index + 1 >= fq.packets;
  if (index == 0) {
    payload = fq.cached_first_payload;
    wire_bytes = fq.cached_first_wire;
  } else if (last) {
    payload = wire_.packet_payload_bytes(sq.message.bytes, index);
    wire_bytes = wire_.packet_wire_bytes(payload, false, fq.op, true);
  } else {
    // A middle packet is a full MTU without first-packet headers: the same for every one.
    payload = wire_.mtu_bytes;
    wire_bytes = fq.middle_wire_bytes;
  }
  slot = static_cast<uint16_t>(fq.next_tx & kSqMask);
  if (last) {
    ++fq.next_tx;
    fq.next_packet = 0;
    if (first_time) ++stats_.messages;
  } else {
    ++fq.next_packet;
  }
  return last;
}

template <class Shape>
uint32_t SimModel<Shape>::next_packet_wire_bytes(uint32_t flow) noexcept {
  const FlowQueue& fq = flows_[flow];
  const SqEntry& sq = entry(flow, fq.next_tx);
  const uint32_t payload = wire_.packet_payload_bytes(sq.message.bytes, fq.next_packet);
  const bool last = fq.next_packet + 1 >= wire_.packets_for_message(sq.message.bytes);
  return wire_.packet_wire_bytes(payload, fq.next_packet == 0, fq.op, last);
}

// The queue class `nic_class` of `host` would send now, or kNone. With a switch, the credit
// check comes first. When every flow of the class feeds one switch buffer (the usual case: the
// link's credits are per VL / PFC priority), the whole class waits while that buffer has no room
// for a largest packet, and its tree keeps its state, so the NIC's shares inside the class hold
// under back-pressure. Otherwise, a flow whose next packet does not fit leaves its tree (as if
// idle) until credit comes back, so its siblings take the bandwidth.
template <class Shape>
uint32_t SimModel<Shape>::ready_queue(uint32_t host, uint32_t nic_class) noexcept {
  Host& nic = hosts_[host];
  const uint32_t s = sched_of(nic, nic_class);
  policy::TreeScheduler& sched = scheds_[s];
  if (switched()) {
    const uint32_t bit = 1U << nic_class;
    const int32_t class_buffer = nic.class_buffer[nic_class];
    if (class_buffer >= 0 && sched.any_backlogged() &&
        !switch_.has_room(static_cast<uint32_t>(class_buffer), largest_packet_bytes_)) {
      if ((nic.credit_held_mask & bit) == 0) {
        ++stats_.credit_pauses;
        ++credit_waiters_;
        credit_wait_begins(static_cast<uint32_t>(class_buffer));
      }
      nic.credit_held_mask |= bit;
      return policy::TreeScheduler::kNone;
    }
    if ((nic.credit_held_mask & bit) != 0) {
      nic.credit_held_mask &= ~bit;
      --credit_waiters_;
      credit_wait_ends(static_cast<uint32_t>(class_buffer), 1);
    }
  }
  while (sched.any_backlogged()) {
    const uint32_t q = sched.pick(now_ps_);
    if (q == policy::TreeScheduler::kNone || !switched()) return q;
    const uint32_t flow = flow_of(s, q);
    FlowInfo& info = info_[flow];
    if (switch_.has_room(info.buffer, next_packet_wire_bytes(flow))) return q;
    sched.on_sent(q, 0, false, now_ps_);
    info.held |= kHeldCredit;
    paused_[info.buffer].push_back(flow);
    ++credit_waiters_;
    ++stats_.credit_pauses;
    credit_wait_begins(info.buffer);
  }
  return policy::TreeScheduler::kNone;
}

template <class Shape>
inline bool SimModel<Shape>::choose(uint32_t h, uint32_t& nic_class, uint32_t& queue) noexcept {
  nic_class = 0;
  if constexpr (!kFabric) {
    queue = ready_queue(h, 0);  // one class: nothing to arbitrate
    return queue != policy::TreeScheduler::kNone;
  }
  Host& host = hosts_[h];
  uint32_t ready = 0;
  std::array<uint32_t, policy::kMaxArbClasses> ready_queues;  // per class in `ready`
  for (uint32_t m = class_mask(host); m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    const uint32_t q = ready_queue(h, c);
    if (q == policy::TreeScheduler::kNone) continue;
    ready_queues[c] = q;
    ready |= 1U << c;
  }
  if (ready == 0) return false;
  const int picked = arbiters_[h].pick(ready, now_ps_);
  if (picked == policy::PortArbiter::kNone) {
    host.held_mask = ready;  // capped, or VLs no table serves
    return false;
  }
  nic_class = static_cast<uint32_t>(picked);
  queue = ready_queues[nic_class];
  return true;
}

template <class Shape>
inline bool SimModel<Shape>::nic_transmit(uint32_t h) noexcept {
  Host& host = hosts_[h];
  if constexpr (kFabric) host.held_mask = 0;
  bool any = false;
  for (uint32_t m = class_mask(host); m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    any = any || scheds_[sched_of(host, c)].any_backlogged();
  }
  if (!any) return true;
  if (!switched() && (lanes_[h].rx.full() || lanes_[h].tx_done.full())) {
    ++stats_.ring_stalls;
    return false;
  }
  uint32_t c = 0;
  uint32_t q = 0;
  if (!choose(h, c, q)) return true;
  const uint32_t s = sched_of(host, c);
  const uint32_t flow = flow_of(s, q);
  uint32_t payload = 0;
  uint32_t wire_bytes = 0;
  uint16_t slot = 0;
  uint32_t psn = 0;
  const bool resend = flows_[flow].next_psn < flows_[flow].psn_end;
  const bool last = take_packet(flow, payload, wire_bytes, slot, psn);
  const int64_t end_ps =
      now_ps_ + host.serialiser.next(wire_bytes, static_cast<uint64_t>(rate_bps_), host.carry);
  if constexpr (kFabric) arbiters_[h].sent(c, wire_bytes, now_ps_);
  bool backlogged = flows_[flow].next_tx != flows_[flow].tail;
  if (program() != nullptr) backlogged = after_send(flow, wire_bytes, backlogged);
  scheds_[s].on_sent(q, wire_bytes, backlogged, now_ps_);

  if (switched()) {
    SimSwitch::Packet packet{
        end_ps + nic_propagation_ps_, flow, slot, last, false, payload, wire_bytes};
    packet.psn = psn;
    if (lossy()) {
      packet.epoch = flows_[flow].epoch;
      if (resend) {
        ++stats_.retransmitted_packets;
        stats_.retransmitted_wire_bytes += wire_bytes;
      }
      // The transport timer: restarted by every packet, it fires on a silent flow.
      wakeups_.set(flow * kWakeKinds + kWakeRetransmit, now_ps_ + retransmit_timeout_ps_);
    }
    if (!switch_.accept(info_[flow].buffer, packet, now_ps_, stats_)) {
      count_drops(flow, packet.arrive_ps, 1);  // when it would have entered the switch
    }
  } else {
    Lane& lane = lanes_[h];
    lane.rx.push(RxEvent{end_ps + propagation_ps_, flow, slot, last, payload, wire_bytes});
    // The ACK leaves the receiver when the last packet has arrived and takes one more
    // propagation delay back. Model choice: ACK serialisation (and any reverse-link
    // contention) is not modelled.
    if (last) lane.tx_done.push(TxDoneEvent{end_ps + 2 * propagation_ps_, flow});
  }
  host.link_free_ps = end_ps;
  stats_.busy_ps += static_cast<uint64_t>(end_ps - now_ps_);
  ++stats_.packets;
  stats_.wire_bytes += wire_bytes;
  stats_.payload_bytes += payload;
  if constexpr (kFabric) {
    ++stats_.class_packets[c];
    stats_.class_wire_bytes[c] += wire_bytes;
    host.tx_wire_bytes += wire_bytes;
  }
  if (program() != nullptr && (program_events_ & rate_event_bit(RateEvent::Kind::sent)) != 0) {
    deliver(RateEvent{RateEvent::Kind::sent, flow, now_ps_ / 1000, wire_bytes});
  }
  return true;
}

// Model choice: a VL15 flow's messages are discarded whole at the NIC, one after another at the
// port rate (no link time taken from anyone), and complete without an ACK when discarded.
template <class Shape>
void SimModel<Shape>::drop_messages(uint32_t h) noexcept {
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
      end_ps += serialise(wire_.packet_wire_bytes(payload, p == 0, fq.op, p + 1 == packets),
                          static_cast<uint64_t>(rate_bps_), host.drop_carry);
    }
    host.drop_done.push(TxDoneEvent{end_ps, flow});
    host.drop_free_ps = end_ps;
    host.drop_cursor = (at + 1) % count;
    ++fq.next_tx;
    stats_.drops += packets;
    ++stats_.dropped_messages;
    count_drops(flow, now_ps_, packets);
    return;
  }
}

template <class Shape>
bool SimModel<Shape>::step() noexcept {
  if (wakeups_used()) run_wakeups();
  if (lossy()) {
    switch_.deliver_nacks(now_ps_, [this](const SimSwitch::Nack& nack) {
      go_back(nack.flow, nack.psn);
      if (program() != nullptr) {
        deliver(RateEvent{RateEvent::Kind::nack, nack.flow, nack.time_ps / 1000});
      }
    });
  }
  if (switched()) {
    switch_.return_credits(now_ps_, [this](uint32_t buffer) {
      mark_due(switch_.host_of(buffer));  // a class held for credit may send again
      if (!paused_[buffer].empty()) {
        credit_wait_ends(buffer, static_cast<uint32_t>(paused_[buffer].size()));
      }
      credit_waiters_ -= static_cast<uint32_t>(paused_[buffer].size());
      for (const uint32_t flow : paused_[buffer]) {
        info_[flow].held &= static_cast<uint8_t>(~kHeldCredit);
        admit(flow);
      }
      paused_[buffer].clear();
    });
    if (program() != nullptr) {
      switch_.deliver_cnps(now_ps_, [this](const SimSwitch::Cnp& cnp) {
        deliver(RateEvent{RateEvent::Kind::cnp, cnp.flow, cnp.time_ps / 1000});
      });
    }
    if (!switch_.forward(now_ps_, lanes_[0], stats_)) return false;
  }
  bool ok = true;
  if constexpr (!kFabric) {
    // Most steps find the link busy: that test stays here, out of the call.
    const Host& host = hosts_[0];
    if (host.link_free_ps <= now_ps_) ok = nic_transmit(0);
    return ok;
  }
  while (host_wake_.top_time() <= now_ps_) {
    mark_due(host_wake_.top_key());
    host_wake_.pop();
  }
  // Due hosts in host order; one marked due during the loop is visited in this step when it
  // comes after the host being visited, in the next step otherwise (as in a loop over all).
  for (size_t w = 0; w < due_.size(); ++w) {
    uint64_t visited = 0;  // this word's bits up to the last visited
    for (uint64_t bits; (bits = due_[w] & ~visited) != 0;) {
      const auto b = static_cast<uint32_t>(__builtin_ctzll(bits));
      visited = b == 63 ? ~uint64_t{0} : (uint64_t{2} << b) - 1;
      const auto h = static_cast<uint32_t>(w * 64 + b);
      const Host& host = hosts_[h];
      if (host.link_free_ps <= now_ps_ && class_mask(host) != 0) ok = nic_transmit(h) && ok;
      drop_messages(h);
      if (!stays_due(h)) due_[w] &= ~(uint64_t{1} << b);
    }
  }
  return ok;
}

template <class Shape>
void SimModel<Shape>::credit_wait_begins(uint32_t buffer) noexcept {
  CreditWait& wait = credit_waits_[buffer];
  if (wait.waiting++ != 0) return;
  wait.since_ps = now_ps_;
  const uint32_t c = class_of_buffer(buffer);
  paused_series_.change(c, now_ps_, ++paused_hosts_[c]);
}

template <class Shape>
void SimModel<Shape>::credit_wait_ends(uint32_t buffer, uint32_t senders) noexcept {
  CreditWait& wait = credit_waits_[buffer];
  wait.waiting -= senders;
  if (wait.waiting != 0) return;
  wait.paused_ps += now_ps_ - wait.since_ps;
  const uint32_t c = class_of_buffer(buffer);
  paused_series_.change(c, now_ps_, --paused_hosts_[c]);
}

template <class Shape>
void SimModel<Shape>::backpressure_series(uint32_t c, std::vector<double>& paused_fraction) const {
  paused_fraction.clear();
  if (!switched() || class_hosts_[c] == 0) return;
  std::vector<double> most_hosts;
  paused_series_.series(c, now_ps_, most_hosts, paused_fraction);
  for (double& hosts : paused_fraction) hosts /= static_cast<double>(class_hosts_[c]);
}

template <class Shape>
int64_t SimModel<Shape>::backpressure_paused_ps(uint32_t buffer) const noexcept {
  if (buffer >= credit_waits_.size()) return 0;
  const CreditWait& wait = credit_waits_[buffer];
  return wait.paused_ps + (wait.waiting > 0 ? now_ps_ - wait.since_ps : 0);  // one still open
}

template <class Shape>
bool SimModel<Shape>::stays_due(uint32_t h) noexcept {
  const Host& host = hosts_[h];
  if (!host.dropped_flows.empty()) return true;
  const bool has_work = host.held_mask != 0 || class_has_work(host);
  if (host.link_free_ps > now_ps_) {
    // Woken when its link frees only if a class could send then: one with work, or one held
    // for credit (its hold is lifted only on a visit with the link free, and its credit may
    // come back while the link is busy). Otherwise what gives it work (an admitted flow, a
    // credit return) marks it due.
    if (has_work || credit_held_mask(host) != 0 || every_event_) {
      host_wake_.set(h, host.link_free_ps);
    }
    return false;
  }
  return has_work;  // held_mask: the arbiter held a ready class
}

template <class Shape>
bool SimModel<Shape>::class_has_work(const Host& host) const noexcept {
  // A class held for credit waits for its credit (mark_due on the return).
  for (uint32_t m = class_mask(host) & ~credit_held_mask(host); m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    if (scheds_[sched_of(host, c)].any_backlogged()) return true;
  }
  return false;
}

template <class Shape>
inline int64_t SimModel<Shape>::host_next_event_ps(uint32_t h) const noexcept {
  const Host& host = hosts_[h];
  int64_t next = INT64_MAX;
  if (host.link_free_ps > now_ps_) {
    next = host.link_free_ps;
  } else {
    // Credit-held classes wait for a credit return, an event of its own.
    for (uint32_t m = class_mask(host) & ~credit_held_mask(host); m != 0; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      const policy::TreeScheduler& sched = scheds_[sched_of(host, c)];
      if (sched.any_backlogged()) next = std::min(next, sched.next_eligible());
    }
    if constexpr (kFabric) {
      if (host.held_mask != 0) next = std::min(next, arbiters_[h].next_eligible_ps(host.held_mask));
    }
  }
  if constexpr (kFabric) {
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
  return next;
}

template <class Shape>
inline int64_t SimModel<Shape>::next_event_ps() const noexcept {
  int64_t next = INT64_MAX;
  if constexpr (kFabric) {
    // Hosts not due add nothing but their link's end, which host_wake_ holds.
    next = host_wake_.top_time();
    for (size_t w = 0; w < due_.size(); ++w) {
      for (uint64_t bits = due_[w]; bits != 0; bits &= bits - 1) {
        next = std::min(next,
                        host_next_event_ps(static_cast<uint32_t>(w * 64 + __builtin_ctzll(bits))));
      }
    }
  } else {
    next = host_next_event_ps(0);
  }
  if (switched()) {
    next = std::min(next, switch_.next_event_ps(now_ps_, credit_waiters_ != 0 || every_event_));
  }
  if (wakeups_used()) next = std::min(next, wakeups_.top_time());
  for (uint32_t l = 0; l < lane_count(); ++l) {
    const Lane& lane = lanes_[l];
    if (!lane.tx_done.empty()) next = std::min(next, lane.tx_done.front().time_ps);
  }
  return next;
}

template <class Shape>
bool SimModel<Shape>::tx_done_due() const noexcept {
  for (uint32_t l = 0; l < lane_count(); ++l) {
    const Lane& lane = lanes_[l];
    if (!lane.tx_done.empty() && lane.tx_done.front().time_ps <= now_ps_) return true;
  }
  if constexpr (kFabric) {
    for (const uint32_t h : discard_hosts_) {
      const Host& host = hosts_[h];
      if (!host.drop_done.empty() && host.drop_done.front().time_ps <= now_ps_) return true;
    }
  }
  return false;
}

template <class Shape>
bool SimModel<Shape>::rx_due_high_water() const noexcept {
  for (uint32_t l = 0; l < lane_count(); ++l) {
    const Lane& lane = lanes_[l];
    if (lane.rx.size() >= kDueHighWater && lane.rx.at(kDueHighWater - 1).time_ps <= now_ps_) {
      return true;
    }
  }
  return false;
}

template <class Shape>
void SimModel<Shape>::wait_until(int64_t deadline_ns) noexcept {
  if (!running_) return;
  const int64_t deadline_ps =
      deadline_ns >= INT64_MAX / 1000 ? INT64_MAX : std::max<int64_t>(deadline_ns, 0) * 1000;
  while (true) {
    ++stats_.steps;
    if (!step()) return;  // a completion ring is full: the caller must poll
    if (tx_done_due() || rx_due_high_water()) return;
    if (now_ps_ >= deadline_ps) return;
    const int64_t next_ps = std::min(deadline_ps, next_event_ps());
    now_ps_ = std::max(next_ps, now_ps_ + 1);
  }
}

template <class Shape>
inline void SimModel<Shape>::fill_rx(Completion& c, const RxEvent& rx) const noexcept {
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

template <class Shape>
inline void SimModel<Shape>::fill_tx_done(Completion& c, const TxDoneEvent& done) noexcept {
  FlowQueue& flow = flows_[done.flow];
  const SqEntry& sq = entry(done.flow, flow.head);
  c.kind = Completion::Kind::tx_done;
  c.last_of_message = true;
  c.messages = 1;
  c.flow = done.flow;
  c.payload_bytes = sq.message.bytes;
  c.wire_bytes = 0;  // per-packet wire bytes are on the rx_packet completions
  c.sequence = sq.message.sequence;
  c.scheduled_ns = sq.message.scheduled_ns;
  c.sent_ns = sq.sent_ps / 1000;
  c.time_ns = done.time_ps / 1000;
  ++flow.head;  // the send-queue slot is free again
}

template <class Shape>
uint32_t SimModel<Shape>::poll(std::span<Completion> out) noexcept {
  uint32_t count = 0;
  if constexpr (!kFabric) {
    // One lane, no discard engine: the same merge of its two rings (due events, earliest first,
    // ties to the packet), as runs of packets up to the next due ACK.
    RingBuffer<RxEvent>& rx = lanes_[0].rx;
    RingBuffer<TxDoneEvent>& done = lanes_[0].tx_done;
    const auto size = static_cast<uint32_t>(out.size());
    while (count < size) {
      const bool done_due = !done.empty() && done.front().time_ps <= now_ps_;
      const int64_t bound = done_due ? done.front().time_ps : now_ps_;
      while (count < size && !rx.empty() && rx.front().time_ps <= bound) {
        fill_rx(out[count++], rx.front());
        rx.pop();
      }
      if (count == size || !done_due) break;
      fill_tx_done(out[count++], done.front());
      done.pop();
    }
    stats_.completions += count;
    return count;
  }
  while (count < out.size()) {
    // The earliest due event over every ring (each FIFO in time); ties go to packets, then to
    // the lower ring.
    RingBuffer<RxEvent>* best_rx = nullptr;
    RingBuffer<TxDoneEvent>* best_done = nullptr;
    bool acked = false;  // best_done is a link's (an ACK), not a discard engine's
    int64_t best_ps = now_ps_ + 1;
    for (uint32_t l = 0; l < lane_count(); ++l) {
      RingBuffer<RxEvent>& rx = lanes_[l].rx;
      if (!rx.empty() && rx.front().time_ps < best_ps) {
        best_ps = rx.front().time_ps;
        best_rx = &rx;
      }
    }
    for (uint32_t d = 0; d < done_ring_count(); ++d) {
      RingBuffer<TxDoneEvent>& done = done_ring(d);
      if (!done.empty() && done.front().time_ps < best_ps) {
        best_ps = done.front().time_ps;
        best_rx = nullptr;
        best_done = &done;
        acked = d < lane_count();
      }
    }
    if (best_rx != nullptr) {
      fill_rx(out[count++], best_rx->front());
      best_rx->pop();
    } else if (best_done != nullptr) {
      Completion& c = out[count++];
      fill_tx_done(c, best_done->front());
      best_done->pop();
      if (program() != nullptr && acked &&
          (program_events_ & rate_event_bit(RateEvent::Kind::ack)) != 0) {
        RateEvent ack{RateEvent::Kind::ack, c.flow, c.time_ns, c.payload_bytes, c.sequence};
        ack.rtt_ns = c.time_ns - c.sent_ns;
        deliver(ack);
      }
    } else {
      break;
    }
  }
  stats_.completions += count;
  return count;
}

// ---- Rate control ---------------------------------------------------------------------------

template <class Shape>
void SimModel<Shape>::hold_for_rate(uint32_t flow) noexcept {
  info_[flow].held |= kHeldRate;
  wakeups_.set(flow * kWakeKinds + kWakeRelease, limiter_.ready_ps(flow));
}

template <class Shape>
bool SimModel<Shape>::after_send(uint32_t flow, uint32_t wire_bytes, bool backlogged) noexcept {
  limiter_.charge(flow, wire_bytes, now_ps_);
  if (backlogged && limiter_.ready_ps(flow) > now_ps_) {
    hold_for_rate(flow);
    return false;  // out of its tree until its limiter lets the next packet go
  }
  return backlogged;
}

template <class Shape>
void SimModel<Shape>::run_wakeups() noexcept {
  while (wakeups_.top_time() <= now_ps_) {
    const int64_t at_ps = wakeups_.top_time();
    const uint32_t key = wakeups_.top_key();
    wakeups_.pop();
    if (key == program_wakeup_key_) {
      deliver(RateEvent{RateEvent::Kind::wakeup, 0, at_ps / 1000});
      continue;
    }
    const uint32_t flow = key / kWakeKinds;
    switch (key % kWakeKinds) {
      case kWakeRelease:
        info_[flow].held &= static_cast<uint8_t>(~kHeldRate);
        if (flows_[flow].next_tx != flows_[flow].tail) admit(flow);
        break;
      case kWakeTimer:
        deliver(RateEvent{RateEvent::Kind::timer, flow, at_ps / 1000});
        break;
      case kWakeProbeArrive:
        probe_arrived(flow);
        break;
      case kWakeRetransmit:
        retransmit_timeout(flow);
        break;
      default: {  // kWakeProbeBack
        RateEvent rtt{RateEvent::Kind::rtt, flow, at_ps / 1000};
        rtt.rtt_ns = (at_ps - probe_sent_ps_[flow]) / 1000;
        rtt.probe_sent_ns = probe_sent_ps_[flow] / 1000;
        rtt.probe_answered_ns = probe_answered_ps_[flow] / 1000;
        deliver(rtt);
        break;
      }
    }
  }
}

template <class Shape>
void SimModel<Shape>::deliver(const RateEvent& event) noexcept {
  if ((program_events_ & rate_event_bit(event.kind)) != 0) program_->on_event(event, *this);
}

template <class Shape>
void SimModel<Shape>::set_rate(uint32_t flow, double rate_bps) noexcept {
  if (program() == nullptr || flow >= flows_.size()) return;
  constexpr double kMaxRateBps = 1e18;  // beyond any link: as good as unlimited, no overflow
  const uint64_t rate = !(rate_bps > 0.0)         ? 0
                        : rate_bps >= kMaxRateBps ? static_cast<uint64_t>(kMaxRateBps)
                                                  : std::max<uint64_t>(1, std::llround(rate_bps));
  limiter_.set_rate(flow, rate, now_ps_);
  FlowInfo& info = info_[flow];
  if ((info.held & kHeldRate) == 0) return;
  if (limiter_.ready_ps(flow) > now_ps_) {
    wakeups_.set(flow * kWakeKinds + kWakeRelease, limiter_.ready_ps(flow));
    return;
  }
  wakeups_.erase(flow * kWakeKinds + kWakeRelease);
  info.held &= static_cast<uint8_t>(~kHeldRate);
  if (flows_[flow].next_tx != flows_[flow].tail) admit(flow);
}

template <class Shape>
void SimModel<Shape>::request_rtt_probe(uint32_t flow) noexcept {
  if (program() == nullptr || flow >= flows_.size()) return;
  const uint32_t base = flow * kWakeKinds;
  // One probe out per flow; one left unanswered at the receiver is replaced.
  if (wakeups_.pending(base + kWakeProbeArrive) || wakeups_.pending(base + kWakeProbeBack)) return;
  probe_waiting_[flow] = 0;
  probe_sent_ps_[flow] = now_ps_;
  int64_t forward_ps = propagation_ps_;
  if (switched()) {
    // Model choice: behind the bytes the round-robin egress sends before it (its own
    // buffer's and as much of every other ingress buffer of its class), at the switch rate.
    forward_ps += bytes_ps(static_cast<uint64_t>(switch_.bytes_ahead_of_probe(info_[flow].buffer)),
                           static_cast<uint64_t>(switch_.rate_bps()));
  }
  if ((program_events_ & rate_event_bit(RateEvent::Kind::probe)) == 0 && !every_event_) {
    // The receiver's NIC answers on arrival (probe_arrived() with no program to ask): the
    // answer's time is known now, and the arrival needs no event of its own.
    probe_answered_ps_[flow] = now_ps_ + forward_ps;
    wakeups_.set(base + kWakeProbeBack, probe_answered_ps_[flow] + propagation_ps_);
    return;
  }
  wakeups_.set(base + kWakeProbeArrive, now_ps_ + forward_ps);
}

template <class Shape>
void SimModel<Shape>::probe_arrived(uint32_t flow) noexcept {
  if ((program_events_ & rate_event_bit(RateEvent::Kind::probe)) == 0) {
    probe_waiting_[flow] = 1;
    answer_probe(flow);  // the receiver's NIC answers
    return;
  }
  probe_waiting_[flow] = 1;
  RateEvent probe{RateEvent::Kind::probe, flow, now_ps_ / 1000};
  probe.probe_sent_ns = probe_sent_ps_[flow] / 1000;
  deliver(probe);
}

template <class Shape>
void SimModel<Shape>::answer_probe(uint32_t flow) noexcept {
  if (program() == nullptr || flow >= flows_.size() || probe_waiting_[flow] == 0) return;
  probe_waiting_[flow] = 0;
  probe_answered_ps_[flow] = now_ps_;
  // The answer takes the ACK's way back: one propagation delay, no queueing.
  wakeups_.set(flow * kWakeKinds + kWakeProbeBack, now_ps_ + propagation_ps_);
}

template <class Shape>
void SimModel<Shape>::set_wakeup(int64_t delay_ns) noexcept {
  if (program() == nullptr) return;
  if (delay_ns < 0) {
    wakeups_.erase(program_wakeup_key_);
    return;
  }
  const int64_t delay_ps = delay_ns >= INT64_MAX / 4000 ? INT64_MAX / 4 : delay_ns * 1000;
  wakeups_.set(program_wakeup_key_, now_ps_ + delay_ps);
}

template <class Shape>
uint64_t SimModel<Shape>::tx_wire_bytes(uint32_t host) const noexcept {
  if constexpr (kFabric) {
    if (host < hosts_.size()) return hosts_[host].tx_wire_bytes;
  }
  (void)host;
  return 0;
}

template <class Shape>
void SimModel<Shape>::set_timer(uint32_t flow, int64_t delay_ns) noexcept {
  if (program() == nullptr || flow >= flows_.size()) return;
  const uint32_t key = flow * kWakeKinds + kWakeTimer;
  if (delay_ns < 0) {
    wakeups_.erase(key);
    return;
  }
  const int64_t delay_ps = delay_ns >= INT64_MAX / 4000 ? INT64_MAX / 4 : delay_ns * 1000;
  wakeups_.set(key, now_ps_ + delay_ps);
}

// ---- Lossy mode ------------------------------------------------------------------------------

template <class Shape>
void SimModel<Shape>::go_back(uint32_t flow, uint32_t psn) noexcept {
  FlowQueue& fq = flows_[flow];
  if (psn >= fq.psn_end) return;  // nothing sent from there on
  // The message holding `psn`: not delivered, so not completed, so at or after head.
  uint32_t m = fq.head;
  for (; m != fq.tail; ++m) {
    const SqEntry& sq = entry(flow, m);
    if (psn < sq.first_psn + wire_.packets_for_message(sq.message.bytes)) break;
  }
  if (m == fq.tail) return;  // cannot happen: the PSN was sent
  const SqEntry& sq = entry(flow, m);
  const bool was_idle = fq.next_tx == fq.tail;
  fq.next_tx = m;
  fq.next_packet = psn - sq.first_psn;
  fq.packets = wire_.packets_for_message(sq.message.bytes);
  fq.next_psn = psn;
  ++fq.epoch;
  if (was_idle) admit(flow);
}

template <class Shape>
void SimModel<Shape>::retransmit_timeout(uint32_t flow) noexcept {
  // Model choice: the sender learns what the receiver lacks without the ACK's delay (the
  // timeout is far longer than a round trip).
  const uint32_t expected = switch_.expected_psn(flow);
  if (expected >= flows_[flow].psn_end) return;  // everything sent arrived
  ++stats_.retransmit_timeouts;
  go_back(flow, expected);
}

template class SimModel<SingleLink>;
template class SimModel<Fabric>;

}  // namespace qb::drv::sim
