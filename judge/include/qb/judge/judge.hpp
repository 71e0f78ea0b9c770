// Judge: compare what was measured (engine::measure) with what the policy should give, per flow,
// group, class and tree element; the normalised Jain index; every gate of the suite.
#pragma once

#include <vector>

#include "qb/common/result.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/results.hpp"
#include "qb/judge/run_metadata.hpp"
#include "qb/suite/suite.hpp"

namespace qb::judge {

/// A congestion-control program's convergence is not its own when the lossless fabric paused
/// a sender more than this fraction of the window (docs/semantics.md, "Back-pressure").
inline constexpr double kBackpressureHeldFraction = 0.05;

/// Errc::invalid_measurement when a complete run delivered nothing at all.
Result<Results> judge_run(const suite::Suite& suite, const engine::SuiteRun& run,
                          const engine::SuiteMeasurement& measurement, const RunMetadata& metadata);

/// Normalised Jain index over ratios x_i (1 when all equal; 1/n when one flow gets everything).
double jain_index(const std::vector<double>& ratios) noexcept;

}  // namespace qb::judge
