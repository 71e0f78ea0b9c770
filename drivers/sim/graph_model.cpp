// The graph model of a multi-switch fabric; see graph_model.hpp.
#include "graph_model.hpp"

#include <algorithm>
#include <cmath>

#include "red_marking.hpp"
#include "sim_driver.hpp"
#include "sim_events.hpp"

namespace qb::drv::sim {
namespace {

constexpr uint32_t kSqMask = kSimSendQueueDepth - 1;
// The smallest credit buffer: the one-switch model's floor (sim_switch.cpp), so a short cable
// still holds a few packets.
constexpr int64_t kMinBufferBytes = 32 * 1024;

uint64_t rate_of(double rate_bps) {
  return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(rate_bps)));
}

}  // namespace

void GraphModel::configure(const Topology& topology, const policy::QosPlan& plan) {
  graph_ = plan.graph.get();
  const policy::FabricPlan& g = *graph_;
  wire_ = topology.wire;
  largest_packet_bytes_ = largest_packet_wire_bytes(wire_);
  window_start_ps_ = std::max<int64_t>(topology.window_start_ns, 0) * 1000;
  window_end_ps_ =
      topology.window_end_ns >= INT64_MAX / 1000 ? INT64_MAX : topology.window_end_ns * 1000;
  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  const uint32_t channels = g.channel_count();

  classes_ = 1;
  for (const auto& hops : g.flow_class) {
    for (const uint8_t c : hops) classes_ = std::max<uint32_t>(classes_, c + 1U);
  }
  configure_channels();
  configure_fifos();
  configure_flows(plan);
  configure_schedulers(plan);
  channel_stats_.assign(channels, ChannelStats{});
  for (ChannelStats& s : channel_stats_) s.paused_ps.assign(classes_, 0);
  flow_drops_.assign(flow_count, 0);
  lossy_ = plan.congestion.lossy;
  lossy_buffer_bytes_ = plan.congestion.buffer_bytes;
  retransmit_timeout_ps_ = plan.congestion.retransmit_timeout_ns * 1000;
  receiver_.reset(lossy_ ? flow_count : 0);
  first_psn_.assign(lossy_ ? static_cast<size_t>(flow_count) * kSimSendQueueDepth : 0, 0);
  configure_series(plan);
  ecn_ = plan.congestion.ecn;
  any_ecn_ = plan.congestion.any_ecn();
  cnp_interval_ps_ = plan.congestion.cnp_interval_ns * 1000;
  seed_ = marking_seed(plan.congestion.seed, topology.repetition);
  line_rate_bps_ = topology.port_rate_bps;
  host_tx_wire_bytes_.assign(hosts_.size(), 0);
  host_of_flow_.resize(flow_count);
  for (uint32_t f = 0; f < flow_count; ++f) host_of_flow_[f] = flows_[f].host;
  probe_sent_ps_.assign(flow_count, 0);
  probe_answered_ps_.assign(flow_count, 0);
  limiter_.configure(flow_count, largest_packet_bytes_);
  pool_.clear();
  free_ = kNil;
  running_ = false;
}


// Per channel: its rate, delay, arbiter, credit buffer (into a switch) and input index.
void GraphModel::configure_channels() {
  const policy::FabricPlan& g = *graph_;
  const uint32_t channels = g.channel_count();
  egress_.assign(channels, Egress{});
  arbiters_.clear();
  arbiters_.reserve(channels);
  buffer_cap_.assign(channels, 0);
  in_index_.assign(channels, 0);
  node_inputs_.assign(g.node_names.size(), 0);
  for (uint32_t ch = 0; ch < channels; ++ch) {
    const policy::FabricChannel& channel = g.channels[ch];
    Egress& e = egress_[ch];
    e.rate_bps = rate_of(channel.rate_bps);
    e.delay_ps = channel.delay_ns * 1000;
    e.into_switch = !g.to_host(ch);
    arbiters_.emplace_back(g.channel_qos[ch], channel.rate_bps);
    in_index_[ch] = node_inputs_[channel.to_node]++;
    if (e.into_switch) {
      // Room for the credit loop (a largest packet's serialisation, the way there and the
      // credit's way back) and two largest packets, as the one-switch model sizes its buffers.
      const double loop_s =
          (2.0 * static_cast<double>(e.delay_ps) +
           static_cast<double>(bytes_ps(largest_packet_bytes_, e.rate_bps))) /
          static_cast<double>(kPsPerSecond);
      const auto loop_bytes = static_cast<int64_t>(channel.rate_bps / 8.0 * loop_s);
      buffer_cap_[ch] = g.buffer_bytes > 0 ? std::max<int64_t>(g.buffer_bytes, largest_packet_bytes_)
                        : std::max<int64_t>(kMinBufferBytes, loop_bytes + 2 * largest_packet_bytes_);
    }
  }
  class_state_.assign(static_cast<size_t>(channels) * classes_, ClassState{});

}

void GraphModel::configure_fifos() {
  const policy::FabricPlan& g = *graph_;
  const uint32_t channels = g.channel_count();
  const auto flow_count = static_cast<uint32_t>(g.flow_path.size());
  // FIFOs: per switch egress, class and ingress channel; or per flow and hop.
  fifo_base_.assign(channels, 0);
  flow_fifo_base_.assign(flow_count, 0);
  uint32_t fifos = 0;
  if (g.per_flow_fairness) {
    for (uint32_t f = 0; f < flow_count; ++f) {
      flow_fifo_base_[f] = fifos;
      fifos += static_cast<uint32_t>(g.flow_path[f].size());
    }
  } else {
    for (uint32_t ch = 0; ch < channels; ++ch) {
      if (g.from_host(ch)) continue;
      fifo_base_[ch] = fifos;
      fifos += classes_ * node_inputs_[g.channels[ch].from_node];
    }
  }
  fifos_.assign(fifos, Fifo{});

}

// Hosts and their uplinks; every flow on its host's scheduler of its NIC class.
void GraphModel::configure_flows(const policy::QosPlan& plan) {
  const policy::FabricPlan& g = *graph_;
  const uint32_t channels = g.channel_count();
  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  hosts_.assign(g.host_count(), Host{});
  host_of_channel_.assign(channels, 0);
  for (uint32_t ch = 0; ch < channels; ++ch) {
    if (!g.from_host(ch)) continue;
    const auto host = static_cast<uint32_t>(
        std::find(g.host_node.begin(), g.host_node.end(), g.channels[ch].from_node) -
        g.host_node.begin());
    if (host < hosts_.size()) {
      hosts_[host].uplink = ch;
      host_of_channel_[ch] = host;
    }
  }
  flows_.assign(flow_count, FlowState{});
  dropped_.assign(flow_count, 0);
  send_queues_.assign(static_cast<size_t>(flow_count) * kSimSendQueueDepth, SqEntry{});
  sched_flows_.clear();
  for (Host& host : hosts_) host.sched_of_class.assign(classes_, -1);
  for (uint32_t f = 0; f < flow_count; ++f) {
    FlowState& flow = flows_[f];
    flow.host = plan.flows[f].host;
    dropped_[f] = plan.flows[f].dropped ? 1 : 0;
    for (const uint32_t ch : g.flow_path[f]) flow.ack_delay_ps += g.channels[ch].delay_ns * 1000;
    if (dropped_[f] != 0) continue;
    Host& host = hosts_[flow.host];
    const uint8_t c = g.flow_class[f][0];
    if (host.sched_of_class[c] < 0) {
      host.sched_of_class[c] = static_cast<int32_t>(sched_flows_.size());
      sched_flows_.emplace_back();
      egress_[host.uplink].class_mask |= 1U << c;
    }
    flow.sched = static_cast<uint32_t>(host.sched_of_class[c]);
    flow.local = static_cast<uint32_t>(sched_flows_[flow.sched].size());
    sched_flows_[flow.sched].push_back(f);
  }
}

void GraphModel::configure_schedulers(const policy::QosPlan& plan) {
  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  ops_.resize(flow_count);
  for (uint32_t f = 0; f < flow_count; ++f) ops_[f] = plan.flows[f].op;
  policy::TreeScheduler::Config config;
  config.ticks_per_second = static_cast<double>(kPsPerSecond);
  config.quantum_bytes = largest_packet_bytes_;
  scheds_.clear();
  scheds_.reserve(sched_flows_.size());
  for (const auto& members : sched_flows_) {
    std::vector<uint32_t> queue_leaf(members.size());
    for (size_t q = 0; q < members.size(); ++q) queue_leaf[q] = plan.flows[members[q]].leaf;
    scheds_.emplace_back(plan.tree, queue_leaf, config);
  }
}

// The series of the switch egress classes the expectation loads to their rate, the ones most
// flows cross first (a fabric may have thousands of egresses: its bottlenecks are what a queue
// series shows), when the plan has bins and marks, runs a program, drops or gates on the queue.
void GraphModel::configure_series(const policy::QosPlan& plan) {
  const policy::FabricPlan& g = *graph_;
  series_.clear();
  series_of_.assign(static_cast<size_t>(g.channel_count()) * classes_, kNil);
  const policy::CongestionPlan& cc = plan.congestion;
  if (cc.series_bins == 0 || !cc.reports_switch_queue() ||
      g.channel_expected_bps.size() != g.channel_count()) {
    depth_series_.configure(0, 0, 0, 0);
    return;
  }
  // Per channel: the flows crossing it and the classes they take through it.
  std::vector<uint32_t> crossing(g.channel_count(), 0);
  std::vector<uint32_t> class_mask(g.channel_count(), 0);
  for (size_t f = 0; f < g.flow_path.size(); ++f) {
    for (size_t hop = 0; hop < g.flow_path[f].size(); ++hop) {
      ++crossing[g.flow_path[f][hop]];
      class_mask[g.flow_path[f][hop]] |= 1U << g.flow_class[f][hop];
    }
  }
  // Every loaded egress is at its rate: the most contended (flows crossing) first, then in order.
  std::vector<uint32_t> loaded;
  for (uint32_t ch = 0; ch < g.channel_count(); ++ch) {
    if (g.from_host(ch)) continue;
    if (g.channel_expected_bps[ch] >= g.channels[ch].rate_bps * (1.0 - 1e-9)) loaded.push_back(ch);
  }
  std::stable_sort(loaded.begin(), loaded.end(),
                   [&crossing](uint32_t a, uint32_t b) { return crossing[a] > crossing[b]; });
  for (const uint32_t ch : loaded) {
    for (uint32_t m = class_mask[ch]; m != 0 && series_.size() < kMaxSeries; m &= m - 1) {
      const auto c = static_cast<uint32_t>(__builtin_ctz(m));
      series_of_[static_cast<size_t>(ch) * classes_ + c] = static_cast<uint32_t>(series_.size());
      series_.push_back(GraphSeries{ch, c});
    }
    if (series_.size() >= kMaxSeries) break;
  }
  depth_series_.configure(static_cast<uint32_t>(series_.size()), cc.series_start_ns * 1000,
                          cc.series_bin_ns * 1000, cc.series_bins);
}

void GraphModel::start() noexcept {
  now_ps_ = 0;
  order_ = 0;
  events_ = {};
  done_.clear();
  done_read_ = 0;
  tx_done_pending_ = 0;
  stats_ = GraphStats{};
  for (Host& host : hosts_) {
    host.discard_free_ps = 0;
    host.discard_carry = 0;
  }
  // xorshift64* must not start at zero (as the one-switch model's switch).
  random_state_ = seed_ * 0x9E3779B97F4A7C15ULL | 1;
  std::fill(host_tx_wire_bytes_.begin(), host_tx_wire_bytes_.end(), 0);
  wakeup_generation_ = 0;
  limiter_.start();
  receiver_.start();
  depth_series_.start();
  for (FlowState& flow : flows_) {
    flow.next_psn = 0;
    flow.psn_end = 0;
    flow.epoch = 0;
    flow.timeout_ps = INT64_MAX;
    flow.timer_pending = false;
    flow.last_cnp_ps = INT64_MIN;
    flow.release_ps = 0;
    flow.timer_generation = 0;
    flow.probe = kProbeNone;
    flow.held_for_rate = false;
    flow.started = false;
  }
  running_ = true;
  if (program_ != nullptr) {
    program_events_ = program_->event_mask();
    RateStart start;
    start.flows = static_cast<uint32_t>(flows_.size());
    start.hosts = static_cast<uint32_t>(hosts_.size());
    start.host_of_flow = host_of_flow_;
    start.line_rate_bps = static_cast<int64_t>(line_rate_bps_ + 0.5);
    program_->on_start(start, *this);
  }
}

GraphModel::SqEntry& GraphModel::entry(uint32_t flow, uint32_t index) noexcept {
  return send_queues_[static_cast<size_t>(flow) * kSimSendQueueDepth + (index & kSqMask)];
}

uint32_t& GraphModel::first_psn(uint32_t flow, uint32_t index) noexcept {
  return first_psn_[static_cast<size_t>(flow) * kSimSendQueueDepth + (index & kSqMask)];
}

uint32_t GraphModel::tx_burst(std::span<const Message> messages) noexcept {
  if (!running_) return 0;
  uint32_t accepted = 0;
  for (const Message& message : messages) {
    if (message.flow >= flows_.size()) break;
    FlowState& flow = flows_[message.flow];
    const uint32_t depth = flow.tail - flow.head;
    if (depth >= kSimSendQueueDepth) break;
    SqEntry& slot = entry(message.flow, flow.tail);
    slot.message = message;
    slot.sent_ps = 0;
    const bool was_idle = flow.next_tx == flow.tail;
    ++flow.tail;
    stats_.max_send_queue_depth = std::max(stats_.max_send_queue_depth, depth + 1);
    ++accepted;
    if (dropped_[message.flow] != 0) {
      discard(message.flow);
    } else if (was_idle) {
      admit(message.flow);
    }
    if (program_ != nullptr && !flow.started) {
      flow.started = true;
      deliver(RateEvent{RateEvent::Kind::start, message.flow, now_ps_ / 1000});
    }
  }
  stats_.posted_messages += accepted;
  if (accepted < messages.size()) ++stats_.rejected_posts;
  return accepted;
}

// Model choice (as the one-switch model's VL15): a dropped flow's messages are discarded at
// the NIC, one after another at its port rate (no link time taken from anyone: its own discard
// engine), and complete without an ACK when discarded.
void GraphModel::discard(uint32_t flow) noexcept {
  FlowState& fs = flows_[flow];
  Host& host = hosts_[fs.host];
  const Egress& link = egress_[host.uplink];
  while (fs.next_tx != fs.tail) {
    SqEntry& sq = entry(flow, fs.next_tx);
    const int64_t start_ps = std::max(now_ps_, host.discard_free_ps);
    sq.sent_ps = start_ps;
    const uint32_t packets = wire_.packets_for_message(sq.message.bytes);
    int64_t end_ps = start_ps;
    for (uint32_t p = 0; p < packets; ++p) {
      const uint32_t payload =
          packets <= 1 ? sq.message.bytes : wire_.packet_payload_bytes(sq.message.bytes, p);
      end_ps += serialise(wire_.packet_wire_bytes(payload, p == 0, ops_[flow], p + 1 == packets),
                          link.rate_bps, host.discard_carry);
    }
    host.discard_free_ps = std::max(end_ps, start_ps + 1);
    if (start_ps >= window_start_ps_ && start_ps < window_end_ps_) flow_drops_[flow] += packets;
    ++stats_.dropped_messages;
    ++fs.next_tx;
    schedule(host.discard_free_ps, EventKind::ack, flow);
  }
}

void GraphModel::schedule(int64_t time_ps, EventKind kind, uint32_t a, uint32_t b,
                          uint32_t bytes) noexcept {
  events_.push(Event{time_ps, order_++, kind, a, b, bytes});
}

void GraphModel::wake_at(uint32_t channel, int64_t time_ps) noexcept {
  if (time_ps == INT64_MAX) return;
  time_ps = std::max(time_ps, now_ps_ + 1);
  Egress& e = egress_[channel];
  if (time_ps >= e.wake_ps && e.wake_ps > now_ps_) return;
  e.wake_ps = time_ps;
  schedule(time_ps, EventKind::wake, channel);
}

int64_t GraphModel::in_window(int64_t from_ps, int64_t to_ps) const noexcept {
  const int64_t lo = std::max(from_ps, window_start_ps_);
  const int64_t hi = std::min(to_ps, window_end_ps_);
  return hi > lo ? hi - lo : 0;
}

void GraphModel::try_send(uint32_t channel) noexcept {
  if (egress_[channel].busy) return;
  if (graph_->from_host(channel)) {
    nic_send(host_of_uplink(channel));
  } else {
    switch_send(channel);
  }
}

bool GraphModel::has_credit(uint32_t channel, uint32_t c) noexcept {
  const Egress& e = egress_[channel];
  if (!e.into_switch || lossy_) return true;
  ClassState& s = class_state(channel, c);
  if (buffer_cap_[channel] - s.credit_used >= static_cast<int64_t>(largest_packet_bytes_)) {
    if (s.paused_since_ps >= 0) {
      channel_stats_[channel].paused_ps[c] += in_window(s.paused_since_ps, now_ps_);
      s.paused_since_ps = -1;
    }
    return true;
  }
  if (s.paused_since_ps < 0) s.paused_since_ps = now_ps_;
  return false;
}

void GraphModel::nic_send(uint32_t h) noexcept {
  const Host& host = hosts_[h];
  const uint32_t channel = host.uplink;
  Egress& e = egress_[channel];
  uint32_t ready = 0;
  std::array<uint32_t, policy::kMaxArbClasses> picked_queue{};
  int64_t eligible_ps = INT64_MAX;
  for (uint32_t m = e.class_mask; m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    policy::TreeScheduler& sched = scheds_[static_cast<uint32_t>(host.sched_of_class[c])];
    if (!sched.any_backlogged() || !has_credit(channel, c)) continue;
    const uint32_t q = sched.pick(now_ps_);
    if (q == policy::TreeScheduler::kNone) {
      eligible_ps = std::min(eligible_ps, sched.next_eligible());
      continue;
    }
    picked_queue[c] = q;
    ready |= 1U << c;
  }
  if (ready == 0) {
    wake_at(channel, eligible_ps);
    return;
  }
  const int picked = arbiters_[channel].pick(ready, now_ps_);
  if (picked == policy::PortArbiter::kNone) {
    wake_at(channel, arbiters_[channel].next_eligible_ps(ready));
    return;
  }
  const auto c = static_cast<uint32_t>(picked);
  const auto s = static_cast<uint32_t>(host.sched_of_class[c]);
  const uint32_t flow = sched_flows_[s][picked_queue[c]];
  const uint32_t packet = new_packet();
  Packet& p = pool_[packet];
  p.flow = flow;
  p.hop = 0;
  p.ecn = false;
  const bool resend = flows_[flow].next_psn < flows_[flow].psn_end;
  take_packet(flow, p);
  const FlowState& fs = flows_[flow];
  if (lossy_) {
    if (resend) {
      ++stats_.retransmitted_packets;
      stats_.retransmitted_wire_bytes += p.wire_bytes;
    }
    restart_timer(flow);
  }
  bool backlogged = fs.next_tx != fs.tail;
  if (program_ != nullptr) {
    limiter_.charge(flow, p.wire_bytes, now_ps_);
    if (backlogged && limiter_.ready_ps(flow) > now_ps_) {
      hold_for_rate(flow);
      backlogged = false;  // out of its tree until its limiter lets the next packet go
    }
  }
  scheds_[s].on_sent(picked_queue[c], p.wire_bytes, backlogged, now_ps_);
  ++stats_.packets;
  stats_.wire_bytes += p.wire_bytes;
  stats_.payload_bytes += p.payload_bytes;
  host_tx_wire_bytes_[h] += p.wire_bytes;
  const uint32_t wire_bytes = p.wire_bytes;
  transmit(channel, c, packet);
  if (program_ != nullptr && (program_events_ & rate_event_bit(RateEvent::Kind::sent)) != 0) {
    deliver(RateEvent{RateEvent::Kind::sent, flow, now_ps_ / 1000, wire_bytes});
  }
}

void GraphModel::take_packet(uint32_t flow, Packet& packet) noexcept {
  FlowState& fs = flows_[flow];
  SqEntry& sq = entry(flow, fs.next_tx);
  const uint32_t bytes = sq.message.bytes;
  packet.psn = fs.next_psn++;
  packet.epoch = fs.epoch;
  const bool first_time = packet.psn >= fs.psn_end;  // else a retransmission (lossy)
  if (first_time) fs.psn_end = packet.psn + 1;
  if (fs.next_packet == 0) {
    if (first_time) {
      sq.sent_ps = now_ps_;
      if (lossy_) first_psn(flow, fs.next_tx) = packet.psn;
    }
    fs.packets = wire_.packets_for_message(bytes);
  }
  const uint32_t index = fs.next_packet;
  const bool last = index + 1 >= fs.packets;
  packet.payload_bytes = fs.packets <= 1 ? bytes : wire_.packet_payload_bytes(bytes, index);
  packet.wire_bytes = wire_.packet_wire_bytes(packet.payload_bytes, index == 0, ops_[flow], last);
  packet.slot = static_cast<uint16_t>(fs.next_tx & kSqMask);
  packet.last = last;
  if (last) {
    ++fs.next_tx;
    fs.next_packet = 0;
    if (first_time) ++stats_.messages;
  } else {
    ++fs.next_packet;
  }
}

void GraphModel::switch_send(uint32_t channel) noexcept {
  Egress& e = egress_[channel];
  uint32_t ready = 0;
  for (uint32_t m = e.class_mask; m != 0; m &= m - 1) {
    const auto c = static_cast<uint32_t>(__builtin_ctz(m));
    if (has_credit(channel, c)) ready |= 1U << c;
  }
  if (ready == 0) return;  // a credit's return tries again
  const int picked = arbiters_[channel].pick(ready, now_ps_);
  if (picked == policy::PortArbiter::kNone) {
    wake_at(channel, arbiters_[channel].next_eligible_ps(ready));
    return;
  }
  const auto c = static_cast<uint32_t>(picked);
  const uint32_t packet = dequeue(channel, c);
  const Packet& p = pool_[packet];
  if (!lossy_) {
    // It leaves the switch's ingress buffer: the credit goes back up the channel it came by.
    const uint32_t in_channel = graph_->flow_path[p.flow][p.hop - 1U];
    const uint8_t in_class = graph_->flow_class[p.flow][p.hop - 1U];
    schedule(now_ps_ + egress_[in_channel].delay_ps, EventKind::credit, in_channel, in_class,
             p.wire_bytes);
  }
  transmit(channel, c, packet);
}

void GraphModel::transmit(uint32_t channel, uint32_t c, uint32_t packet) noexcept {
  Egress& e = egress_[channel];
  const Packet& p = pool_[packet];
  const int64_t end_ps = now_ps_ + e.serialiser.next(p.wire_bytes, e.rate_bps, e.carry);
  e.busy = true;
  e.free_ps = end_ps;
  schedule(end_ps, EventKind::channel_free, channel);
  schedule(end_ps + e.delay_ps, EventKind::arrive, packet);
  if (e.into_switch && !lossy_) class_state(channel, c).credit_used += p.wire_bytes;
  arbiters_[channel].sent(c, p.wire_bytes, now_ps_);
  ChannelStats& s = channel_stats_[channel];
  s.busy_ps += in_window(now_ps_, end_ps);
  if (now_ps_ >= window_start_ps_ && now_ps_ < window_end_ps_) {
    s.wire_bytes += p.wire_bytes;
    ++s.packets;
  }
}

void GraphModel::arrive(uint32_t packet) noexcept {
  Packet& p = pool_[packet];
  const std::vector<uint32_t>& path = graph_->flow_path[p.flow];
  const uint32_t channel = path[p.hop];
  if (graph_->to_host(channel)) {
    receive(packet);
    return;
  }
  ++p.hop;
  const uint32_t next = path[p.hop];
  const uint8_t c = graph_->flow_class[p.flow][p.hop];
  if (lossy_ && tail_drops(next, c, packet)) return;
  enqueue(next, c, fifo_of(next, c, channel, packet), packet);
  if (any_ecn_ && !p.ecn && marks_ecn(c, class_state(next, c).queued_bytes)) {
    p.ecn = true;
    ++stats_.ecn_marks;
    ++channel_stats_[next].ecn_marks;
  }
  try_send(next);
}

void GraphModel::receive(uint32_t packet) noexcept {
  Packet& p = pool_[packet];
  if (lossy_) {
    const GoBackNReceiver::Verdict verdict = receiver_.on_arrival(p.flow, p.psn, p.epoch);
    if (verdict != GoBackNReceiver::Verdict::deliver) {
      ++stats_.out_of_sequence_packets;
      if (verdict == GoBackNReceiver::Verdict::discard_and_nack) {
        ++stats_.nacks;
        // The NACK takes the ACK's way back (not serialised, as the ACK).
        schedule(now_ps_ + flows_[p.flow].ack_delay_ps, EventKind::nack, p.flow,
                 receiver_.expected_psn(p.flow));
      }
      if (p.ecn) answer_mark(p.flow);  // the NIC answers a mark whatever the transport does
      free_packet(packet);
      return;
    }
  }
  const SqEntry& sq = send_queues_[static_cast<size_t>(p.flow) * kSimSendQueueDepth + p.slot];
  Completion& done = done_.emplace_back();
  done.kind = Completion::Kind::rx_packet;
  done.last_of_message = p.last;
  done.messages = 1;
  done.flow = p.flow;
  done.payload_bytes = p.payload_bytes;
  done.wire_bytes = p.wire_bytes;
  done.sequence = sq.message.sequence;
  done.scheduled_ns = sq.message.scheduled_ns;
  done.sent_ns = sq.sent_ps / 1000;
  done.time_ns = now_ps_ / 1000;
  if (p.last) schedule(now_ps_ + flows_[p.flow].ack_delay_ps, EventKind::ack, p.flow);
  if (p.ecn) answer_mark(p.flow);
  free_packet(packet);
}

// Tail drop: a packet that does not fit its egress class's buffer never joins it (counted in
// the flow's drops when it arrives inside the measured window, as the one-switch switch).
bool GraphModel::tail_drops(uint32_t channel, uint32_t c, uint32_t packet) noexcept {
  const Packet& p = pool_[packet];
  if (class_state(channel, c).queued_bytes + p.wire_bytes <= lossy_buffer_bytes_) return false;
  ++stats_.switch_drops;
  ++channel_stats_[channel].drops;
  if (now_ps_ >= window_start_ps_ && now_ps_ < window_end_ps_) ++flow_drops_[p.flow];
  free_packet(packet);
  return true;
}

bool GraphModel::marks_ecn(uint32_t c, int64_t queued_bytes) noexcept {
  return red_marks(ecn_[c], queued_bytes, random_state_);
}

void GraphModel::answer_mark(uint32_t flow) noexcept {
  FlowState& fs = flows_[flow];
  if (fs.last_cnp_ps != INT64_MIN && now_ps_ - fs.last_cnp_ps < cnp_interval_ps_) return;
  fs.last_cnp_ps = now_ps_;
  ++stats_.cnps;
  if (program_ != nullptr) schedule(now_ps_ + fs.ack_delay_ps, EventKind::cnp, flow);
}

uint32_t GraphModel::fifo_of(uint32_t channel, uint32_t c, uint32_t in_channel,
                             uint32_t packet) const noexcept {
  if (graph_->per_flow_fairness) {
    const Packet& p = pool_[packet];
    return flow_fifo_base_[p.flow] + p.hop;
  }
  return fifo_base_[channel] + c * node_inputs_[graph_->channels[channel].from_node] +
         in_index_[in_channel];
}

void GraphModel::enqueue(uint32_t channel, uint32_t c, uint32_t fifo, uint32_t packet) noexcept {
  Fifo& q = fifos_[fifo];
  Packet& p = pool_[packet];
  p.next = kNil;
  ClassState& s = class_state(channel, c);
  Egress& e = egress_[channel];
  if (q.head == kNil) {
    q.head = q.tail = packet;
    q.next_active = kNil;
    if (s.ring_tail == kNil) {
      s.ring_head = s.ring_tail = fifo;
    } else {
      fifos_[s.ring_tail].next_active = fifo;
      s.ring_tail = fifo;
    }
    e.class_mask |= 1U << c;
  } else {
    pool_[q.tail].next = packet;
    q.tail = packet;
  }
  s.queued_bytes += p.wire_bytes;
  e.queued_bytes += p.wire_bytes;
  ChannelStats& stats = channel_stats_[channel];
  stats.queue_max_bytes = std::max(stats.queue_max_bytes, e.queued_bytes);
  stats.class_queue_max_bytes = std::max(stats.class_queue_max_bytes, s.queued_bytes);
  stats.depth.record(e.queued_bytes);
  depth_changed(channel, c);
}

void GraphModel::depth_changed(uint32_t channel, uint32_t c) noexcept {
  if (!depth_series_.enabled()) return;
  const uint32_t series = series_of_[static_cast<size_t>(channel) * classes_ + c];
  if (series != kNil) depth_series_.change(series, now_ps_, class_state(channel, c).queued_bytes);
}

// Round robin, one packet per turn, over the class's non-empty FIFOs.
uint32_t GraphModel::dequeue(uint32_t channel, uint32_t c) noexcept {
  ClassState& s = class_state(channel, c);
  Egress& e = egress_[channel];
  const uint32_t fifo = s.ring_head;
  Fifo& q = fifos_[fifo];
  const uint32_t packet = q.head;
  q.head = pool_[packet].next;
  if (q.head == kNil) q.tail = kNil;
  s.ring_head = q.next_active;
  if (s.ring_head == kNil) s.ring_tail = kNil;
  if (q.head != kNil) {  // to the back of the ring
    q.next_active = kNil;
    if (s.ring_tail == kNil) {
      s.ring_head = s.ring_tail = fifo;
    } else {
      fifos_[s.ring_tail].next_active = fifo;
      s.ring_tail = fifo;
    }
  }
  if (s.ring_head == kNil) e.class_mask &= ~(1U << c);
  s.queued_bytes -= pool_[packet].wire_bytes;
  e.queued_bytes -= pool_[packet].wire_bytes;
  depth_changed(channel, c);
  return packet;
}

uint32_t GraphModel::new_packet() noexcept {
  if (free_ != kNil) {
    const uint32_t packet = free_;
    free_ = pool_[packet].next;
    return packet;
  }
  pool_.emplace_back();
  return static_cast<uint32_t>(pool_.size() - 1);
}

void GraphModel::handle(const Event& event) noexcept {
  switch (event.kind) {
    case EventKind::channel_free:
      egress_[event.a].busy = false;
      try_send(event.a);
      break;
    case EventKind::arrive:
      arrive(event.a);
      break;
    case EventKind::credit:
      class_state(event.a, event.b).credit_used -= event.bytes;
      try_send(event.a);
      break;
    case EventKind::ack: {
      FlowState& flow = flows_[event.a];
      const SqEntry& sq = entry(event.a, flow.head);
      Completion& done = done_.emplace_back();
      done.kind = Completion::Kind::tx_done;
      done.last_of_message = true;
      done.messages = 1;
      done.flow = event.a;
      done.payload_bytes = sq.message.bytes;
      done.wire_bytes = 0;
      done.sequence = sq.message.sequence;
      done.scheduled_ns = sq.message.scheduled_ns;
      done.sent_ns = sq.sent_ps / 1000;
      done.time_ns = now_ps_ / 1000;
      ++flow.head;
      ++tx_done_pending_;
      break;
    }
    case EventKind::wake:
      if (egress_[event.a].wake_ps == event.time_ps) egress_[event.a].wake_ps = INT64_MAX;
      try_send(event.a);
      break;
    case EventKind::kick:
      try_send(event.a);
      break;
    case EventKind::nack:
      go_back(event.a, event.b);
      if (program_ != nullptr) deliver(RateEvent{RateEvent::Kind::nack, event.a, now_ps_ / 1000});
      break;
    case EventKind::retransmit: {
      FlowState& fs = flows_[event.a];
      if (now_ps_ < fs.timeout_ps) {  // restarted since: wait for the new time
        schedule(fs.timeout_ps, EventKind::retransmit, event.a);
        break;
      }
      fs.timer_pending = false;
      retransmit_timeout(event.a);
      break;
    }
    default:
      handle_rate_event(event);
      break;
  }
}

void GraphModel::wait_until(int64_t deadline_ns) noexcept {
  if (!running_) return;
  const int64_t deadline_ps =
      deadline_ns >= INT64_MAX / 1000 ? INT64_MAX : std::max<int64_t>(deadline_ns, 0) * 1000;
  while (true) {
    if (tx_done_pending_ > 0 || done_.size() - done_read_ >= kDueHighWater) return;
    if (events_.empty() || events_.top().time_ps > deadline_ps) {
      if (deadline_ps != INT64_MAX) now_ps_ = std::max(now_ps_, deadline_ps);
      return;
    }
    const Event event = events_.top();
    events_.pop();
    now_ps_ = event.time_ps;
    ++stats_.events;
    handle(event);
  }
}

uint32_t GraphModel::poll(std::span<Completion> out) noexcept {
  uint32_t count = 0;
  while (count < out.size() && done_read_ < done_.size()) {
    const Completion& c = done_[done_read_++];
    out[count++] = c;
    if (c.kind != Completion::Kind::tx_done) continue;
    --tx_done_pending_;
    if (program_ != nullptr && dropped_[c.flow] == 0 &&
        (program_events_ & rate_event_bit(RateEvent::Kind::ack)) != 0) {
      RateEvent ack{RateEvent::Kind::ack, c.flow, c.time_ns, c.payload_bytes, c.sequence};
      ack.rtt_ns = c.time_ns - c.sent_ns;
      deliver(ack);
    }
  }
  if (done_read_ == done_.size()) {
    done_.clear();
    done_read_ = 0;
  }
  stats_.completions += count;
  return count;
}

// ---- Rate control (as SimModel's; rate_control.hpp) -----------------------------------------
// A program's actions never send at once: what they free is kicked by an event at the same
// instant, so the program is not called again from inside its own handler.

void GraphModel::deliver(const RateEvent& event) noexcept {
  if ((program_events_ & rate_event_bit(event.kind)) != 0) program_->on_event(event, *this);
}

void GraphModel::admit(uint32_t flow) noexcept {
  FlowState& fs = flows_[flow];
  if (fs.held_for_rate) return;  // its release admits it
  if (program_ != nullptr && limiter_.ready_ps(flow) > now_ps_) {
    hold_for_rate(flow);
    return;
  }
  scheds_[fs.sched].on_backlogged(fs.local, now_ps_);
  try_send(hosts_[fs.host].uplink);
}

void GraphModel::hold_for_rate(uint32_t flow) noexcept {
  FlowState& fs = flows_[flow];
  fs.held_for_rate = true;
  fs.release_ps = limiter_.ready_ps(flow);
  schedule(fs.release_ps, EventKind::release, flow);
}

void GraphModel::handle_rate_event(const Event& event) noexcept {
  const uint32_t flow = event.a;
  switch (event.kind) {
    case EventKind::release: {
      FlowState& fs = flows_[flow];
      // A later set_rate() moved the release (or let the flow go): this event is stale.
      if (!fs.held_for_rate || fs.release_ps != event.time_ps) return;
      fs.held_for_rate = false;
      if (fs.next_tx != fs.tail) admit(flow);
      return;
    }
    case EventKind::timer:
      if (flows_[flow].timer_generation == event.b) {
        deliver(RateEvent{RateEvent::Kind::timer, flow, now_ps_ / 1000});
      }
      return;
    case EventKind::program_wakeup:
      if (wakeup_generation_ == event.b) {
        deliver(RateEvent{RateEvent::Kind::wakeup, 0, now_ps_ / 1000});
      }
      return;
    case EventKind::probe_arrive:
      if (flows_[flow].probe == kProbeOut) probe_arrived(flow);
      return;
    case EventKind::probe_back: {
      if (flows_[flow].probe != kProbeBack) return;
      flows_[flow].probe = kProbeNone;
      RateEvent rtt{RateEvent::Kind::rtt, flow, now_ps_ / 1000};
      rtt.rtt_ns = (now_ps_ - probe_sent_ps_[flow]) / 1000;
      rtt.probe_sent_ns = probe_sent_ps_[flow] / 1000;
      rtt.probe_answered_ns = probe_answered_ps_[flow] / 1000;
      deliver(rtt);
      return;
    }
    case EventKind::cnp:
      deliver(RateEvent{RateEvent::Kind::cnp, flow, now_ps_ / 1000});
      return;
    default:
      return;
  }
}

void GraphModel::set_rate(uint32_t flow, double rate_bps) noexcept {
  if (program_ == nullptr || flow >= flows_.size() || dropped_[flow] != 0) return;
  constexpr double kMaxRateBps = 1e18;  // beyond any link: as good as unlimited, no overflow
  const uint64_t rate = !(rate_bps > 0.0)         ? 0
                        : rate_bps >= kMaxRateBps ? static_cast<uint64_t>(kMaxRateBps)
                                                  : std::max<uint64_t>(1, std::llround(rate_bps));
  limiter_.set_rate(flow, rate, now_ps_);
  FlowState& fs = flows_[flow];
  if (!fs.held_for_rate) return;
  if (limiter_.ready_ps(flow) > now_ps_) {
    if (limiter_.ready_ps(flow) != fs.release_ps) hold_for_rate(flow);  // a new release time
    return;
  }
  fs.held_for_rate = false;
  if (fs.next_tx == fs.tail) return;
  scheds_[fs.sched].on_backlogged(fs.local, now_ps_);
  schedule(now_ps_, EventKind::kick, hosts_[fs.host].uplink);
}

// Model choice: a probe takes no link time; it reaches the receiver after the path's propagation
// plus, at every switch egress on its path, the bytes its class holds there at the egress rate,
// and its answer comes back over the path's propagation (the ACK's way).
void GraphModel::request_rtt_probe(uint32_t flow) noexcept {
  if (program_ == nullptr || flow >= flows_.size()) return;
  FlowState& fs = flows_[flow];
  if (fs.probe == kProbeOut || fs.probe == kProbeBack) return;  // one out per flow
  probe_sent_ps_[flow] = now_ps_;
  int64_t forward_ps = fs.ack_delay_ps;
  const std::vector<uint32_t>& path = graph_->flow_path[flow];
  for (size_t hop = 1; hop < path.size(); ++hop) {
    const uint32_t ch = path[hop];
    const int64_t queued = class_state(ch, graph_->flow_class[flow][hop]).queued_bytes;
    if (queued > 0) {
      forward_ps += bytes_ps(static_cast<uint64_t>(queued), egress_[ch].rate_bps);
    }
  }
  fs.probe = kProbeOut;
  schedule(now_ps_ + forward_ps, EventKind::probe_arrive, flow);
}

void GraphModel::probe_arrived(uint32_t flow) noexcept {
  flows_[flow].probe = kProbeWaiting;
  if ((program_events_ & rate_event_bit(RateEvent::Kind::probe)) == 0) {
    answer_probe(flow);  // the receiver's NIC answers
    return;
  }
  RateEvent probe{RateEvent::Kind::probe, flow, now_ps_ / 1000};
  probe.probe_sent_ns = probe_sent_ps_[flow] / 1000;
  deliver(probe);
}

void GraphModel::answer_probe(uint32_t flow) noexcept {
  if (program_ == nullptr || flow >= flows_.size() || flows_[flow].probe != kProbeWaiting) return;
  FlowState& fs = flows_[flow];
  fs.probe = kProbeBack;
  probe_answered_ps_[flow] = now_ps_;
  schedule(now_ps_ + fs.ack_delay_ps, EventKind::probe_back, flow);
}

void GraphModel::set_timer(uint32_t flow, int64_t delay_ns) noexcept {
  if (program_ == nullptr || flow >= flows_.size()) return;
  FlowState& fs = flows_[flow];
  ++fs.timer_generation;  // a pending timer event goes stale
  if (delay_ns < 0) return;
  const int64_t delay_ps = delay_ns >= INT64_MAX / 4000 ? INT64_MAX / 4 : delay_ns * 1000;
  schedule(now_ps_ + delay_ps, EventKind::timer, flow, fs.timer_generation);
}

void GraphModel::set_wakeup(int64_t delay_ns) noexcept {
  if (program_ == nullptr) return;
  ++wakeup_generation_;
  if (delay_ns < 0) return;
  const int64_t delay_ps = delay_ns >= INT64_MAX / 4000 ? INT64_MAX / 4 : delay_ns * 1000;
  schedule(now_ps_ + delay_ps, EventKind::program_wakeup, 0, wakeup_generation_);
}

uint64_t GraphModel::tx_wire_bytes(uint32_t host) const noexcept {
  return host < host_tx_wire_bytes_.size() ? host_tx_wire_bytes_[host] : 0;
}

// ---- Lossy mode (as SimModel's) -------------------------------------------------------------

void GraphModel::go_back(uint32_t flow, uint32_t psn) noexcept {
  FlowState& fs = flows_[flow];
  if (psn >= fs.psn_end) return;  // nothing sent from there on
  // The message holding `psn`: not delivered, so not completed, so at or after head.
  uint32_t m = fs.head;
  for (; m != fs.tail; ++m) {
    const SqEntry& sq = entry(flow, m);
    if (psn < first_psn(flow, m) + wire_.packets_for_message(sq.message.bytes)) break;
  }
  if (m == fs.tail) return;  // cannot happen: the PSN was sent
  const SqEntry& sq = entry(flow, m);
  const bool was_idle = fs.next_tx == fs.tail;
  fs.next_tx = m;
  fs.next_packet = psn - first_psn(flow, m);
  fs.packets = wire_.packets_for_message(sq.message.bytes);
  fs.next_psn = psn;
  ++fs.epoch;
  if (was_idle) admit(flow);
}

// The timer restarts with every packet; one event per flow sits in the heap and, when it comes
// early (restarted since), moves itself to the new time, so a busy flow adds no event per packet.
void GraphModel::restart_timer(uint32_t flow) noexcept {
  FlowState& fs = flows_[flow];
  fs.timeout_ps = now_ps_ + retransmit_timeout_ps_;
  if (fs.timer_pending) return;
  fs.timer_pending = true;
  schedule(fs.timeout_ps, EventKind::retransmit, flow);
}

void GraphModel::retransmit_timeout(uint32_t flow) noexcept {
  // Model choice (as the one-switch model): the sender learns what the receiver lacks without
  // the ACK's delay (the timeout is far longer than a round trip).
  const uint32_t expected = receiver_.expected_psn(flow);
  if (expected >= flows_[flow].psn_end) return;  // everything sent arrived
  ++stats_.retransmit_timeouts;
  go_back(flow, expected);
}

}  // namespace qb::drv::sim
