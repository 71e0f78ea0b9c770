// Convergence of the flows' rates on their shares (results.hpp, Convergence): judged on the
// per-flow time series against the oracle's expectation for each set of active flows
// (suite::CompiledScenario::epochs). Kept apart from judge.cpp: it is the only judging that
// looks at time.
#pragma once

#include "qb/judge/results.hpp"
#include "qb/suite/compile.hpp"

namespace qb::judge {

/// Fills out.convergence from out.flows' series_bps (bins of out.bin_ns from out.warmup_ns)
/// when the scenario has flows starting at different times or a DPA program; else leaves it
/// absent.
void judge_convergence(const suite::CompiledScenario& compiled, double tolerance,
                       ScenarioResult& out);

}  // namespace qb::judge
