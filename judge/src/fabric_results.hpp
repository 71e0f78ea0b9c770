// A [topology] scenario's links and victims (docs/semantics.md, "Victims"): per channel that
// flows cross, the expected load against the sum of the measured rates of its flows and the
// simulator's own figures (driver_stats "link.<channel>.*"); and the flows that fell short while
// a channel on their path was paused by a switch whose egress towards them was not congested.
#pragma once

#include "qb/judge/results.hpp"
#include "qb/suite/compile.hpp"

namespace qb::judge {

/// Fills out.links and out.victims from out.flows (judged) and out.driver_stats. A flow is short
/// when its error is below -(share_limit + z x noise). Nothing without a plan graph.
void judge_fabric(const suite::CompiledScenario& compiled, double share_limit,
                  ScenarioResult& out);

}  // namespace qb::judge
