// The port's counter deltas (driver stats "nic.<source>.<name>", per repetition) reconciled
// with the run: the flows' bytes per priority, the suite's ECN, PFC and lossy fabric
// (nic/counter_checks.hpp says each check).
#pragma once

#include <vector>

#include "qb/judge/results.hpp"
#include "qb/suite/compile.hpp"

namespace qb::judge {

/// Empty when the driver read no counters (no "nic.direction" in the driver stats).
std::vector<NicCheckResult> nic_counter_checks(const suite::CompiledScenario& compiled,
                                               const ScenarioResult& scenario);

}  // namespace qb::judge
