#include "dpdk_worker.hpp"

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "eal.hpp"

namespace qb::drv::dpdk {
namespace {

uint8_t* frame_data(rte_mbuf* m) noexcept {
  return static_cast<uint8_t*>(m->buf_addr) + m->data_off;
}

// Lateness is carried in 32 bits of ns, saturated.
constexpr int64_t kMaxLatenessNs = std::numeric_limits<uint32_t>::max();

// Largest frames of link time the software shaper makes up after a late service (a Tx ring).
constexpr double kLinkCatchUpFrames = 256;

// Token bucket depth of capped elements in the software shaper.
constexpr double kShaperBucketDepthS = 1e-3;

// Most tx_done completions buffered between polls (memory bound for many flows).
constexpr size_t kMaxTxDoneBuffer = size_t{1} << 16;

}  // namespace

DpdkWorker::DpdkWorker(WorkerSetup setup) : setup_(std::move(setup)) {
  flow_count_ =
      static_cast<uint32_t>(std::max(setup_.templates.size(), setup_.roce_templates.size()));
  const uint32_t header = setup_.templates.empty() ? 0 : setup_.templates[0].min_length();
  min_length_ = header;
  max_length_ = static_cast<uint32_t>(setup_.wire.max_message_bytes()) - kFcsBytes;
  // Every mbuf holds a whole prefix when the largest frame does (MTU >= 68 always).
  prefix_fits_ = max_length_ >= kPrefixBytes;
  tsc_hz_ = static_cast<double>(rte_get_tsc_hz());
  ns_per_tick_ = 1e9 / tsc_hz_;
  ticks_per_ns_ = tsc_hz_ / 1e9;
  tx_done_.reset(std::min<size_t>(kMaxTxDoneBuffer,
                                  size_t{flow_count_} * std::max(1u, setup_.send_queue_depth)));
  rx_pending_.reset(kRxPending);
  tx_done_entry_.assign(flow_count_, 0);
  if (!setup_.roce_templates.empty()) {
    roce_ = true;
    tx_psn_.assign(flow_count_, 0);
    roce_backlog_.reset(kMaxRocePackets);
  }
  rx_flows_.assign(flow_count_, RxFlow{});
  if (setup_.shaper_plan != nullptr) {
    const policy::QosPlan& plan = *setup_.shaper_plan;
    std::vector<uint32_t> queue_leaf(flow_count_);
    for (uint32_t f = 0; f < flow_count_; ++f) queue_leaf[f] = plan.flows[f].leaf;
    policy::TreeScheduler::Config config;
    config.ticks_per_second = tsc_hz_;
    // A largest frame (rocev2: a full packet; larger messages carry their deficit over).
    config.quantum_bytes =
        roce_
            ? setup_.wire.packet_wire_bytes(setup_.wire.mtu_bytes, true, policy::RdmaOp::write)
            : setup_.wire.packet_wire_bytes(static_cast<uint32_t>(setup_.wire.max_message_bytes()),
                                            true, policy::RdmaOp::send);
    // A core is not a NIC: the loop services the shaper every few microseconds and is
    // sometimes preempted; a capped leaf whose bucket fills in between loses tokens (20 us
    // lost 5-8 % of a 4 Gbit/s cap). 1 ms rides over that; the burst it allows after an idle
    // spell is 0.1 % of the cap over a second.
    config.bucket_depth_s = kShaperBucketDepthS;
    shaper_ = std::make_unique<policy::TreeScheduler>(plan.tree, queue_leaf, config);
    // Ethernet: a frame's wire bytes are its bytes (FCS included) plus preamble and gap.
    eth_l1_bytes_ =
        setup_.wire.packet_wire_bytes(max_length_ + kFcsBytes, true, policy::RdmaOp::send) -
        (max_length_ + kFcsBytes);
    flow_capped_.assign(flow_count_, 0);
    unpolled_.assign(flow_count_, 0);
    for (uint32_t f = 0; f < flow_count_; ++f) {
      for (uint32_t e = queue_leaf[f]; e < plan.tree.elements.size();
           e = plan.tree.elements[e].parent) {
        if (plan.tree.elements[e].max_avg_bw_bps > 0.0) flow_capped_[f] = 1;
      }
    }
    send_queues_.resize(flow_count_);
    for (auto& queue : send_queues_) queue.reset(std::max(1u, setup_.send_queue_depth));
    if (setup_.port_rate_bps > 0.0) {
      ticks_per_wire_byte_ = tsc_hz_ * 8.0 / setup_.port_rate_bps;
      // Let a burst of frames through at once; beyond it the emulated link holds them back.
      link_slack_ = ticks_per_wire_byte_ * config.quantum_bytes * kBurst;
      // A NIC keeps sending from its Tx ring while the core is busy elsewhere: link time the
      // loop missed (up to a ring of largest frames) is made up, not lost. Without this a
      // loop that services the shaper every ~20 us lost 8-15 % of a 25 Gbit/s link.
      link_catch_up_ = ticks_per_wire_byte_ * config.quantum_bytes * kLinkCatchUpFrames;
    }
  }
}

DpdkWorker::~DpdkWorker() {
  stop();
}

void DpdkWorker::start() noexcept {
  tsc0_ = rte_rdtsc();
  if (setup_.job_clock_offset_ns) {
    job_clock_.emplace();
    job_clock_->start(ns_per_tick_, *setup_.job_clock_offset_ns);
  }
  visible_tx_done_ = 0;
  link_next_ = 0.0;
  link_busy_ = false;
  running_ = true;
}

void DpdkWorker::stop() noexcept {
  running_ = false;
  while (!roce_backlog_.empty()) {
    rte_pktmbuf_free(roce_backlog_.front());
    roce_backlog_.pop();
  }
  while (!rx_pending_.empty()) {
    rte_pktmbuf_free(rx_pending_.front().mbuf);
    rx_pending_.pop();
  }
}

int64_t DpdkWorker::ticks_to_ns(uint64_t tsc) const noexcept {
  return static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(tsc - tsc0_)) *
                              ns_per_tick_);
}

void DpdkWorker::bind_slow() noexcept {
  bind_worker_thread(setup_.index);
  bound_ = true;
}

int64_t DpdkWorker::now_ns() noexcept {
  bind_thread();
  return ticks_to_ns(rte_rdtsc());
}

uint32_t DpdkWorker::transmit(const Message* messages, uint32_t count) noexcept {
  count = std::min<uint32_t>({count, kBurst, static_cast<uint32_t>(tx_done_.free())});
  if (count == 0) return 0;
  // One TSC read per burst: the actual send time of every frame in it.
  const uint64_t tsc = rte_rdtsc();
  const int64_t sent_ns = ticks_to_ns(tsc);
  const auto stamp = static_cast<uint32_t>(job_clock_ ? job_clock_->ns_at(tsc) : tsc);
  const uint32_t sent = roce_ ? transmit_roce(messages, count, sent_ns, stamp)
                              : transmit_eth(messages, count, sent_ns, stamp);
  if (sent == 0) return 0;
  record_tx_done(messages, sent, sent_ns);
  return sent;
}

uint32_t DpdkWorker::transmit_eth(const Message* messages, uint32_t count, int64_t sent_ns,
                                  uint32_t stamp) noexcept {
  rte_mbuf* mbufs[kBurst];
  if (rte_pktmbuf_alloc_bulk(setup_.pool, mbufs, count) != 0) {
    ++stats_.mbuf_alloc_failures;
    return 0;
  }
  PacketTemplate* const templates = setup_.templates.data();
  uint64_t frame_bytes_built = 0;
  uint32_t built = 0;
  for (; built < count; ++built) {
    const Message& m = messages[built];
    if (m.flow >= flow_count_) [[unlikely]] {
      break;  // the caller's error: stop before it
    }
    const uint32_t length =
        std::clamp(m.bytes > kFcsBytes ? m.bytes - kFcsBytes : 0u, min_length_, max_length_);
    const auto lateness_ns =
        static_cast<uint32_t>(std::clamp<int64_t>(sent_ns - m.scheduled_ns, 0, kMaxLatenessNs));
    PacketTemplate& frame_template = templates[m.flow];
    uint8_t* frame = frame_data(mbufs[built]);
    if (prefix_fits_) [[likely]] {
      // Headers and flow id are prebuilt per flow for its last length (fixed-size flows
      // prepare once): a 60-byte copy and three stores per frame.
      if (frame_template.prepared_length() != length) [[unlikely]] {
        frame_template.prepare(length, static_cast<uint16_t>(m.flow));
      }
      frame_template.write_prepared(frame, static_cast<uint32_t>(m.sequence), stamp, lateness_ns);
    } else {
      frame_template.write(frame, length,
                           PayloadHeader{static_cast<uint16_t>(m.flow),
                                         static_cast<uint32_t>(m.sequence), stamp, lateness_ns});
    }
    mbufs[built]->data_len = static_cast<uint16_t>(length);
    mbufs[built]->pkt_len = length;
    frame_bytes_built += length + kFcsBytes;
  }
  if (built < count) {
    rte_pktmbuf_free_bulk(mbufs + built, count - built);
    count = built;
    if (count == 0) return 0;
  }
  if (setup_.tx_ts_offset >= 0) stamp_send_times(messages, mbufs, count);
  const uint16_t sent =
      rte_eth_tx_burst(setup_.tx_port, setup_.tx_queue, mbufs, static_cast<uint16_t>(count));
  uint64_t frame_bytes = frame_bytes_built;
  if (sent < count) {
    for (uint32_t i = sent; i < count; ++i) frame_bytes -= mbufs[i]->pkt_len + kFcsBytes;
    rte_pktmbuf_free_bulk(mbufs + sent, count - sent);
    ++stats_.tx_pmd_full;
  }
  stats_.tx_frame_bytes += frame_bytes;
  stats_.tx_packets += sent;
  return sent;
}

void DpdkWorker::record_tx_done(const Message* messages, uint32_t sent, int64_t sent_ns) noexcept {
  // One tx_done per flow of the burst: its entry is this burst's when it was pushed after
  // the burst began (nothing is polled in between). The engine posts a flow's messages in
  // runs, so they are counted per run in a register (a count in memory per frame is a
  // store-to-load chain); the last message's fields are copied once per entry below.
  const uint64_t burst_begin = tx_done_.tail_position();
  uint64_t* const entry_of_flow = tx_done_entry_.data();
  for (uint32_t i = 0; i < sent;) {
    const uint32_t flow = messages[i].flow;
    uint32_t run_end = i + 1;
    while (run_end < sent && messages[run_end].flow == flow) ++run_end;
    uint64_t& entry = entry_of_flow[flow];
    if (entry <= burst_begin) {
      entry = tx_done_.tail_position() + 1;
      tx_done_.push_slot() = TxDone{flow, 0, 0, 0, 0, 0, sent_ns};
    }
    TxDone& done = tx_done_.at_position(entry - 1);
    done.messages = static_cast<uint16_t>(done.messages + (run_end - i));
    if (!unpolled_.empty()) unpolled_[flow] += run_end - i;
    done.last_index = static_cast<uint16_t>(run_end - 1);
    i = run_end;
  }
  for (uint64_t p = burst_begin; p < tx_done_.tail_position(); ++p) {
    TxDone& done = tx_done_.at_position(p);
    const Message& last = messages[done.last_index];
    done.last_bytes = last.bytes;
    done.last_sequence = last.sequence;
    done.last_scheduled_ns = last.scheduled_ns;
  }
}

void DpdkWorker::stamp_send_times(const Message* messages, rte_mbuf* const* mbufs,
                                  uint32_t count) noexcept {
  for (uint32_t i = 0; i < count; ++i) {
    // Send-on-time: the NIC holds the frame until the device clock reaches this.
    const uint64_t scheduled_tsc =
        tsc0_ +
        static_cast<uint64_t>(static_cast<double>(std::max<int64_t>(messages[i].scheduled_ns, 0)) *
                              ticks_per_ns_);
    const uint64_t when = setup_.device_clock.to_device(scheduled_tsc);
    std::memcpy(reinterpret_cast<uint8_t*>(mbufs[i]) + setup_.tx_ts_offset, &when, sizeof when);
    mbufs[i]->ol_flags |= setup_.tx_ts_flag;
  }
}

uint32_t DpdkWorker::send_direct(std::span<const Message> messages) noexcept {
  uint32_t accepted = 0;
  while (accepted < messages.size()) {
    const auto count = static_cast<uint32_t>(std::min<size_t>(messages.size() - accepted, kBurst));
    const uint32_t sent = transmit(messages.data() + accepted, count);
    accepted += sent;
    if (sent < count) break;
  }
  return accepted;
}

uint32_t DpdkWorker::send_unshaped(std::span<const Message> messages) noexcept {
  // A work-conserving tree with nothing queued sends what arrives at once, in any order (the
  // frames of a burst leave at one instant): the weights only decide among backlogged queues,
  // so the per-frame pick and charge are skipped. Capped flows still go through their token
  // buckets, and the emulated link still counts every frame (charged per burst, after it; the
  // check before lets at most one burst past the slack), so a link that fills up starts a
  // backlog and the tree arbitrates again from there.
  const auto now = static_cast<double>(rte_rdtsc() - tsc0_);
  const uint32_t window_left =
      setup_.send_queue_depth > kBurst ? setup_.send_queue_depth - kBurst : 0;
  uint32_t accepted = 0;
  while (accepted < messages.size() && link_next_ <= now + link_slack_) {
    const Message* const chunk = messages.data() + accepted;
    const auto limit = static_cast<uint32_t>(std::min<size_t>(messages.size() - accepted, kBurst));
    uint32_t count = 0;
    // Stops at a capped flow, and at a flow near its window (the whole chunk could be its).
    while (count < limit && chunk[count].flow < flow_count_ &&
           flow_capped_[chunk[count].flow] == 0 && unpolled_[chunk[count].flow] <= window_left) {
      ++count;
    }
    if (count == 0) break;
    const uint64_t frame_bytes_before = stats_.tx_frame_bytes;
    const uint32_t sent = transmit(chunk, count);
    uint64_t wire_bytes = 0;
    if (roce_) {
      for (uint32_t i = 0; i < sent; ++i) wire_bytes += message_wire_bytes(chunk[i]);
    } else {
      wire_bytes = stats_.tx_frame_bytes - frame_bytes_before + uint64_t{sent} * eth_l1_bytes_;
    }
    link_next_ = std::max(link_next_, now) + static_cast<double>(wire_bytes) * ticks_per_wire_byte_;
    accepted += sent;
    stats_.shaper_bypassed += sent;
    if (sent < count) break;
  }
  return accepted;
}

uint32_t DpdkWorker::enqueue(std::span<const Message> messages) noexcept {
  const int64_t now = static_cast<int64_t>(rte_rdtsc() - tsc0_);
  uint32_t accepted = 0;
  for (const Message& m : messages) {
    if (m.flow >= flow_count_) break;
    RingBuffer<Message>& queue = send_queues_[m.flow];
    if (queue.size() + unpolled_[m.flow] >= setup_.send_queue_depth) {
      ++stats_.shaper_rejected;
      break;
    }
    const bool was_empty = queue.empty();
    queue.push(m);
    if (was_empty) shaper_->on_backlogged(m.flow, now);
    ++accepted;
  }
  return accepted;
}

void DpdkWorker::service(uint64_t tsc) noexcept {
  if (!shaper_ || !running_) return;
  if (held_count_ == 0 && !shaper_->any_backlogged()) {
    link_busy_ = false;  // what pick() would find: nothing to send
    return;
  }
  const auto now = static_cast<int64_t>(tsc - tsc0_);
  for (int round = 0; round < 4; ++round) {
    if (held_count_ == 0) {
      held_head_ = 0;
      // Pick a burst: DWRR order with caps, while the emulated link has room.
      while (held_count_ < kBurst && (ticks_per_wire_byte_ == 0.0 ||
                                      link_next_ <= static_cast<double>(now) + link_slack_)) {
        const uint32_t flow = shaper_->pick(now);
        if (flow == policy::TreeScheduler::kNone) {
          link_busy_ = false;  // nothing to send (or all capped): idle link time is not owed
          break;
        }
        RingBuffer<Message>& queue = send_queues_[flow];
        held_[held_count_++] = queue.front();
        queue.pop();
        const uint32_t wire = message_wire_bytes(held_[held_count_ - 1]);
        shaper_->on_sent(flow, wire, !queue.empty(), now);
        // Catch up only on link time missed while frames were waiting.
        const double free_at = static_cast<double>(now) - (link_busy_ ? link_catch_up_ : 0.0);
        link_next_ = std::max(link_next_, free_at) + wire * ticks_per_wire_byte_;
        link_busy_ = true;
      }
      if (held_count_ == 0) return;
    }
    const uint32_t sent = transmit(held_ + held_head_, held_count_);
    held_head_ += sent;
    held_count_ -= sent;
    if (held_count_ != 0) return;  // the PMD (or the tx_done buffer) is full: retry later
  }
}

void DpdkWorker::fetch_rx() noexcept {
  if (rx_pending_.free() < kBurst) return;
  rte_mbuf* mbufs[kBurst];
  const uint16_t n = rte_eth_rx_burst(setup_.rx_port, setup_.rx_queue, mbufs, kBurst);
  if (n == 0) return;
  const uint64_t tsc = rte_rdtsc();
  for (uint16_t i = 0; i < n; ++i) rx_pending_.push(RxEntry{mbufs[i], tsc});
}

uint32_t DpdkWorker::receive(std::span<Completion> out) noexcept {
  rte_mbuf* done[kBurst];
  uint32_t done_count = 0;
  uint32_t n = 0;
  // Foreign frames count against the batch too: a port that never runs dry of them (net_null,
  // a flooded NIC) must still hand control back to the engine's loop.
  uint32_t examined = 0;
  while (n < out.size() && examined < out.size()) {
    ++examined;
    if (rx_pending_.empty()) {
      fetch_rx();
      if (rx_pending_.empty()) break;
    }
    const RxEntry entry = rx_pending_.front();
    rx_pending_.pop();
    rte_mbuf* m = entry.mbuf;
    RxFrame frame;
    const bool ours = parse_rx(m, frame) && frame.header.flow < flow_count_;
    const uint32_t frame_bytes = m->pkt_len + kFcsBytes;
    if ((m->ol_flags & setup_.rx_ts_flag) != 0) ++stats_.rx_hw_timestamps;
    done[done_count++] = m;
    if (done_count == kBurst) {
      rte_pktmbuf_free_bulk(done, done_count);
      done_count = 0;
    }
    if (!ours) {
      ++stats_.rx_foreign;
      continue;
    }
    if (!setup_.rx_accept.empty() && setup_.rx_accept[frame.header.flow] == 0) {
      ++stats_.rx_stray;  // another rank's flow
      continue;
    }
    RxFlow& flow = rx_flows_[frame.header.flow];
    ++flow.packets;
    const uint64_t sequence = extend_sequence(frame.header.sequence, flow.expected);
    if (!frame.last_of_message) {
      // A message's earlier packets carry its sequence too: order is checked on the last.
    } else if (sequence >= flow.expected) {
      flow.gaps += sequence - flow.expected;
      stats_.rx_seq_gaps += sequence - flow.expected;
      flow.expected = sequence + 1;
    } else {
      ++flow.late;
      ++stats_.rx_late;
    }
    const int64_t arrived_ns = ticks_to_ns(entry.tsc);
    Completion& c = out[n++];
    c.kind = Completion::Kind::rx_packet;
    c.last_of_message = frame.last_of_message;
    c.messages = 1;
    c.flow = frame.header.flow;
    c.payload_bytes = frame.payload_bytes;
    c.wire_bytes = frame.wire_bytes;
    c.sequence = sequence;
    c.time_ns = arrived_ns;
    if (job_clock_) {
      // Both times in the receiver's job clock; their difference is the one-way latency. The
      // stamp is the sender's clock less its measured offset, so it can come after the
      // arrival (by the offset's error or drift): the nearest extension keeps such a stamp on
      // its side of the arrival (not 2^32 ns earlier), and such a frame is counted untimed
      // (no latency is known for it) and reported.
      const auto arrived_job_ns = static_cast<uint64_t>(job_clock_->ns_at(entry.tsc));
      const uint64_t sent_job_ns = extend_sequence(frame.header.tx_tsc, arrived_job_ns);
      const auto latency_ns = static_cast<int64_t>(arrived_job_ns - sent_job_ns);
      if (latency_ns < 0) {
        ++stats_.rx_stamped_after_arrival;
        c.sent_ns = Completion::kUntimed;
        c.scheduled_ns = Completion::kUntimed;
      } else {
        c.sent_ns = arrived_ns - latency_ns;
        c.scheduled_ns = c.sent_ns - frame.header.lateness_ns;
      }
    } else {
      c.sent_ns = ticks_to_ns(extend_tsc(frame.header.tx_tsc, entry.tsc));
      c.scheduled_ns = c.sent_ns - frame.header.lateness_ns;
    }
    ++stats_.rx_packets;
    stats_.rx_frame_bytes += frame_bytes;
  }
  if (done_count != 0) rte_pktmbuf_free_bulk(done, done_count);
  return n;
}

uint32_t DpdkWorker::tx_burst(std::span<const Message> messages) noexcept {
  if (!running_) return 0;
  bind_thread();
  if (!shaper_) return send_direct(messages);
  uint32_t accepted = 0;
  if (held_count_ == 0 && !shaper_->any_backlogged()) accepted = send_unshaped(messages);
  if (accepted < messages.size()) accepted += enqueue(messages.subspan(accepted));
  service(rte_rdtsc());
  return accepted;
}

uint32_t DpdkWorker::poll(std::span<Completion> out) noexcept {
  bind_thread();
  if (running_) service(rte_rdtsc());
  // Only completions that were there when the caller last found none: a caller that refills
  // from completions and polls again while batches come back full (the engine does) must
  // still see a short batch, and so the clock, when the PMD accepts everything at once.
  auto n = static_cast<uint32_t>(std::min(out.size(), visible_tx_done_));
  for (uint32_t i = 0; i < n; ++i) {
    const TxDone& done = tx_done_.at(i);
    Completion& c = out[i];
    c.kind = Completion::Kind::tx_done;
    c.last_of_message = true;
    c.messages = done.messages;
    c.flow = done.flow;
    c.payload_bytes = done.last_bytes;
    c.wire_bytes = 0;  // per-frame wire bytes are on the rx_packet completions
    c.sequence = done.last_sequence;
    c.scheduled_ns = done.last_scheduled_ns;
    c.sent_ns = done.sent_ns;
    c.time_ns = done.sent_ns;
    if (!unpolled_.empty()) unpolled_[done.flow] -= done.messages;
  }
  tx_done_.drop(n);
  visible_tx_done_ -= n;
  if (n == 0) visible_tx_done_ = tx_done_.size();
  if (setup_.receive && running_) n += receive(out.subspan(n));
  return n;
}

void DpdkWorker::wait_until(int64_t deadline_ns) noexcept {
  bind_thread();
  while (true) {
    const uint64_t tsc = rte_rdtsc();
    service(tsc);
    if (!tx_done_.empty()) {  // the engine must see it (a freed window slot)
      visible_tx_done_ = tx_done_.size();
      return;
    }
    if (setup_.receive && running_) {
      fetch_rx();
      if (rx_pending_.size() >= kRxHighWater) return;
    }
    if (ticks_to_ns(tsc) >= deadline_ns) return;
    rte_pause();
  }
}

}  // namespace qb::drv::dpdk
