// The DPA emulator (qb/dpa/emulator.hpp): one handler call per accepted event, on the thread
// its flow is bound to, at the time that thread takes it.
#include "qb/dpa/emulator.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "config_check.hpp"
#include "rate_clamp.hpp"

namespace qb::dpa {

void Emulator::configure(const EmulatorConfig& config, uint32_t flows) {
  std::vector<int64_t> params = check_config(config);
  // Allocate aside first: a failure leaves the emulator as it was.
  std::vector<unsigned char> contexts(static_cast<size_t>(flows) * QB_DPA_FLOW_CONTEXT_BYTES);
  std::vector<uint32_t> thread_of_flow(flows);
  for (uint32_t flow = 0; flow < flows; ++flow) thread_of_flow[flow] = flow % config.threads;
  ThreadQueues threads;
  threads.reset(config.threads, config.queue_events);

  EmulatorConfig checked = config;
  checked.params = std::move(params);
  config_ = std::move(checked);
  flows_ = flows;
  contexts_.swap(contexts);
  thread_of_flow_.swap(thread_of_flow);
  threads_ = std::move(threads);
  start();
}

void Emulator::start() noexcept {
  std::fill(contexts_.begin(), contexts_.end(), static_cast<unsigned char>(0));
  threads_.clear();
  stats_ = EmulatorStats{};
}

Posted Emulator::post(const qb_dpa_event& event) noexcept {
  Posted posted;
  // Not the program's: an unknown flow (also every flow before configure()), an unknown kind,
  // or a kind it did not ask for. No thread time is spent on them.
  if (event.flow >= flows_ || event.kind >= QB_DPA_EV_KINDS ||
      (config_.program->event_mask & QB_DPA_EVENT_BIT(event.kind)) == 0) {
    return posted;
  }
  const uint32_t thread = thread_of_flow_[event.flow];
  const auto cost_ns = static_cast<uint64_t>(config_.handler_cost_ns);
  ThreadSlot slot;
  if (!threads_.admit(thread, event.now_ns, cost_ns, slot)) {
    ++stats_.dropped_events;
    return posted;
  }

  qb_dpa_event taken = event;
  taken.now_ns = slot.start_ns;
  const qb_dpa_flow flow{
      .context = contexts_.data() + static_cast<size_t>(event.flow) * QB_DPA_FLOW_CONTEXT_BYTES,
      .params = config_.params.data(),
      .line_rate_mbps = config_.line_rate_mbps,
  };
  config_.program->handle(&taken, flow, &posted.actions);
  if ((posted.actions.flags & QB_DPA_ACT_SET_RATE) != 0 && clamp_rate(posted.actions.rate)) {
    ++stats_.rate_clamps;
  }
  posted.accepted = true;
  posted.apply_ns = slot.end_ns;

  const uint64_t queue_delay_ns = slot.start_ns - event.now_ns;
  ++stats_.events;
  ++stats_.events_by_kind[event.kind];
  if (__builtin_add_overflow(stats_.queue_delay_total_ns, queue_delay_ns,
                             &stats_.queue_delay_total_ns)) {
    stats_.queue_delay_total_ns = UINT64_MAX;
  }
  stats_.queue_delay_max_ns = std::max(stats_.queue_delay_max_ns, queue_delay_ns);
  stats_.busy_ns += cost_ns;
  return posted;
}

EmulatorStats Emulator::stats_until(uint64_t end_ns) const noexcept {
  EmulatorStats out = stats_;
  const ThreadQueues::Beyond beyond =
      threads_.beyond(end_ns, static_cast<uint64_t>(config_.handler_cost_ns));
  out.busy_ns -= std::min(out.busy_ns, beyond.busy_ns);
  if (out.queue_delay_total_ns != UINT64_MAX) {
    out.queue_delay_total_ns -= std::min(out.queue_delay_total_ns, beyond.wait_ns);
  }
  out.queue_delay_max_ns = std::min(out.queue_delay_max_ns, end_ns);
  return out;
}

}  // namespace qb::dpa
