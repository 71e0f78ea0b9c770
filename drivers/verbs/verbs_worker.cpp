#include "verbs_worker.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "host_clock.hpp"
#include "software_tree.hpp"

namespace qb::drv::verbs {
namespace {

ibv_wr_opcode opcode_for(FlowOp op) noexcept {
  switch (op) {
    case FlowOp::send:
      return IBV_WR_SEND;
    case FlowOp::read:
      return IBV_WR_RDMA_READ;
    case FlowOp::write:
      break;
  }
  return IBV_WR_RDMA_WRITE_WITH_IMM;
}

policy::RdmaOp wire_op(FlowOp op) noexcept {
  switch (op) {
    case FlowOp::send:
      return policy::RdmaOp::send;
    case FlowOp::read:
      return policy::RdmaOp::read;
    case FlowOp::write:
      break;
  }
  return policy::RdmaOp::write;
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

VerbsWorker::VerbsWorker(WorkerSetup setup, std::vector<WorkerFlowSetup> flows, uint32_t flow_count)
    : setup_(std::move(setup)), slot_of_flow_(flow_count, UINT32_MAX) {
  const uint32_t slots = std::bit_ceil(std::max(2U, setup_.ring_slots));
  ring_mask_ = slots - 1;
  flows_.reserve(flows.size());
  for (auto& f : flows) {
    slot_of_flow_[f.flow] = static_cast<uint32_t>(flows_.size());
    Flow flow;
    flow.setup = f;
    flow.ring.resize(slots);
    if (f.pace_bps > 0.0 && f.requester != nullptr) {
      flow.pace_ns_per_byte = 8e9 / f.pace_bps;
      // Room for every message the engine may have outstanding (at most the send queue's).
      flow.held.resize(slots);
    }
    flows_.push_back(std::move(flow));
  }
  slot_count_ = static_cast<uint32_t>(flows_.size());
  // The fields of a send request that never change, set once: post_chain writes only the
  // message's own (zeroing the 128-byte ibv_send_wr per message was the largest cost of the
  // post path: a `rep stos` each).
  for (size_t i = 0; i < kMaxChain; ++i) {
    wrs_[i] = ibv_send_wr{};
    wrs_[i].sg_list = &sges_[i];
    wrs_[i].num_sge = 1;
    // Chained in order; post_chain ends a chain by a nullptr for the post and restores it.
    wrs_[i].next = i + 1 < kMaxChain ? &wrs_[i + 1] : nullptr;
    sges_[i] = ibv_sge{setup_.local_address, 0, setup_.local_key};  // only the length varies
    // Every request signaled. Selective signaling (one completion standing for the requests
    // before it, as RC completes in order; drain_send folds them) was measured and dropped:
    // with the engine's small windows (16 by default) a window then completes all at once
    // and the QP's pipeline empties between windows, which changes what is measured.
    wrs_[i].send_flags = IBV_SEND_SIGNALED;
  }
  recv_sge_ = ibv_sge{setup_.recv_address, setup_.buffer_bytes, setup_.recv_key};
  for (size_t i = 0; i < kMaxChain; ++i) {
    recv_wrs_[i] = ibv_recv_wr{};
    recv_wrs_[i].sg_list = &recv_sge_;
    recv_wrs_[i].num_sge = 1;
    recv_wrs_[i].next = i + 1 < kMaxChain ? &recv_wrs_[i + 1] : nullptr;
  }
  reposts_.assign(flows_.size(), 0);
  repost_batch_ = static_cast<uint32_t>(std::clamp<uint64_t>(slots / 4, 1, kMaxChain));
}

bool VerbsWorker::post_receives(Flow& flow, uint32_t slot, uint32_t count) noexcept {
  while (count != 0) {
    const uint32_t n = std::min<uint32_t>(count, kMaxChain);
    for (uint32_t i = 0; i < n; ++i) recv_wrs_[i].wr_id = slot;  // the rest: constructor
    recv_wrs_[n - 1].next = nullptr;
    ibv_recv_wr* bad = nullptr;
    const int rc = setup_.ops->post_recv(flow.setup.responder, recv_wrs_.data(), &bad);
    if (n < kMaxChain) recv_wrs_[n - 1].next = &recv_wrs_[n];
    if (rc != 0) return false;
    count -= n;
  }
  return true;
}

bool VerbsWorker::post_receives() noexcept {
  for (uint32_t s = 0; s < slot_count_; ++s) {
    Flow& flow = flows_[s];
    if (flow.setup.responder == nullptr || flow.setup.op == FlowOp::read) continue;
    if (!post_receives(flow, s, static_cast<uint32_t>(ring_mask_ + 1))) return false;
  }
  return true;
}

void VerbsWorker::start(int64_t host0_ns, int64_t device0_ns,
                        const mlx5dv_clock_info& clock_info) noexcept {
  host0_ns_ = host0_ns;
  device0_ns_ = device0_ns;
  setup_.clock_info = clock_info;
  clock_info_read_ns_ = host0_ns;
  clock_info_countdown_ = kClockInfoCheckEvery;
  converted_timestamp_ = 0;
  stopped_ = false;
}

void VerbsWorker::stop() noexcept {
  stopped_ = true;
  for (Flow& flow : flows_) flow.held_count = 0;
  held_flows_ = 0;
}

void VerbsWorker::refresh_clock_info() noexcept {
  clock_info_countdown_ = kClockInfoCheckEvery;
  const int64_t now = host_now_ns();
  if (now - clock_info_read_ns_ < setup_.clock_info_refresh_ns) return;
  clock_info_read_ns_ = now;
  mlx5dv_clock_info info{};
  if (setup_.ops->get_clock_info(setup_.context, &info) == 0) {
    setup_.clock_info = info;
    converted_timestamp_ = 0;  // converted with the previous info
    ++stats_.clock_info_reads;
  } else {
    ++stats_.clock_info_failures;
  }
}

int64_t VerbsWorker::host_now_ns() const noexcept {
  if (setup_.simulated_clock != nullptr) return setup_.simulated_clock->now_ns();
  return host_clock_.now_ns();
}

int64_t VerbsWorker::now_ns() noexcept {
  return host_now_ns() - host0_ns_;
}

void VerbsWorker::wait_until(int64_t deadline_ns) noexcept {
  // The slow path (nothing to send yet): the clock info's age is looked at every wait (after
  // it on simulated time, which may jump far ahead).
  if (setup_.simulated_clock != nullptr) {
    // Paced messages leave at their time: the wait ends then at the latest.
    if (held_flows_ != 0) {
      const int64_t now = now_ns();
      release_held(now);
      deadline_ns = std::min(deadline_ns, next_release_ns(now));
    }
    setup_.simulated_clock->wait_until(deadline_ns + host0_ns_);
    if (held_flows_ != 0) release_held(now_ns());
    if (setup_.nic_timestamps) refresh_clock_info();
    return;
  }
  if (setup_.nic_timestamps) refresh_clock_info();
  // Busy wait, as perftest does, returning as soon as a send completion is there (the
  // engine refills windows on them): the CQ is peeked into peeked_wcs_, which drain_send
  // hands out first. Receive completions only count, so they wait for the next poll; the
  // slice bounds that wait.
  // The clock is read only when the first look finds nothing (a saturated worker's waits
  // mostly find a completion at once).
  constexpr int64_t kSliceNs = 2'000;
  if (peeked_used_ < peeked_) return;
  int64_t until_ns = 0;
  bool first = true;
  while (true) {
    if (setup_.send_cq != nullptr) {
      const int polled = setup_.ops->poll_cq(setup_.send_cq, peeked_wcs_, setup_.nic_timestamps);
      if (polled < 0) ++stats_.poll_errors;
      if (polled > 0) {
        peeked_ = static_cast<size_t>(polled);
        peeked_used_ = 0;
        return;
      }
    }
    const int64_t now = now_ns();
    if (held_flows_ != 0) release_held(now);
    if (first) {
      until_ns = std::min(deadline_ns, now + kSliceNs);
      first = false;
    }
    if (now >= until_ns) return;
    cpu_relax();
  }
}

std::string_view VerbsWorker::name() const noexcept {
  return clock_name();
}

std::string_view VerbsWorker::clock_name() const noexcept {
  if (setup_.simulated_clock != nullptr) return "virtual";
  return setup_.nic_timestamps ? "nic" : host_clock_.name();
}

[[gnu::always_inline]] inline int64_t VerbsWorker::completion_ns(const WorkCompletion& wc,
                                                                 int64_t polled_ns) noexcept {
  if (!setup_.nic_timestamps || wc.timestamp == 0) return polled_ns;
  // Completions of one instant repeat their timestamp (a chain completing together): the last
  // conversion is reused (mlx5dv_ts_to_ns is two dozen instructions).
  if (wc.timestamp == converted_timestamp_) return converted_ns_;
  const auto device_ns = static_cast<int64_t>(mlx5dv_ts_to_ns(&setup_.clock_info, wc.timestamp));
  // Mapped at start(): device ns and host ns advance together (drift over a run is far below
  // the histogram's resolution).
  converted_timestamp_ = wc.timestamp;
  converted_ns_ = device_ns - device0_ns_;
  return converted_ns_;
}

uint32_t VerbsWorker::post_chain(Flow& flow, uint32_t slot, std::span<const Message> messages,
                                 int64_t sent_ns) noexcept {
  const size_t room = flow.ring.size() - (flow.tail - std::min(flow.tx_head, flow.rx_head));
  const size_t n = std::min({messages.size(), room, kMaxChain});
  if (n == 0) {
    ++stats_.ring_full;
    return 0;
  }
  const ibv_wr_opcode opcode = opcode_for(flow.setup.op);
  // A SEND's remote address and key are not read (ibv_post_send(3)): 0, as a fresh request.
  const uint64_t remote_address = opcode != IBV_WR_SEND ? flow.setup.remote_address : 0;
  const uint32_t remote_key = opcode != IBV_WR_SEND ? flow.setup.remote_key : 0;
  InFlight* const ring = flow.ring.data();
  for (size_t i = 0; i < n; ++i) {
    const Message& m = messages[i];
    sges_[i].length = std::min(m.bytes, setup_.buffer_bytes);  // address, key: constructor
    ibv_send_wr& wr = wrs_[i];  // sg_list, num_sge, send_flags, next: set once (constructor)
    wr.wr_id = encode_wr_id(slot, flow.tail + i);
    wr.opcode = opcode;
    wr.wr.rdma.remote_addr = remote_address;
    wr.wr.rdma.rkey = remote_key;
    wr.imm_data = htonl(static_cast<uint32_t>(m.sequence));
    ring[(flow.tail + i) & ring_mask_] = InFlight{m.scheduled_ns, sent_ns, m.sequence, m.bytes};
  }
  wrs_[n - 1].next = nullptr;
  ibv_send_wr* bad = nullptr;
  const int rc = setup_.ops->post_send(flow.setup.requester, wrs_.data(), &bad);
  if (n < kMaxChain) wrs_[n - 1].next = &wrs_[n];
  size_t accepted = n;
  if (rc != 0) {
    ++stats_.post_failures;
    accepted = bad == nullptr ? 0 : static_cast<size_t>(bad - wrs_.data());
  }
  flow.tail += accepted;
  if (flow.setup.op == FlowOp::read || flow.setup.responder == nullptr) flow.rx_head = flow.tx_head;
  stats_.posted += accepted;
  return static_cast<uint32_t>(accepted);
}

uint32_t VerbsWorker::post_all(Flow& flow, uint32_t slot, std::span<const Message> messages,
                               int64_t sent_ns) noexcept {
  size_t done = 0;
  while (done < messages.size()) {
    const uint32_t posted = post_chain(flow, slot, messages.subspan(done), sent_ns);
    done += posted;
    if (posted < std::min(messages.size() - done + posted, kMaxChain)) break;  // full
  }
  return static_cast<uint32_t>(done);
}

double VerbsWorker::pace_cost_ns(Flow& flow, const Message& message) noexcept {
  if (flow.pace_cost_of_bytes != message.bytes) [[unlikely]] {
    const uint64_t wire = setup_.wire.wire_bytes_for_message(message.bytes, wire_op(flow.setup.op));
    flow.pace_cost_ns = static_cast<double>(wire) * flow.pace_ns_per_byte;
    flow.pace_cost_of_bytes = message.bytes;
  }
  return flow.pace_cost_ns;
}

size_t VerbsWorker::paced_prefix(Flow& flow, std::span<const Message> messages, int64_t now_ns,
                                 double* base_ns) noexcept {
  const auto now = static_cast<double>(now_ns);
  *base_ns = pace_start_ns(flow.pace_next_ns, now,
                           messages.empty() ? 0.0 : pace_cost_ns(flow, messages[0]));
  double next = *base_ns;
  size_t n = 0;
  while (n < messages.size() && next <= now) next += pace_cost_ns(flow, messages[n++]);
  return n;
}

uint32_t VerbsWorker::paced_burst(Flow& flow, uint32_t slot, std::span<const Message> messages,
                                  int64_t now_ns) noexcept {
  uint32_t posted = 0;
  if (flow.held_count == 0) {
    double next = 0.0;
    const size_t allowed = paced_prefix(flow, messages, now_ns, &next);
    posted = post_all(flow, slot, messages.first(allowed), now_ns);
    for (uint32_t i = 0; i < posted; ++i) next += pace_cost_ns(flow, messages[i]);
    if (posted != 0) flow.pace_next_ns = next;
  }
  // The rest waits, in order, behind what is held already.
  const auto capacity = static_cast<uint32_t>(flow.held.size());
  const uint32_t before = flow.held_count;
  uint32_t taken = posted;
  for (; taken < messages.size() && flow.held_count < capacity; ++taken) {
    flow.held[(flow.held_head + flow.held_count++) & (capacity - 1)] = messages[taken];
  }
  if (before == 0 && flow.held_count != 0) ++held_flows_;
  return taken;
}

void VerbsWorker::release_held(int64_t now_ns) noexcept {
  for (uint32_t slot = 0; slot < slot_count_ && held_flows_ != 0; ++slot) {
    Flow& flow = flows_[slot];
    const auto capacity = static_cast<uint32_t>(flow.held.size());
    while (flow.held_count != 0) {
      // The held messages up to the ring's end: one span.
      const uint32_t contiguous = std::min(flow.held_count, capacity - flow.held_head);
      const std::span<const Message> waiting(flow.held.data() + flow.held_head, contiguous);
      double next = 0.0;
      const size_t allowed = paced_prefix(flow, waiting, now_ns, &next);
      const uint32_t posted = post_all(flow, slot, waiting.first(allowed), now_ns);
      if (posted == 0) break;
      for (uint32_t i = 0; i < posted; ++i) next += pace_cost_ns(flow, waiting[i]);
      flow.pace_next_ns = next;
      flow.held_head = (flow.held_head + posted) & (capacity - 1);
      flow.held_count -= posted;
      if (flow.held_count == 0) --held_flows_;
      if (posted < contiguous) break;  // not yet its time, or the send queue is full
    }
  }
}

int64_t VerbsWorker::next_release_ns(int64_t now_ns) const noexcept {
  double earliest = static_cast<double>(INT64_MAX);
  for (const Flow& flow : flows_) {
    if (flow.held_count != 0 && flow.pace_next_ns > static_cast<double>(now_ns)) {
      earliest = std::min(earliest, flow.pace_next_ns);
    }
  }
  return earliest >= static_cast<double>(INT64_MAX) ? INT64_MAX
                                                    : static_cast<int64_t>(std::ceil(earliest));
}

uint32_t VerbsWorker::tx_burst(std::span<const Message> messages) noexcept {
  if (stopped_ || messages.empty()) return 0;
  // One clock read for the burst's chains: each one's sent time is still read before its post.
  const int64_t sent_ns = now_ns();
  // Held messages first: a flow's messages leave in order.
  if (held_flows_ != 0) release_held(sent_ns);
  size_t done = 0;
  while (done < messages.size()) {
    // A run of messages of one flow goes as one chain of work requests.
    const uint32_t flow_index = messages[done].flow;
    size_t run = 1;
    while (done + run < messages.size() && messages[done + run].flow == flow_index) ++run;
    const uint32_t slot =
        flow_index < slot_of_flow_.size() ? slot_of_flow_[flow_index] : UINT32_MAX;
    if (slot == UINT32_MAX) break;  // not this worker's flow: the engine never does this
    if (flows_[slot].setup.requester == nullptr) {
      // A receiver: the sender is another host. Accepted and dropped without a completion,
      // so the flow's window fills once and the engine only waits and polls.
      done += run;
      continue;
    }
    if (flows_[slot].pace_ns_per_byte > 0.0) {
      const uint32_t taken = paced_burst(flows_[slot], slot, messages.subspan(done, run), sent_ns);
      done += taken;
      if (taken < run) return static_cast<uint32_t>(done);  // held ring full: retried
      continue;
    }
    // Chains of at most kMaxChain work requests; a short one means the flow is full.
    size_t left = run;
    while (left != 0) {
      const uint32_t posted = post_chain(flows_[slot], slot, messages.subspan(done, left), sent_ns);
      done += posted;
      left -= posted;
      if (posted < std::min(left + posted, kMaxChain)) {
        return static_cast<uint32_t>(done);  // full: the engine retries the rest
      }
    }
  }
  return static_cast<uint32_t>(done);
}

[[gnu::always_inline]] inline Completion VerbsWorker::received(Flow& flow, const InFlight& message,
                                                               int64_t time_ns) const noexcept {
  if (flow.wire_of_bytes != message.bytes) [[unlikely]] {
    flow.wire_bytes = static_cast<uint32_t>(
        setup_.wire.wire_bytes_for_message(message.bytes, wire_op(flow.setup.op)));
    flow.wire_of_bytes = message.bytes;
  }
  return Completion{.kind = Completion::Kind::rx_message,
                    .last_of_message = true,
                    .messages = 1,
                    .flow = flow.setup.flow,
                    .payload_bytes = message.bytes,
                    .wire_bytes = flow.wire_bytes,
                    .sequence = message.sequence,
                    .scheduled_ns = message.scheduled_ns,
                    .sent_ns = message.sent_ns,
                    .time_ns = time_ns};
}

uint32_t VerbsWorker::drain_send(std::span<Completion> out, int64_t polled_ns) noexcept {
  const size_t first = peeked_used_;
  size_t i = first;
  uint32_t n = 0;
  // The slot whose tx_done is out[n - 1] and may take the next completion (UINT32_MAX: none).
  uint32_t folding_slot = UINT32_MAX;
  for (; i < peeked_; ++i) {
    const WorkCompletion& wc = peeked_wcs_[i];
    const auto [slot, index] = decode_wr_id(wc.wr_id);
    // A READ completion gives two Completions (received, and done): the rest waits in
    // peeked_wcs_ for the next poll when `out` is full.
    if (out.size() - n < 2) [[unlikely]] {
      if (n == out.size()) break;
      if (slot < slot_count_ && flows_[slot].setup.op == FlowOp::read &&
          wc.status == IBV_WC_SUCCESS) {
        break;
      }
    }
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]]
      ++stats_.error_completions;
    if (slot >= slot_count_) continue;
    Flow& flow = flows_[slot];
    // Every request of the flow up to this one is done (ring positions count up from 0).
    if (index < flow.tx_head || index >= flow.tail) continue;  // not in flight: not ours
    const uint64_t covered = index + 1 - flow.tx_head;
    const InFlight& message = flow.ring[index & ring_mask_];
    const int64_t time_ns = completion_ns(wc, polled_ns);
    if (flow.setup.op == FlowOp::read) {
      if (wc.status == IBV_WC_SUCCESS) out[n++] = received(flow, message, time_ns);
      folding_slot = UINT32_MAX;  // a READ's tx_done follows its own received()
    }
    if (slot == folding_slot && out[n - 1].time_ns == time_ns &&
        out[n - 1].messages + covered <= UINT16_MAX) {
      // The flow's completions in a row at one time (a batch polled at once, without device
      // timestamps) are one tx_done of them all (Completion::messages): the engine refills
      // the same messages at the same time, with one turn of its loop instead of one each.
      Completion& done = out[n - 1];
      done.messages = static_cast<uint16_t>(done.messages + covered);
      done.payload_bytes = message.bytes;  // the last message's
      done.sequence = message.sequence;
      done.scheduled_ns = message.scheduled_ns;
      done.sent_ns = message.sent_ns;
    } else {
      out[n++] = Completion{.kind = Completion::Kind::tx_done,
                            .messages = static_cast<uint16_t>(covered),
                            .flow = flow.setup.flow,
                            .payload_bytes = message.bytes,
                            .sequence = message.sequence,
                            .scheduled_ns = message.scheduled_ns,
                            .sent_ns = message.sent_ns,
                            .time_ns = time_ns};
      if (flow.setup.op != FlowOp::read) folding_slot = slot;
    }
    flow.tx_head = index + 1;
    if (flow.setup.op == FlowOp::read || flow.setup.responder == nullptr) {
      flow.rx_head = flow.tx_head;
    }
  }
  stats_.send_completions += i - first;
  peeked_used_ = i;
  return n;
}

uint32_t VerbsWorker::drain_recv(std::span<Completion> out, size_t count,
                                 int64_t polled_ns) noexcept {
  stats_.recv_completions += count;
  uint32_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    const WorkCompletion& wc = wcs_[i];
    if (wc.wr_id >= slot_count_) continue;
    const auto slot = static_cast<uint32_t>(wc.wr_id);
    Flow& flow = flows_[slot];
    if (wc.status != IBV_WC_SUCCESS) [[unlikely]] {
      ++stats_.error_completions;  // flushed: the QP went to error, nothing more arrives
      continue;
    }
    if (flow.setup.requester == nullptr) {
      // Sent by another host: its times are not ours to know (counted, no latency).
      const InFlight remote{Completion::kUntimed, Completion::kUntimed, flow.rx_head, wc.byte_len};
      out[n++] = received(flow, remote, completion_ns(wc, polled_ns));
      ++flow.rx_head;
    } else if (flow.rx_head < flow.tail) [[likely]] {
      out[n++] = received(flow, flow.ring[flow.rx_head & ring_mask_], completion_ns(wc, polled_ns));
      ++flow.rx_head;
    }
    // The receive consumed, posted again with others as one chain.
    if (++reposts_[slot] == repost_batch_) {
      if (!post_receives(flow, slot, repost_batch_)) ++stats_.post_failures;
      reposts_[slot] = 0;
    }
  }
  return n;
}

uint32_t VerbsWorker::poll(std::span<Completion> out) noexcept {
  // A worker that never waits (saturated) looks at it every kClockInfoCheckEvery polls.
  if (setup_.nic_timestamps && --clock_info_countdown_ == 0) refresh_clock_info();
  // Paced messages whose time came while the engine was busy.
  if (held_flows_ != 0) release_held(now_ns());
  // Both CQs first, then one clock read for both: without device timestamps a completion is
  // timed when it was polled. Receives first; send completions as many as `out` has room for
  // after them (wait_until() may have peeked some already).
  size_t received_count = 0;
  if (setup_.recv_cq != nullptr && !out.empty()) {
    const int polled = setup_.ops->poll_cq(
        setup_.recv_cq, std::span(wcs_.data(), std::min(wcs_.size(), out.size())),
        setup_.nic_timestamps);
    if (polled < 0) ++stats_.poll_errors;
    if (polled > 0) received_count = static_cast<size_t>(polled);
  }
  const size_t room = out.size() - received_count;
  if (peeked_used_ == peeked_ && room != 0 && setup_.send_cq != nullptr) {
    const int polled =
        setup_.ops->poll_cq(setup_.send_cq, std::span(peeked_wcs_.data(), std::min(kPollBatch, room)),
                            setup_.nic_timestamps);
    if (polled < 0) ++stats_.poll_errors;
    peeked_ = polled > 0 ? static_cast<size_t>(polled) : 0;
    peeked_used_ = 0;
  }
  if (received_count == 0 && peeked_used_ == peeked_) return 0;
  const int64_t polled_ns = setup_.nic_timestamps ? 0 : now_ns();
  uint32_t n = drain_recv(out, received_count, polled_ns);
  n += drain_send(out.subspan(n), polled_ns);
  return n;
}

}  // namespace qb::drv::verbs
