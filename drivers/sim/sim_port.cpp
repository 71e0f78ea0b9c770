#include "sim_port.hpp"

#include <algorithm>
#include <cmath>

#include "sim_driver.hpp"

namespace qb::drv::sim {
namespace {

constexpr uint32_t kSqMask = kSimSendQueueDepth - 1;
static_assert((kSimSendQueueDepth & kSqMask) == 0, "the send queue depth must be a power of two");
static_assert(kSimSendQueueDepth <= 65536, "RxEvent::slot is 16 bits");

__extension__ using Uint128 = unsigned __int128;

}  // namespace

void SimPort::configure(const Topology& topology, const policy::QosPlan& plan) {
  configured_ = true;
  general_ = plan.nic_qos.kind != policy::PortQos::Kind::none || plan.hosts > 1 || plan.switched ||
             std::any_of(plan.flows.begin(), plan.flows.end(),
                         [](const policy::FlowPlan& flow) { return flow.dropped; });
  if (general_) {
    configure_general(topology, plan);
    start();
    running_ = false;
    return;
  }
  scheds_.clear();
  lanes_.clear();
  hosts_.clear();
  wire_ = topology.wire;
  rate_bps_ = std::max<int64_t>(1, static_cast<int64_t>(topology.port_rate_bps + 0.5));
  propagation_ps_ = topology.propagation_delay_ns * 1000;

  const auto flow_count = static_cast<uint32_t>(plan.flows.size());
  std::vector<uint32_t> queue_leaf(flow_count);
  flows_.assign(flow_count, FlowQueue{});
  for (uint32_t f = 0; f < flow_count; ++f) {
    queue_leaf[f] = plan.flows[f].leaf;
    flows_[f].op = plan.flows[f].op;
  }
  send_queues_.assign(static_cast<size_t>(flow_count) * kSimSendQueueDepth, SqEntry{});

  const uint32_t largest = largest_packet_wire_bytes(wire_);
  policy::TreeScheduler::Config config;
  config.ticks_per_second = static_cast<double>(kPsPerSecond);
  config.quantum_bytes = largest;
  scheduler_.emplace(plan.tree, queue_leaf, config);

  // Ring sizes: entries still in flight are spaced at least one smallest packet apart on the
  // link, plus what wait_until() lets become due before it hands back (kDueHighWater).
  const uint32_t smallest = std::max(1u, wire_.packet_wire_bytes(0, false, policy::RdmaOp::send));
  const auto min_ps =
      std::max<uint64_t>(1, smallest * 8ULL * kPsPerSecond / static_cast<uint64_t>(rate_bps_));
  const auto max_ps = largest * 8ULL * kPsPerSecond / static_cast<uint64_t>(rate_bps_) + 1;
  const auto prop = static_cast<uint64_t>(std::max<int64_t>(0, propagation_ps_));
  const uint64_t slack = kDueHighWater + 64;
  const uint64_t rx_entries = (prop + max_ps) / min_ps + slack;
  const uint64_t tx_entries = std::min<uint64_t>((2 * prop + max_ps) / min_ps + slack,
                                                 uint64_t{flow_count} * kSimSendQueueDepth + 1);
  rx_.reset(static_cast<size_t>(std::min<uint64_t>(rx_entries, kMaxRxRing)));
  tx_done_.reset(static_cast<size_t>(std::min<uint64_t>(tx_entries, kMaxRxRing)));
  start();
  running_ = false;
}

void SimPort::start() noexcept {
  for (auto& flow : flows_) {
    const policy::RdmaOp op = flow.op;
    flow = FlowQueue{};
    flow.op = op;
  }
  rx_.clear();
  tx_done_.clear();
  now_ps_ = 0;
  link_free_ps_ = 0;
  serialisation_carry_ = 0;
  stats_ = PortStats{};
  for (Host& host : hosts_) {
    host.held_mask = 0;
    host.credit_held_mask = 0;
    host.link_free_ps = 0;
    host.carry = 0;
    host.drop_cursor = 0;
    host.drop_free_ps = 0;
    host.drop_carry = 0;
    host.drop_done.clear();
  }
  for (Lane& lane : lanes_) {
    lane.rx.clear();
    lane.tx_done.clear();
  }
  for (FlowInfo& info : info_) info.paused = false;
  for (auto& queue : switch_queues_) queue.clear();
  for (auto& paused : paused_) paused.clear();
  std::fill(credit_used_.begin(), credit_used_.end(), 0);
  credits_.clear();
  switch_rr_.fill(0);
  switch_free_ps_ = 0;
  switch_carry_ = 0;
  switch_held_mask_ = 0;
  running_ = configured_;
}

SimPort::SqEntry& SimPort::entry(uint32_t flow, uint32_t index) noexcept {
  return send_queues_[static_cast<size_t>(flow) * kSimSendQueueDepth + (index & kSqMask)];
}

int64_t SimPort::serialise(uint32_t wire_bytes, uint64_t rate, uint64_t& carry) noexcept {
  // bits * 1e12 / rate with the remainder carried to the next packet: no drift.
  const Uint128 numerator = Uint128{wire_bytes} * 8U * kPsPerSecond + carry;
  uint64_t quotient = 0;
  if (numerator <= UINT64_MAX) {
    const auto n = static_cast<uint64_t>(numerator);
    quotient = n / rate;
    carry = n % rate;
  } else {
    quotient = static_cast<uint64_t>(numerator / rate);
    carry = static_cast<uint64_t>(numerator % rate);
  }
  return static_cast<int64_t>(quotient);
}

int64_t SimPort::serialisation_ps(uint32_t wire_bytes) noexcept {
  return serialise(wire_bytes, static_cast<uint64_t>(rate_bps_), serialisation_carry_);
}

uint32_t SimPort::tx_burst(std::span<const Message> messages) noexcept {
  if (!running_) return 0;
  uint32_t accepted = 0;
  for (const Message& message : messages) {
    if (message.flow >= flows_.size()) break;
    FlowQueue& flow = flows_[message.flow];
    const uint32_t depth = flow.tail - flow.head;
    if (depth >= kSimSendQueueDepth) break;
    entry(message.flow, flow.tail) = SqEntry{message, 0};
    const bool was_idle = flow.next_tx == flow.tail;
    ++flow.tail;
    stats_.max_send_queue_depth = std::max(stats_.max_send_queue_depth, depth + 1);
    if (was_idle) {
      if (!general_) {
        scheduler_->on_backlogged(message.flow, now_ps_);
      } else {
        const FlowInfo& info = info_[message.flow];
        // Dropped flows wait for the discard engine; paused ones for switch credit.
        if (!info.dropped && !info.paused) scheds_[info.sched].on_backlogged(info.local, now_ps_);
      }
    }
    ++accepted;
  }
  stats_.posted_messages += accepted;
  if (accepted < messages.size()) ++stats_.rejected_posts;
  return accepted;
}

bool SimPort::try_transmit() noexcept {
  if (link_free_ps_ > now_ps_ || !scheduler_->any_backlogged()) return true;
  if (rx_.full() || tx_done_.full()) {
    ++stats_.ring_stalls;
    return false;
  }
  const uint32_t q = scheduler_->pick(now_ps_);
  if (q == policy::TreeScheduler::kNone) return true;

  FlowQueue& flow = flows_[q];
  SqEntry& sq = entry(q, flow.next_tx);
  const uint32_t index = flow.next_packet;
  if (index == 0) {
    sq.sent_ps = now_ps_;
    flow.packets = wire_.packets_for_message(sq.message.bytes);
  }
  const uint32_t payload = wire_.packet_payload_bytes(sq.message.bytes, index);
  const uint32_t wire_bytes = wire_.packet_wire_bytes(payload, index == 0, flow.op);
  const int64_t end_ps = now_ps_ + serialisation_ps(wire_bytes);
  const bool last = index + 1 >= flow.packets;

  rx_.push(RxEvent{end_ps + propagation_ps_, q, static_cast<uint16_t>(flow.next_tx & kSqMask), last,
                   payload, wire_bytes});
  if (last) {
    // The ACK leaves the receiver when the last packet has arrived and takes one more
    // propagation delay back. Model choice: ACK serialisation (and any reverse-link
    // contention) is not modelled.
    tx_done_.push(TxDoneEvent{end_ps + 2 * propagation_ps_, q});
    ++flow.next_tx;
    flow.next_packet = 0;
    ++stats_.messages;
  } else {
    ++flow.next_packet;
  }
  scheduler_->on_sent(q, wire_bytes, flow.next_tx != flow.tail, now_ps_);

  stats_.busy_ps += static_cast<uint64_t>(end_ps - now_ps_);
  link_free_ps_ = end_ps;
  ++stats_.packets;
  stats_.wire_bytes += wire_bytes;
  stats_.payload_bytes += payload;
  return true;
}

bool SimPort::rx_due_at_least(size_t count) const noexcept {
  return rx_.size() >= count && rx_.at(count - 1).time_ps <= now_ps_;
}

void SimPort::wait_until(int64_t deadline_ns) noexcept {
  if (!running_) return;
  const int64_t deadline_ps =
      deadline_ns >= INT64_MAX / 1000 ? INT64_MAX : std::max<int64_t>(deadline_ns, 0) * 1000;
  if (general_) {
    wait_until_general(deadline_ps);
  } else {
    wait_until_plain(deadline_ps);
  }
}

void SimPort::wait_until_plain(int64_t deadline_ps) noexcept {
  while (true) {
    ++stats_.steps;
    if (!try_transmit()) return;  // a completion ring is full: the caller must poll
    if (!tx_done_.empty() && tx_done_.front().time_ps <= now_ps_) return;
    if (rx_due_at_least(kDueHighWater)) return;
    if (now_ps_ >= deadline_ps) return;
    int64_t next_ps = deadline_ps;
    if (link_free_ps_ > now_ps_) {
      next_ps = std::min(next_ps, link_free_ps_);
    } else if (scheduler_->any_backlogged()) {
      next_ps = std::min(next_ps, scheduler_->next_eligible());
    }
    if (!tx_done_.empty()) next_ps = std::min(next_ps, tx_done_.front().time_ps);
    now_ps_ = std::max(next_ps, now_ps_ + 1);
  }
}

uint32_t SimPort::poll(std::span<Completion> out) noexcept {
  const uint32_t count = general_ ? poll_general(out) : poll_plain(out);
  stats_.completions += count;
  return count;
}

uint32_t SimPort::poll_plain(std::span<Completion> out) noexcept {
  uint32_t count = 0;
  while (count < out.size()) {
    const bool rx_due = !rx_.empty() && rx_.front().time_ps <= now_ps_;
    const bool tx_due = !tx_done_.empty() && tx_done_.front().time_ps <= now_ps_;
    if (!rx_due && !tx_due) break;
    Completion& c = out[count++];
    // Ties go to the packet: a message's last rx never follows its own tx_done.
    if (rx_due && (!tx_due || rx_.front().time_ps <= tx_done_.front().time_ps)) {
      fill_rx(c, rx_.front());
      rx_.pop();
    } else {
      const TxDoneEvent& done = tx_done_.front();
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
      tx_done_.pop();
    }
  }
  return count;
}

}  // namespace qb::drv::sim
