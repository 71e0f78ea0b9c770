#include "qb/judge/expectation_window.hpp"

#include <algorithm>

namespace qb::judge {
namespace {

// On-time of an on/off clock (on windows [k * period, k * period + on) from time zero, as the
// generator runs it) before t >= 0.
double on_time_before_ns(int64_t t_ns, int64_t on_ns, int64_t period_ns) {
  const int64_t periods = t_ns / period_ns;
  return static_cast<double>(periods) * static_cast<double>(on_ns) +
         static_cast<double>(std::min(t_ns - periods * period_ns, on_ns));
}

// An on/off flow that gets all it offers sends exactly in its on windows: over a span that cuts
// a window, its long-run mean (the oracle's) is off by up to a period. Its own figure follows
// the clock instead; a flow held below its offer keeps the oracle's share.
double epoch_flow_bps(const suite::CompiledScenario& compiled, size_t f, double share_bps,
                      int64_t begin_ns, int64_t end_ns) {
  if (compiled.scenario == nullptr || !(share_bps > 0.0)) return share_bps;
  const gen::ArrivalSpec& arrival = compiled.scenario->flows[compiled.flow_spec[f]].arrival;
  const double offered = compiled.offered_bps[f];
  if (arrival.kind != gen::ArrivalSpec::Kind::onoff || !(share_bps >= offered * (1.0 - 1e-9)) ||
      arrival.on_ns <= 0 || arrival.off_ns < 0 || begin_ns < 0) {
    return share_bps;
  }
  const int64_t period_ns = arrival.on_ns + arrival.off_ns;
  const double duty = static_cast<double>(arrival.on_ns) / static_cast<double>(period_ns);
  const double on_ns = on_time_before_ns(end_ns, arrival.on_ns, period_ns) -
                       on_time_before_ns(begin_ns, arrival.on_ns, period_ns);
  return offered / duty * on_ns / static_cast<double>(end_ns - begin_ns);
}

}  // namespace

SpanExpectation expectation_over(const suite::CompiledScenario& compiled, int64_t from_ns,
                                 int64_t to_ns) {
  const size_t flows = compiled.plan.flows.size();
  SpanExpectation out{std::vector<double>(flows, 0.0), std::vector<int64_t>(flows, 0)};
  if (to_ns <= from_ns) return out;
  const auto span = static_cast<double>(to_ns - from_ns);
  for (size_t f = 0; f < flows; ++f) {
    out.active_ns[f] =
        std::max<int64_t>(0, to_ns - std::max(from_ns, compiled.plan.flows[f].start_ns));
  }
  if (compiled.epochs.empty()) {
    // One set of shares from the (common) start on.
    for (size_t f = 0; f < flows; ++f) {
      if (out.active_ns[f] <= 0) continue;
      const int64_t begin = to_ns - out.active_ns[f];
      out.flow_bps[f] = epoch_flow_bps(compiled, f, compiled.expected.flow_bps[f], begin, to_ns) *
                        static_cast<double>(out.active_ns[f]) / span;
    }
    return out;
  }
  for (size_t e = 0; e < compiled.epochs.size(); ++e) {
    const int64_t begin = std::max(from_ns, compiled.epochs[e].start_ns);
    const int64_t end =
        std::min(to_ns, e + 1 < compiled.epochs.size() ? compiled.epochs[e + 1].start_ns : to_ns);
    if (end <= begin) continue;
    const double weight = static_cast<double>(end - begin) / span;
    for (size_t f = 0; f < flows; ++f) {
      out.flow_bps[f] +=
          epoch_flow_bps(compiled, f, compiled.epochs[e].flow_bps[f], begin, end) * weight;
    }
  }
  return out;
}

bool started_before(const suite::CompiledScenario& compiled, size_t flow, int64_t to_ns) {
  return compiled.plan.flows[flow].start_ns < to_ns;
}

}  // namespace qb::judge
