// What the policy should give each flow over a span of the run: the oracle's shares of every
// epoch (a flow's `start` changes every active flow's share) weighted by how long each epoch
// lasts inside the span. Every per-flow figure that is compared uses it (docs/semantics.md,
// "Epochs").
#pragma once

#include <cstdint>
#include <vector>

#include "qb/suite/compile.hpp"

namespace qb::judge {

struct SpanExpectation {
  std::vector<double> flow_bps;    // per flow instance: time-weighted over the span (wire bit/s)
  std::vector<int64_t> active_ns;  // per flow instance: the part of the span after its start
};

/// Over [from_ns, to_ns), times from time zero (the warm-up's start). An on/off flow that gets
/// all it offers is expected over its on windows inside the span (its clock runs from time
/// zero), not at its long-run mean.
SpanExpectation expectation_over(const suite::CompiledScenario& compiled, int64_t from_ns,
                                 int64_t to_ns);

/// Whether a flow instance starts before `to_ns` (the end of what was measured).
bool started_before(const suite::CompiledScenario& compiled, size_t flow, int64_t to_ns);

}  // namespace qb::judge
