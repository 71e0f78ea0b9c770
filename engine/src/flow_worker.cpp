#include "flow_worker.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <limits>

#include "live_tap.hpp"

namespace qb::engine {
namespace {

constexpr size_t kPollBatch = 64;

// Full batches drained before the loop looks at the clock and the stop flag again: a port that
// always has frames (net_null, a loopback refilled from its own completions, a flooded NIC)
// must not keep the loop here.
constexpr uint32_t kMaxDrainBatches = 16;

// Outer iterations between two reads of the wall clock (real-time drivers only).
constexpr uint32_t kWallCheckEvery = 64;

int64_t wall_now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool earlier(const DueHeap::Entry& a, const DueHeap::Entry& b) noexcept {
  return a < b;
}

}  // namespace

void DueHeap::push(Entry e) {
  heap_.push_back(e);
  size_t i = heap_.size() - 1;
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!earlier(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void DueHeap::pop() noexcept {
  const Entry last = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0, last);
}

DueHeap::Entry DueHeap::second() const noexcept {
  constexpr Entry kNone{std::numeric_limits<int64_t>::max(), std::numeric_limits<uint32_t>::max()};
  if (heap_.size() < 2) return kNone;
  if (heap_.size() < 3) return heap_[1];
  return std::min(heap_[1], heap_[2]);
}

void DueHeap::replace_top(Entry e) noexcept {
  sift_down(0, e);
}

void DueHeap::sift_down(size_t i, Entry e) noexcept {
  const size_t n = heap_.size();
  while (true) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && earlier(heap_[child + 1], heap_[child])) ++child;
    if (!earlier(heap_[child], e)) break;
    heap_[i] = heap_[child];
    i = child;
  }
  heap_[i] = e;
}

FlowWorker::FlowWorker(const suite::CompiledScenario& compiled, uint64_t seed, WorkerWindow window,
                       std::vector<uint32_t> owned)
    : window_(window),
      wire_(compiled.plan.wire),
      owned_(std::move(owned)),
      flow_group_(&compiled.flow_spec),
      groups_(compiled.scenario->flows.size()) {
  const suite::Scenario& scenario = *compiled.scenario;
  const size_t flow_count = compiled.plan.flows.size();
  flows_.reserve(flow_count);
  due_.reserve(flow_count);
  ready_.reserve(flow_count);
  late_starts_.reserve(flow_count);
  for (uint32_t f = 0; f < flow_count; ++f) {
    const suite::FlowSpec& spec = scenario.flows[compiled.flow_spec[f]];
    FlowState state{gen::ArrivalProcess(spec.arrival, compiled.mean_message_bytes[f]),
                    gen::SizeSampler(spec.size), Rng(derive_seed(seed, f))};
    state.saturating = spec.arrival.saturating();
    if (spec.size.kind == gen::SizeSpec::Kind::fixed) state.fixed_bytes = spec.size.fixed_bytes;
    state.window = state.saturating ? std::min(spec.arrival.outstanding, window.max_outstanding)
                                    : window.max_outstanding;
    state.start_offset_ns = compiled.plan.flows[f].start_ns;
    flows_.push_back(std::move(state));
  }
  if (owned_.empty() && !window.owned_exactly) {
    for (uint32_t f = 0; f < flow_count; ++f) owned_.push_back(f);
  }
}

// Inlined: it runs once per message, and a call costs as much as its body.
[[gnu::always_inline]] inline uint32_t FlowWorker::post(uint32_t flow, int64_t scheduled_ns,
                                                        int64_t now_ns) noexcept {
  FlowState& state = flows_[flow];
  // Fixed sizes draw no random numbers, so skipping the sampler changes nothing.
  const uint32_t bytes = state.fixed_bytes != 0 ? state.fixed_bytes : state.sizes.next(state.rng);
  scheduled_ring_[state.ring_offset + (state.next_sequence & state.ring_mask)] = scheduled_ns;
  burst_[burst_size_++] = drv::Message{flow, bytes, scheduled_ns, state.next_sequence++};
  ++state.outstanding;
  state.late_posts += now_ns > scheduled_ns ? 1 : 0;
  return bytes;
}

void FlowWorker::start_late_flows(int64_t now_ns) {
  while (!late_starts_.empty() && late_starts_.back().first <= now_ns) {
    ready_.push_back(late_starts_.back().second);  // queued since run(): never there twice
    late_starts_.pop_back();
  }
}

void FlowWorker::post_due(int64_t now_ns) {
  if (!late_starts_.empty()) start_late_flows(now_ns);
  // Saturating flows: fill their windows now; a flow the burst has no room for stays ready.
  if (!ready_.empty()) {
    size_t filled = 0;
    for (; filled < ready_.size(); ++filled) {
      FlowState& state = flows_[ready_[filled]];
      while (state.outstanding < state.window && burst_size_ < kBurstMessages) {
        post(ready_[filled], now_ns, now_ns);
      }
      if (state.outstanding < state.window) break;  // burst full
      state.queued = false;
    }
    ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(filled));
  }
  if (exact_order_) {
    // (Most turns of a saturating run have nothing due: no call.)
    if (!due_.empty() && due_.top().first <= now_ns) post_due_in_order(now_ns);
  } else {
    post_due_batched(now_ns);
  }
}

void FlowWorker::post_due_in_order(int64_t now_ns) noexcept {
  // Scheduled flows: every message whose time has come, while the window has room, in
  // (time, flow) order. The top flow posts a run of messages while they stay due and before
  // the next flow's time: one heap update per run.
  constexpr uint32_t kLastFlow = std::numeric_limits<uint32_t>::max();
  while (!due_.empty() && due_.top().first <= now_ns && burst_size_ < kBurstMessages) {
    const auto [scheduled_ns, flow] = due_.top();
    FlowState& state = flows_[flow];
    if (state.outstanding >= state.window) {
      due_.pop();
      state.queued = false;  // blocked: re-queued when a completion frees a slot
      continue;
    }
    const DueHeap::Entry limit = std::min(DueHeap::Entry{now_ns, kLastFlow}, due_.second());
    int64_t next_ns = scheduled_ns;
    do {
      const uint32_t bytes = post(flow, next_ns, now_ns);
      next_ns = state.arrivals.next_ns(next_ns, bytes, state.rng);
    } while (next_ns != gen::kNever && DueHeap::Entry{next_ns, flow} < limit &&
             state.outstanding < state.window && burst_size_ < kBurstMessages);
    state.next_ns = next_ns;
    if (next_ns != gen::kNever) {
      due_.replace_top({next_ns, flow});
    } else {
      due_.pop();
      state.queued = false;
    }
  }
}

uint32_t FlowWorker::post_run(uint32_t flow, int64_t scheduled_ns, int64_t now_ns,
                              uint32_t limit) noexcept {
  // The flow's schedule, sequence and the burst index live in locals for the run: stores into
  // burst_ could alias its members, which would force a reload per message.
  FlowState& state = flows_[flow];
  gen::ArrivalProcess arrivals = state.arrivals;
  int64_t next_ns = scheduled_ns;
  uint64_t sequence = state.next_sequence;
  uint64_t late = 0;
  drv::Message* const out = burst_.data() + burst_size_;
  int64_t* const ring = scheduled_ring_.data() + state.ring_offset;
  const uint64_t ring_mask = state.ring_mask;
  uint32_t n = 0;
  while (n < limit && next_ns <= now_ns) {
    // Fixed sizes draw no random numbers, so skipping the sampler changes nothing.
    const uint32_t bytes = state.fixed_bytes != 0 ? state.fixed_bytes : state.sizes.next(state.rng);
    ring[sequence & ring_mask] = next_ns;
    out[n++] = drv::Message{flow, bytes, next_ns, sequence++};
    late += now_ns > next_ns ? 1 : 0;
    next_ns = state.saturating ? now_ns : arrivals.next_ns(next_ns, bytes, state.rng);
  }
  if (!state.saturating) {
    state.arrivals = arrivals;
    state.next_ns = next_ns;
  }
  state.next_sequence = sequence;
  state.late_posts += late;
  state.outstanding += n;
  burst_size_ += n;
  return n;
}

// post_run() of a saturating flow, inlined into on_completion(): every message is scheduled at
// `now_ns` (so none is late) and the arrival process is not consulted, so this is post_run()
// without the copy of the arrival process and the per-message checks; the same messages.
[[gnu::always_inline]] inline void FlowWorker::post_refill(FlowState& state, uint32_t flow,
                                                           int64_t now_ns,
                                                           uint32_t count) noexcept {
  drv::Message* const out = burst_.data() + burst_size_;
  int64_t* const ring = scheduled_ring_.data() + state.ring_offset;
  const uint64_t ring_mask = state.ring_mask;
  uint64_t sequence = state.next_sequence;
  if (state.fixed_bytes != 0) {
    const uint32_t bytes = state.fixed_bytes;
    for (uint32_t n = 0; n < count; ++n) {
      ring[sequence & ring_mask] = now_ns;
      out[n] = drv::Message{flow, bytes, now_ns, sequence++};
    }
  } else {
    for (uint32_t n = 0; n < count; ++n) {
      ring[sequence & ring_mask] = now_ns;
      out[n] = drv::Message{flow, state.sizes.next(state.rng), now_ns, sequence++};
    }
  }
  state.next_sequence = sequence;
  state.outstanding += count;
  burst_size_ += count;
}

void FlowWorker::post_due_batched(int64_t now_ns) noexcept {
  // Pacing per burst: take every due flow off the heap once, give each a fair share of the
  // burst's room (posted as one run per flow) until each is ahead of now, blocked, or the
  // burst is full, and put them back. The frames of a burst leave at one instant, so their
  // order within it does not matter; the shares keep overloaded flows equal.
  std::array<uint32_t, kBurstMessages> active;
  size_t count = 0;
  while (count < active.size() && !due_.empty() && due_.top().first <= now_ns) {
    const uint32_t flow = due_.top().second;
    due_.pop();
    FlowState& state = flows_[flow];
    if (state.outstanding >= state.window) {
      state.queued = false;  // blocked: re-queued when a completion frees a slot
      continue;
    }
    active[count++] = flow;  // the heap entry's time is state.next_ns
  }
  size_t live = count;
  while (live > 0 && burst_size_ < kBurstMessages) {
    const auto share =
        std::max<uint32_t>(1, static_cast<uint32_t>((kBurstMessages - burst_size_) / live));
    for (size_t i = 0; i < live && burst_size_ < kBurstMessages;) {
      FlowState& state = flows_[active[i]];
      const uint32_t limit = std::min({share, state.window - state.outstanding,
                                       static_cast<uint32_t>(kBurstMessages - burst_size_)});
      post_run(active[i], state.next_ns, now_ns, limit);
      if (state.next_ns > now_ns || state.outstanding >= state.window) {
        std::swap(active[i], active[--live]);  // done for this burst (kNever is > now)
      } else {
        ++i;
      }
    }
  }
  for (size_t i = 0; i < count; ++i) {
    FlowState& state = flows_[active[i]];
    if (state.next_ns == gen::kNever ||
        (state.next_ns <= now_ns && state.outstanding >= state.window)) {
      state.queued = false;
    } else {
      due_.push({state.next_ns, active[i]});
    }
  }
}

[[gnu::always_inline]] inline void FlowWorker::flush(drv::Queue& queue) {
  if (burst_sent_ < burst_size_) {
    burst_sent_ += queue.tx_burst(
        std::span<const drv::Message>(burst_.data() + burst_sent_, burst_size_ - burst_sent_));
  }
  if (burst_sent_ == burst_size_) {
    burst_size_ = 0;
    burst_sent_ = 0;
  }
}

[[gnu::always_inline]] inline void FlowWorker::on_completion(const drv::Completion& c,
                                                             drv::Queue& queue,
                                                             std::vector<FlowCounters>& counters,
                                                             std::vector<FlowLatency>& latency) {
  if (c.kind == drv::Completion::Kind::tx_done) {
    FlowState& state = flows_[c.flow];
    state.outstanding -= c.messages;
    if (state.saturating) {
      // An RDMA application posts the next message when it sees the completion: the freed
      // slots are refilled at the completion's time, whenever the driver hands it to us.
      // Refills go to the driver every kRefillFlushMessages: a software shaper whose queues
      // wait for a whole burst of refills runs dry (its link idles) at 100 Gbit/s.
      if (burst_size_ >= kRefillFlushMessages) flush(queue);
      if (state.queued) return;  // already waiting in ready_ to fill its window
      const auto refill = std::min(static_cast<uint32_t>(c.messages),
                                   static_cast<uint32_t>(kBurstMessages - burst_size_));
      if (refill != 0) post_refill(state, c.flow, c.time_ns, refill);
      if (refill < c.messages) {
        ready_.push_back(c.flow);  // the driver is full: refill when it drains
        state.queued = true;
      }
    } else if (!state.queued && state.next_ns != gen::kNever) {
      due_.push({state.next_ns, c.flow});
      state.queued = true;
    }
    return;
  }
  const int64_t offset_ns = c.time_ns - window_.warmup_ns;
  if (offset_ns < 0 || offset_ns >= window_.duration_ns) [[unlikely]] {
    // Delivered before the window: not outstanding at its end (after it: still outstanding).
    if (offset_ns < 0 && c.last_of_message) {
      delivered_next_[c.flow] = std::max(delivered_next_[c.flow], c.sequence + 1);
    }
    return;
  }
  FlowCounters& flow = counters[c.flow];
  if (c.kind == drv::Completion::Kind::rx_message) {
    if (c.payload_bytes != rx_packets_of_bytes_) [[unlikely]] {
      rx_packets_ = wire_.packets_for_message(c.payload_bytes);
      rx_packets_of_bytes_ = c.payload_bytes;
    }
    flow.counts.packets += rx_packets_;
  } else {
    ++flow.counts.packets;
  }
  flow.counts.payload_bytes += c.payload_bytes;
  flow.counts.wire_bytes += c.wire_bytes;
  if (flow.series_wire_bytes.empty()) [[unlikely]] {
    flow.series_wire_bytes.assign(series_bins_, 0);
  }
  // The bin of offset_ns: completions come in time order, so the last one's bin [start, end)
  // usually holds it, and a division (tens of cycles) is needed only when a bin is left.
  if (offset_ns < bin_start_ns_ || offset_ns >= bin_end_ns_) [[unlikely]] {
    bin_index_ = static_cast<size_t>(offset_ns / window_.bin_ns);
    bin_start_ns_ = static_cast<int64_t>(bin_index_) * window_.bin_ns;
    bin_end_ns_ = bin_start_ns_ + window_.bin_ns;
  }
  flow.series_wire_bytes[bin_index_] += c.wire_bytes;
  if (c.last_of_message) {
    ++flow.counts.messages;
    delivered_next_[c.flow] = std::max(delivered_next_[c.flow], c.sequence + 1);
    if (c.sent_ns == drv::Completion::kUntimed) return;
    const int64_t from_scheduled_ns = c.time_ns - c.scheduled_ns;
    const int64_t from_sent_ns = c.time_ns - c.sent_ns;
    if (c.flow == latency_run_.flow && from_scheduled_ns == latency_run_.from_scheduled_ns &&
        from_sent_ns == latency_run_.from_sent_ns) {
      ++latency_run_.count;  // (from count 0: the run starts)
      return;
    }
    record_latency_run(latency);
    latency_run_ = LatencyRun{c.flow, 1, from_scheduled_ns, from_sent_ns};
  }
}

[[gnu::always_inline]] inline void FlowWorker::record_latency_run(
    std::vector<FlowLatency>& latency) noexcept {
  if (latency_run_.count == 0) return;
  FlowLatency& flow = latency[latency_run_.flow];
  if (latency_run_.count == 1) {
    // A run of one: a plain record, without record_repeated's multiply and overflow checks.
    flow.from_scheduled_ns.record(latency_run_.from_scheduled_ns);
    flow.from_sent_ns.record(latency_run_.from_sent_ns);
  } else {
    flow.from_scheduled_ns.record_repeated(latency_run_.from_scheduled_ns, latency_run_.count);
    flow.from_sent_ns.record_repeated(latency_run_.from_sent_ns, latency_run_.count);
  }
  latency_run_.count = 0;
}

void FlowWorker::record_outstanding(const std::vector<uint64_t>& delivered_next, int64_t end_ns,
                                    std::vector<FlowLatency>& latency) const {
  for (const uint32_t f : owned_) {
    if (f >= flows_.size() || f >= latency.size()) continue;
    const FlowState& state = flows_[f];
    const uint64_t posted = state.next_sequence;
    const uint64_t known = posted - std::min<uint64_t>(posted, state.ring_mask + 1);
    const uint64_t delivered = f < delivered_next.size() ? delivered_next[f] : 0;
    for (uint64_t s = std::max(delivered, known); s < posted; ++s) {
      const int64_t scheduled_ns = scheduled_ring_[state.ring_offset + (s & state.ring_mask)];
      latency[f].outstanding_age_ns.record(std::max<int64_t>(end_ns - scheduled_ns, 0));
    }
  }
}

void FlowWorker::publish_post_counts(std::vector<FlowCounters>& counters) const {
  for (const uint32_t f : owned_) {
    if (f >= flows_.size()) continue;
    counters[f].counts.posted_messages = flows_[f].next_sequence;  // one sequence number a post
    counters[f].counts.late_posts = flows_[f].late_posts;
  }
}

void FlowWorker::show_live(WorkerLive live) {
  live_ = live;
  if (live_.tap != nullptr && live_.interval_ns > 0) {
    live_next_ns_ = window_.warmup_ns + live_.interval_ns;
    live_published_.assign(groups_, LiveGroupCounters{});
    live_delta_.assign(groups_, LiveGroupCounters{});
  }
}

void FlowWorker::publish_live(int64_t window_end_ns, const std::vector<FlowCounters>& counters,
                              bool last, bool complete) {
  // Cumulative per [[flow]] entry over every flow this worker counted (frames of another
  // worker's flows included), minus what the last boundary published.
  std::fill(live_delta_.begin(), live_delta_.end(), LiveGroupCounters{});
  for (size_t f = 0; f < counters.size() && f < flow_group_->size(); ++f) {
    merge_counters(live_delta_[(*flow_group_)[f]], counters[f].counts, CounterSide::receiver);
  }
  for (size_t g = 0; g < groups_; ++g) {
    const LiveGroupCounters total = live_delta_[g];
    live_delta_[g] = counters_since(total, live_published_[g]);
    live_published_[g] = total;
  }
  const int64_t end_ns = std::clamp<int64_t>(window_end_ns, live_start_ns_, window_.duration_ns);
  live_.tap->publish(live_index_++, live_start_ns_, end_ns, last, complete, live_delta_);
  live_start_ns_ = end_ns;
  // The next boundary after this one (a virtual clock may have jumped over several).
  live_next_ns_ = window_.warmup_ns + (end_ns / live_.interval_ns + 1) * live_.interval_ns;
}

void FlowWorker::report_progress(int64_t covered_ns) noexcept {
  if (live_.progress == nullptr || covered_ns <= progress_reported_ns_) return;
  live_.progress->add_covered(covered_ns - progress_reported_ns_);
  progress_reported_ns_ = covered_ns;
}

// The per-run state: bins, the latency run, each owned flow's ring of scheduled times, and
// its series.
void FlowWorker::prepare_run(std::vector<FlowCounters>& counters) {
  exact_order_ = window_.virtual_time;
  series_bins_ = static_cast<size_t>((window_.duration_ns + window_.bin_ns - 1) / window_.bin_ns);
  bin_index_ = 0;
  bin_start_ns_ = 0;
  bin_end_ns_ = 0;  // empty: the first completion computes its bin
  rx_packets_of_bytes_ = 0;
  rx_packets_ = wire_.packets_for_message(0);
  latency_run_ = LatencyRun{};
  // A ring of scheduled times per owned flow, deep enough for every message not yet
  // acknowledged (the window): stored at each post, read once when the window ends.
  delivered_next_.assign(flows_.size(), 0);
  size_t ring_slots = 0;
  for (const uint32_t f : owned_) {
    if (f >= flows_.size()) continue;
    FlowState& state = flows_[f];
    const uint64_t slots = std::bit_ceil(std::max<uint64_t>(state.window, 1));
    state.ring_offset = ring_slots;
    state.ring_mask = slots - 1;
    ring_slots += slots;
  }
  scheduled_ring_.assign(std::max<size_t>(ring_slots, 1), 0);
  // Series for the flows this worker owns only: W workers x all flows would multiply the
  // series memory by the worker count (the merge adds whatever each worker has). A flow's
  // frames received on another worker's queue get it there, once (on_completion).
  for (const uint32_t f : owned_) {
    if (f < counters.size()) counters[f].series_wire_bytes.assign(series_bins_, 0);
  }
}

// Each owned flow's first post: saturating flows ready now or at their start, the others
// at their first arrival.
void FlowWorker::schedule_starts(int64_t start_ns) {
  for (const uint32_t f : owned_) {
    if (f >= flows_.size()) continue;
    FlowState& state = flows_[f];
    state.queued = true;
    if (state.saturating && state.start_offset_ns > 0) {
      late_starts_.emplace_back(start_ns + state.start_offset_ns, f);
    } else if (state.saturating) {
      ready_.push_back(f);
    } else {
      state.next_ns = state.arrivals.first_ns(start_ns + state.start_offset_ns, state.rng);
      due_.push({state.next_ns, f});
    }
  }
  // Latest first, ties by flow (taken from the back: earliest, lowest flow first).
  std::sort(late_starts_.begin(), late_starts_.end(),
            [](const auto& a, const auto& b) { return a > b; });
}

WorkerOutcome FlowWorker::run(drv::Queue& queue, drv::Clock& clock,
                              const std::atomic<bool>* interrupted,
                              std::vector<FlowCounters>& counters,
                              std::vector<FlowLatency>& latency) {
  const int64_t end_ns = window_.warmup_ns + window_.duration_ns;
  prepare_run(counters);
  const int64_t start_ns = clock.now_ns();
  // Real time: the run ends by the wall clock too, whatever the driver's clock does.
  const int64_t wall_end_ns = window_.virtual_time
                                  ? std::numeric_limits<int64_t>::max()
                                  : wall_now_ns() + (end_ns - start_ns) + window_.drain_bound_ns;
  schedule_starts(start_ns);

  auto stop_requested = [interrupted] {
    return interrupted != nullptr && interrupted->load(std::memory_order_relaxed);
  };
  // Starvation (real time): the loop's stalls, and the thread's run-queue delay.
  const bool watch = !window_.virtual_time;
  const ThreadSched sched_start = watch ? window_.read_sched() : ThreadSched{};
  WorkerStarvation starvation;
  int64_t resume_ns = start_ns;  // when the next iteration should start at the latest
  auto ended = [&](bool complete) {
    record_latency_run(latency);
    publish_post_counts(counters);
    const int64_t end_now_ns = clock.now_ns();
    const int64_t covered_ns = complete ? window_.duration_ns : end_now_ns - window_.warmup_ns;
    WorkerOutcome outcome;
    outcome.complete = complete;
    outcome.measured_ns = std::clamp<int64_t>(covered_ns, 0, window_.duration_ns);
    if (live_.tap != nullptr && live_.interval_ns > 0) {
      publish_live(outcome.measured_ns, counters, true, complete);
    }
    report_progress(end_ns - start_ns);  // the repetition is over, cut short or not
    if (watch) {
      const ThreadSched sched_end = window_.read_sched();
      starvation.measured = true;
      starvation.run_ns = std::max<int64_t>(end_now_ns - start_ns, 0);
      if (sched_start.available && sched_end.available) {
        starvation.run_delay_ns =
            std::max<int64_t>(sched_end.run_delay_ns - sched_start.run_delay_ns, 0);
      }
      starvation.involuntary_switches =
          std::max<int64_t>(sched_end.involuntary_switches - sched_start.involuntary_switches, 0);
      starvation.lost_ns = lost_to_others(sched_start.available && sched_end.available, starvation);
      outcome.starvation = starvation;
    }
    return outcome;
  };
  const uint32_t max_drain_batches =
      window_.virtual_time ? std::numeric_limits<uint32_t>::max() : kMaxDrainBatches;
  std::array<drv::Completion, kPollBatch> completions;
  uint32_t iteration = 0;
  while (true) {
    if (stop_requested()) return ended(false);
    const int64_t now_ns = clock.now_ns();
    if (watch && now_ns - resume_ns > kStallThresholdNs) [[unlikely]] {
      const int64_t stall_ns = now_ns - resume_ns;
      ++starvation.stalls;
      starvation.stalled_ns += stall_ns;
      starvation.longest_stall_ns = std::max(starvation.longest_stall_ns, stall_ns);
    }
    resume_ns = now_ns;
    if (now_ns >= end_ns) break;
    if (++iteration % kWallCheckEvery == 0) [[unlikely]] {
      if (wall_now_ns() >= wall_end_ns) {
        return ended(false);  // the driver's clock stalled: give up, marked incomplete
      }
      report_progress(now_ns - start_ns);
    }
    // Post what is due (in bursts), then hand it to the driver.
    do {
      if (anything_due(now_ns)) post_due(now_ns);
      flush(queue);
    } while (burst_size_ == 0 && anything_due(now_ns));
    // Drain completions, a bounded number of full batches at a time.
    // Virtual time drains it all (the exact order of posts depends on it).
    uint32_t polled = 0;
    uint32_t batches = 0;
    do {
      polled = queue.poll(completions);
      for (uint32_t i = 0; i < polled; ++i) {
        on_completion(completions[i], queue, counters, latency);
      }
      if (polled == completions.size() && stop_requested()) return ended(false);
    } while (polled == completions.size() && (++batches < max_drain_batches));
    flush(queue);
    // The counters hold every completion up to now: an interval that ended is complete.
    if (now_ns >= live_next_ns_) [[unlikely]] {
      publish_live(now_ns - window_.warmup_ns, counters, false, true);
    }
    if (polled == completions.size()) continue;  // more to drain: after the clock and the flag
    if (burst_size_ != 0) {
      clock.wait_until(now_ns + 1);  // the driver is full: let it drain
      continue;
    }
    if (!ready_.empty()) continue;  // a window opened: post again before waiting
    int64_t next_due_ns = due_.empty() ? end_ns : std::min(due_.top().first, end_ns);
    if (!late_starts_.empty()) next_due_ns = std::min(next_due_ns, late_starts_.back().first);
    resume_ns = std::max(now_ns, next_due_ns);  // a wait asked for is not a stall
    clock.wait_until(next_due_ns);
  }
  return ended(true);
}

}  // namespace qb::engine
