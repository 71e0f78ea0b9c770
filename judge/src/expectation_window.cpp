#include "qb/judge/expectation_window.hpp"

#include <algorithm>

namespace qb::judge {

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
      out.flow_bps[f] =
          compiled.expected.flow_bps[f] * static_cast<double>(out.active_ns[f]) / span;
    }
    return out;
  }
  for (size_t e = 0; e < compiled.epochs.size(); ++e) {
    const int64_t begin = std::max(from_ns, compiled.epochs[e].start_ns);
    const int64_t end =
        std::min(to_ns, e + 1 < compiled.epochs.size() ? compiled.epochs[e + 1].start_ns : to_ns);
    if (end <= begin) continue;
    const double weight = static_cast<double>(end - begin) / span;
    for (size_t f = 0; f < flows; ++f) out.flow_bps[f] += compiled.epochs[e].flow_bps[f] * weight;
  }
  return out;
}

bool started_before(const suite::CompiledScenario& compiled, size_t flow, int64_t to_ns) {
  return compiled.plan.flows[flow].start_ns < to_ns;
}

}  // namespace qb::judge
