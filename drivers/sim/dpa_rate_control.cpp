// The DPA emulator behind the rate-control seam; see dpa_rate_control.hpp.
#include "dpa_rate_control.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "every_event.hpp"

namespace qb::drv::sim {
namespace {

using Kind = RateEvent::Kind;

// The seam's event kinds and the device API's, side by side (probe: the receiver's program).
struct KindPair {
  Kind seam;
  uint32_t device;
};
constexpr KindPair kKinds[] = {
    {Kind::start, QB_DPA_EV_FLOW_START}, {Kind::sent, QB_DPA_EV_TX},     {Kind::ack, QB_DPA_EV_ACK},
    {Kind::nack, QB_DPA_EV_NACK},        {Kind::cnp, QB_DPA_EV_CNP},     {Kind::rtt, QB_DPA_EV_RTT},
    {Kind::timer, QB_DPA_EV_TIMER},      {Kind::probe, QB_DPA_EV_PROBE},
};

uint32_t device_kind(Kind kind) noexcept {
  for (const KindPair& pair : kKinds) {
    if (pair.seam == kind) return pair.device;
  }
  return QB_DPA_EV_KINDS;
}

dpa::EmulatorConfig emulator_config(const std::string& name, const std::vector<int64_t>& params,
                                    const policy::DpaPlan& plan, double line_rate_bps) {
  dpa::EmulatorConfig config;
  config.program = dpa::find_program(name);
  if (config.program == nullptr) {
    throw std::invalid_argument("no DPA program called \"" + name + "\"");
  }
  config.params = params;
  config.threads = plan.threads;
  config.handler_cost_ns = plan.handler_cost_ns;
  config.queue_events = plan.queue_events;
  config.line_rate_mbps = static_cast<uint64_t>(std::llround(line_rate_bps / 1e6));
  return config;
}

// The heap order of pending actions: a min-heap by (apply time, post order).
struct AppliesLater {
  template <class Pending>
  bool operator()(const Pending& a, const Pending& b) const noexcept {
    return a.apply_ns > b.apply_ns || (a.apply_ns == b.apply_ns && a.order > b.order);
  }
};

}  // namespace

DpaRateControl::DpaRateControl(const policy::DpaPlan& plan, uint32_t flows, double line_rate_bps)
    : line_rate_bps_(line_rate_bps),
      every_event_(every_event_for_tests()),
      tx_sample_interval_ns_(plan.tx_sample_interval_ns),
      threads_(plan.threads) {
  sender_.configure(emulator_config(plan.program, plan.params, plan, line_rate_bps), flows);
  sender_mask_ = sender_.program().event_mask;
  uint32_t capacity = plan.threads * plan.queue_events;
  if (!plan.receiver_program.empty()) {
    receiver_.emplace();
    receiver_->configure(
        emulator_config(plan.receiver_program, plan.receiver_params, plan, line_rate_bps), flows);
    if ((receiver_->program().event_mask & QB_DPA_EVENT_BIT(QB_DPA_EV_PROBE)) != 0) {
      event_mask_ |= rate_event_bit(Kind::probe);
    }
    capacity += plan.threads * plan.queue_events;
  }
  for (const KindPair& pair : kKinds) {
    if (pair.seam != Kind::probe && (sender_mask_ & QB_DPA_EVENT_BIT(pair.device)) != 0) {
      event_mask_ |= rate_event_bit(pair.seam);
    }
  }
  event_mask_ |= rate_event_bit(Kind::wakeup);
  if ((sender_mask_ & QB_DPA_EVENT_BIT(QB_DPA_EV_TX_SAMPLE)) == 0) tx_sample_interval_ns_ = 0;
  pending_.reserve(capacity);
}

void DpaRateControl::on_start(const RateStart& start, RateActions& actions) noexcept {
  sender_.start();
  if (receiver_) receiver_->start();
  pending_.clear();
  order_ = 0;
  host_of_flow_.assign(start.host_of_flow.begin(), start.host_of_flow.end());
  started_.assign(start.flows, 0);
  host_tx_bytes_.assign(start.hosts, 0);
  host_utilisation_.assign(start.hosts, 0);
  line_rate_bps_ = static_cast<double>(start.line_rate_bps);
  rtt_samples_ = rtt_total_ns_ = rtt_max_ns_ = 0;
  rtt_min_ns_ = UINT64_MAX;
  next_sample_ns_ =
      tx_sample_interval_ns_ > 0 ? static_cast<uint64_t>(tx_sample_interval_ns_) : UINT64_MAX;
  arm_wakeup(0, actions);
}

void DpaRateControl::on_event(const RateEvent& event, RateActions& actions) noexcept {
  const auto now_ns = static_cast<uint64_t>(std::max<int64_t>(event.time_ns, 0));
  apply_due(now_ns, actions);
  if (event.kind == Kind::wakeup) {
    if (now_ns >= next_sample_ns_) sample_tx(now_ns, actions);
    arm_wakeup(now_ns, actions);
    return;
  }
  qb_dpa_event device{};
  device.kind = device_kind(event.kind);
  device.flow = event.flow;
  device.now_ns = now_ns;
  if (event.flow < host_of_flow_.size()) {
    device.port_utilisation = host_utilisation_[host_of_flow_[event.flow]];
  }
  switch (event.kind) {
    case Kind::sent:
    case Kind::ack:
      device.bytes = event.bytes;
      device.rtt_ns = static_cast<uint64_t>(std::max<int64_t>(event.rtt_ns, 0));
      break;
    case Kind::rtt:
      device.rtt_ns = static_cast<uint64_t>(std::max<int64_t>(event.rtt_ns, 0));
      device.probe_sent_ns = static_cast<uint64_t>(event.probe_sent_ns);
      device.probe_answered_ns = static_cast<uint64_t>(event.probe_answered_ns);
      ++rtt_samples_;
      rtt_total_ns_ += device.rtt_ns;
      rtt_min_ns_ = std::min(rtt_min_ns_, device.rtt_ns);
      rtt_max_ns_ = std::max(rtt_max_ns_, device.rtt_ns);
      break;
    case Kind::probe:
      device.probe_sent_ns = static_cast<uint64_t>(event.probe_sent_ns);
      break;
    default:
      break;
  }
  if (event.kind == Kind::start && event.flow < started_.size()) started_[event.flow] = 1;
  post(event.kind == Kind::probe ? Side::receiver : Side::sender, device, actions);
  arm_wakeup(now_ns, actions);
}

void DpaRateControl::post(Side side, qb_dpa_event event, RateActions& actions) noexcept {
  const uint64_t arrived_ns = event.now_ns;
  dpa::Emulator& emulator = side == Side::receiver ? *receiver_ : sender_;
  const dpa::Posted posted = emulator.post(event);
  if (!posted.accepted) return;  // counted by the emulator
  // A handler that did nothing (e.g. dcqcn counting a TX event's bytes) has nothing to apply
  // when it ends: no pending entry, and no wake-up of the simulator for it.
  if (posted.actions.flags == 0 && !every_event_) return;
  const Pending pending{posted.apply_ns, order_++, event.flow, side, posted.actions};
  if (posted.apply_ns <= arrived_ns) {
    apply(pending, actions);  // a handler of no cost: its actions apply at once (what was due
                              // earlier went in apply_due())
    return;
  }
  push_pending(pending);
}

void DpaRateControl::apply(const Pending& pending, RateActions& actions) noexcept {
  const qb_dpa_actions& a = pending.actions;
  const uint32_t flow = pending.flow;
  if ((a.flags & QB_DPA_ACT_SET_RATE) != 0) {
    actions.set_rate(
        flow, line_rate_bps_ * static_cast<double>(a.rate) / static_cast<double>(QB_DPA_RATE_LINE));
  }
  if ((a.flags & QB_DPA_ACT_CANCEL_TIMER) != 0) actions.set_timer(flow, -1);
  if ((a.flags & QB_DPA_ACT_SET_TIMER) != 0) {
    actions.set_timer(flow,
                      static_cast<int64_t>(std::min<uint64_t>(a.timer_delay_ns, INT64_MAX / 4)));
  }
  if ((a.flags & QB_DPA_ACT_REQUEST_RTT) != 0) actions.request_rtt_probe(flow);
  if ((a.flags & QB_DPA_ACT_ANSWER_PROBE) != 0) actions.answer_probe(flow);
}

void DpaRateControl::apply_due(uint64_t now_ns, RateActions& actions) noexcept {
  while (!pending_.empty() && pending_.front().apply_ns <= now_ns) apply(pop_pending(), actions);
}

// Utilisation over the last interval per host, then a TX_SAMPLE to every started flow.
void DpaRateControl::sample_tx(uint64_t now_ns, RateActions& actions) noexcept {
  const double interval_bits = line_rate_bps_ * static_cast<double>(tx_sample_interval_ns_) * 1e-9;
  for (uint32_t h = 0; h < host_tx_bytes_.size(); ++h) {
    const uint64_t bytes = actions.tx_wire_bytes(h);
    const double fraction = static_cast<double>(bytes - host_tx_bytes_[h]) * 8.0 / interval_bits;
    host_utilisation_[h] = static_cast<uint32_t>(std::clamp(fraction, 0.0, 1.0) *
                                                 static_cast<double>(QB_DPA_RATE_LINE));
    host_tx_bytes_[h] = bytes;
  }
  for (uint32_t f = 0; f < started_.size(); ++f) {
    if (started_[f] == 0) continue;
    qb_dpa_event sample{};
    sample.kind = QB_DPA_EV_TX_SAMPLE;
    sample.flow = f;
    sample.now_ns = now_ns;
    sample.tx_bytes = host_tx_bytes_[host_of_flow_[f]];
    sample.port_utilisation = host_utilisation_[host_of_flow_[f]];
    post(Side::sender, sample, actions);
  }
  while (next_sample_ns_ <= now_ns)
    next_sample_ns_ += static_cast<uint64_t>(tx_sample_interval_ns_);
}

void DpaRateControl::arm_wakeup(uint64_t now_ns, RateActions& actions) noexcept {
  uint64_t next_ns = next_sample_ns_;
  if (!pending_.empty()) next_ns = std::min(next_ns, pending_.front().apply_ns);
  if (next_ns == UINT64_MAX) {
    actions.set_wakeup(-1);
    return;
  }
  actions.set_wakeup(static_cast<int64_t>(next_ns > now_ns ? next_ns - now_ns : 0));
}

void DpaRateControl::push_pending(const Pending& pending) {
  pending_.push_back(pending);  // within the capacity reserved: one per queued event
  std::push_heap(pending_.begin(), pending_.end(), AppliesLater{});
}

DpaRateControl::Pending DpaRateControl::pop_pending() noexcept {
  std::pop_heap(pending_.begin(), pending_.end(), AppliesLater{});
  const Pending top = pending_.back();
  pending_.pop_back();
  return top;
}

void DpaRateControl::add_stats(DriverStats& stats, int64_t virtual_ns) const {
  auto add = [&stats, virtual_ns](const std::string& prefix, const dpa::Emulator& emulator,
                                  uint32_t threads) {
    // Clipped to the run: handlers queued past its end did not run in it.
    const dpa::EmulatorStats s =
        emulator.stats_until(static_cast<uint64_t>(std::max<int64_t>(virtual_ns, 0)));
    stats.emplace_back(prefix + "events", static_cast<double>(s.events));
    stats.emplace_back(prefix + "dropped_events", static_cast<double>(s.dropped_events));
    stats.emplace_back(prefix + "rate_clamps", static_cast<double>(s.rate_clamps));
    stats.emplace_back(
        prefix + "queue_delay_mean_ns",
        s.events > 0 ? static_cast<double>(s.queue_delay_total_ns) / static_cast<double>(s.events)
                     : 0.0);
    stats.emplace_back(prefix + "queue_delay_max_ns", static_cast<double>(s.queue_delay_max_ns));
    stats.emplace_back(prefix + "thread_utilisation",
                       virtual_ns > 0 ? static_cast<double>(s.busy_ns) /
                                            (static_cast<double>(virtual_ns) * threads)
                                      : 0.0);
  };
  add("dpa_", sender_, threads_);
  if (receiver_) add("receiver_dpa_", *receiver_, threads_);
  stats.emplace_back("rtt_samples", static_cast<double>(rtt_samples_));
  stats.emplace_back("rtt_mean_ns", rtt_samples_ > 0 ? static_cast<double>(rtt_total_ns_) /
                                                           static_cast<double>(rtt_samples_)
                                                     : 0.0);
  stats.emplace_back("rtt_min_ns", rtt_samples_ > 0 ? static_cast<double>(rtt_min_ns_) : 0.0);
  stats.emplace_back("rtt_max_ns", static_cast<double>(rtt_max_ns_));
}

}  // namespace qb::drv::sim
