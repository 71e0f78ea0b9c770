#include "flow_worker.hpp"

#include <algorithm>
#include <array>

namespace qb::engine {
namespace {

constexpr size_t kBurstMessages = 64;
constexpr size_t kPollBatch = 64;

}  // namespace

FlowWorker::FlowWorker(const CompiledScenario& compiled, uint64_t seed, WorkerWindow window,
                       std::vector<uint32_t> owned)
    : window_(window), owned_(std::move(owned)) {
  const Scenario& scenario = *compiled.scenario;
  const size_t flow_count = compiled.plan.flows.size();
  flows_.reserve(flow_count);
  std::vector<Due> heap_storage;
  heap_storage.reserve(flow_count);
  due_ = decltype(due_)(std::greater<>{}, std::move(heap_storage));
  ready_.reserve(flow_count);
  burst_.reserve(kBurstMessages);
  for (uint32_t f = 0; f < flow_count; ++f) {
    const FlowSpec& spec = scenario.flows[compiled.flow_spec[f]];
    FlowState state{gen::ArrivalProcess(spec.arrival, compiled.mean_message_bytes[f]),
                    gen::SizeSampler(spec.size), Rng(derive_seed(seed, f))};
    state.saturating = spec.arrival.saturating();
    state.window = state.saturating ? std::min(spec.arrival.outstanding, window.max_outstanding)
                                    : window.max_outstanding;
    flows_.push_back(std::move(state));
  }
  if (owned_.empty()) {
    for (uint32_t f = 0; f < flow_count; ++f) owned_.push_back(f);
  }
}

void FlowWorker::post(uint32_t flow, int64_t scheduled_ns, int64_t now_ns) {
  FlowState& state = flows_[flow];
  const uint32_t bytes = state.sizes.next(state.rng);
  burst_.push_back(drv::Message{flow, bytes, scheduled_ns, state.next_sequence++});
  ++state.outstanding;
  FlowCounters& counters = (*counters_)[flow];
  ++counters.posted_messages;
  if (now_ns > scheduled_ns) ++counters.late_posts;
}

void FlowWorker::post_due(int64_t now_ns) {
  // Saturating flows: fill their windows now; a flow the burst has no room for stays ready.
  size_t filled = 0;
  for (; filled < ready_.size(); ++filled) {
    FlowState& state = flows_[ready_[filled]];
    while (state.outstanding < state.window && burst_.size() < burst_.capacity()) {
      post(ready_[filled], now_ns, now_ns);
    }
    if (state.outstanding < state.window) break;  // burst full
    state.queued = false;
  }
  ready_.erase(ready_.begin(), ready_.begin() + static_cast<std::ptrdiff_t>(filled));
  // Scheduled flows: every message whose time has come, while the window has room.
  while (!due_.empty() && due_.top().first <= now_ns && burst_.size() < burst_.capacity()) {
    const auto [scheduled_ns, flow] = due_.top();
    due_.pop();
    FlowState& state = flows_[flow];
    if (state.outstanding >= state.window) {
      state.queued = false;  // blocked: re-queued when a completion frees a slot
      continue;
    }
    post(flow, scheduled_ns, now_ns);
    state.next_ns = state.arrivals.next_ns(scheduled_ns, burst_.back().bytes, state.rng);
    if (state.next_ns != gen::kNever) {
      due_.emplace(state.next_ns, flow);
    } else {
      state.queued = false;
    }
  }
}

void FlowWorker::flush(drv::Queue& queue) {
  if (burst_sent_ < burst_.size()) {
    burst_sent_ += queue.tx_burst(std::span<const drv::Message>(burst_).subspan(burst_sent_));
  }
  if (burst_sent_ == burst_.size()) {
    burst_.clear();
    burst_sent_ = 0;
  }
}

void FlowWorker::on_completion(const drv::Completion& c, drv::Queue& queue,
                               std::vector<FlowCounters>& counters,
                               std::vector<FlowLatency>& latency) {
  if (c.kind == drv::Completion::Kind::tx_done) {
    FlowState& state = flows_[c.flow];
    --state.outstanding;
    if (state.saturating) {
      // An RDMA application posts the next message when it sees the completion: the freed
      // slot is refilled at the completion's time, whenever the driver hands it to us.
      if (burst_.size() == burst_.capacity()) flush(queue);
      if (burst_.size() < burst_.capacity() && !state.queued) {
        post(c.flow, c.time_ns, c.time_ns);
      } else if (!state.queued) {
        ready_.push_back(c.flow);  // the driver is full: refill when it drains
        state.queued = true;
      }
    } else if (!state.queued && state.next_ns != gen::kNever) {
      due_.emplace(state.next_ns, c.flow);
      state.queued = true;
    }
    return;
  }
  const int64_t offset_ns = c.time_ns - window_.warmup_ns;
  if (offset_ns < 0 || offset_ns >= window_.duration_ns) return;
  FlowCounters& flow = counters[c.flow];
  ++flow.packets;
  flow.payload_bytes += c.payload_bytes;
  flow.wire_bytes += c.wire_bytes;
  flow.series_wire_bytes[static_cast<size_t>(offset_ns / window_.bin_ns)] += c.wire_bytes;
  if (c.last_of_message) {
    ++flow.messages;
    latency[c.flow].from_scheduled_ns.record(c.time_ns - c.scheduled_ns);
    latency[c.flow].from_sent_ns.record(c.time_ns - c.sent_ns);
  }
}

bool FlowWorker::run(drv::Queue& queue, drv::Clock& clock, const std::atomic<bool>* interrupted,
                     std::vector<FlowCounters>& counters, std::vector<FlowLatency>& latency) {
  counters_ = &counters;
  const int64_t end_ns = window_.warmup_ns + window_.duration_ns;
  const auto bins =
      static_cast<size_t>((window_.duration_ns + window_.bin_ns - 1) / window_.bin_ns);
  for (auto& flow : counters) flow.series_wire_bytes.assign(bins, 0);

  const int64_t start_ns = clock.now_ns();
  for (const uint32_t f : owned_) {
    if (f >= flows_.size()) continue;
    FlowState& state = flows_[f];
    state.queued = true;
    if (state.saturating) {
      ready_.push_back(f);
    } else {
      state.next_ns = state.arrivals.first_ns(start_ns, state.rng);
      due_.emplace(state.next_ns, f);
    }
  }

  std::array<drv::Completion, kPollBatch> completions;
  while (true) {
    if (interrupted != nullptr && interrupted->load(std::memory_order_relaxed)) return false;
    const int64_t now_ns = clock.now_ns();
    if (now_ns >= end_ns) break;
    // Post what is due (in bursts), then hand it to the driver.
    do {
      post_due(now_ns);
      flush(queue);
    } while (burst_.empty() && (!ready_.empty() || (!due_.empty() && due_.top().first <= now_ns)));
    // Drain completions.
    uint32_t polled = 0;
    do {
      polled = queue.poll(completions);
      for (uint32_t i = 0; i < polled; ++i) {
        on_completion(completions[i], queue, counters, latency);
      }
    } while (polled == completions.size());
    flush(queue);
    if (!burst_.empty()) {
      clock.wait_until(now_ns + 1);  // the driver is full: let it drain
      continue;
    }
    if (!ready_.empty()) continue;  // a window opened: post again before waiting
    const int64_t next_due_ns = due_.empty() ? end_ns : std::min(due_.top().first, end_ns);
    clock.wait_until(next_due_ns);
  }
  return true;
}

}  // namespace qb::engine
