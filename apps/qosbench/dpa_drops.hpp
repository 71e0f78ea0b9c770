// An overloaded DPA in a run (dpa/emulator/include/qb/dpa/overload.hpp): per scenario, the
// worst repetition's drops become a warning in the results, and past the bound an invalid
// measurement (exit 3), as a starved worker's lost time does.
#pragma once

#include <vector>

#include "qb/common/warning.hpp"
#include "qb/engine/run.hpp"

namespace qb::cli {

/// Adds a warning per scenario whose DPA dropped more than dpa::kDropWarnFraction of its
/// events; true when one dropped more than dpa::kDropInvalidFraction (an invalid measurement).
bool warn_dpa_drops(const engine::SuiteRun& run, std::vector<Warning>& warnings);

}  // namespace qb::cli
