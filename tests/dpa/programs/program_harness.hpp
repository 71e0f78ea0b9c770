// Replays hand-written event traces through a DPA program's handler, the way a runtime would:
// one flow, its context zeroed at the start, the parameter block at the program's defaults
// (a test may override one by name), and the flow's rate as the last SET_RATE left it.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "qb_dpa/device_api.h"

namespace qb::dpa::test {

// 100 Gbit/s, the port the traces assume for Mbit/s parameters.
inline constexpr std::uint64_t kLineRateMbps = 100000;

class FlowReplay {
 public:
  explicit FlowReplay(const qb_dpa_program& program) : program_(program) {
    for (std::uint32_t index = 0; index < program.param_count; ++index) {
      params_.push_back(program.params[index].default_value);
    }
  }

  // Overrides the parameter called `name`; returns false if the program has none.
  bool set_param(std::string_view name, std::int64_t value) {
    for (std::uint32_t index = 0; index < program_.param_count; ++index) {
      if (name == program_.params[index].name) {
        params_[index] = value;
        return true;
      }
    }
    return false;
  }

  void set_line_rate_mbps(std::uint64_t line_rate_mbps) { line_rate_mbps_ = line_rate_mbps; }

  // Runs the handler for one event at `now_ns` and returns its actions.
  qb_dpa_actions step(qb_dpa_event event) {
    event.flow = 0;
    qb_dpa_actions actions{};
    qb_dpa_flow flow{};
    flow.context = context_.data();
    flow.params = params_.data();
    flow.line_rate_mbps = line_rate_mbps_;
    program_.handle(&event, flow, &actions);
    if ((actions.flags & QB_DPA_ACT_SET_RATE) != 0) {
      rate_ = actions.rate;
    }
    return actions;
  }

  // The flow's rate after the events so far (0 before any SET_RATE).
  std::uint32_t rate() const { return rate_; }
  const unsigned char* context() const { return context_.data(); }

 private:
  const qb_dpa_program& program_;
  alignas(8) std::array<unsigned char, QB_DPA_FLOW_CONTEXT_BYTES> context_{};
  std::vector<std::int64_t> params_;
  std::uint64_t line_rate_mbps_ = kLineRateMbps;
  std::uint32_t rate_ = 0;
};

inline qb_dpa_event make_event(std::uint32_t kind, std::uint64_t now_ns) {
  qb_dpa_event event{};
  event.kind = kind;
  event.now_ns = now_ns;
  return event;
}

inline qb_dpa_event rtt_event(std::uint64_t now_ns, std::uint64_t rtt_ns,
                              std::uint32_t port_utilisation = 0) {
  qb_dpa_event event = make_event(QB_DPA_EV_RTT, now_ns);
  event.rtt_ns = rtt_ns;
  event.probe_sent_ns = now_ns - rtt_ns;
  event.probe_answered_ns = now_ns - rtt_ns / 2;
  event.port_utilisation = port_utilisation;
  return event;
}

inline qb_dpa_event tx_sample_event(std::uint64_t now_ns, std::uint32_t port_utilisation) {
  qb_dpa_event event = make_event(QB_DPA_EV_TX_SAMPLE, now_ns);
  event.port_utilisation = port_utilisation;
  return event;
}

inline qb_dpa_event tx_event(std::uint64_t now_ns, std::uint32_t bytes) {
  qb_dpa_event event = make_event(QB_DPA_EV_TX, now_ns);
  event.bytes = bytes;
  return event;
}

}  // namespace qb::dpa::test
