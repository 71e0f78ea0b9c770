// A fabric job's repetitions merged on rank 0: every rank sends its host's flows and receives
// those destined to it, so each flow's measurement (counters, series, latency) comes from the
// rank that received it and its posted counts from the rank that sent it.
#pragma once

#include <cstdint>
#include <vector>

#include "qb/cluster/host_roles.hpp"
#include "qb/engine/run.hpp"

namespace qb::cluster {

/// One merged outcome per (scenario, repetition) rank 0 ran (by_rank[0]), in its order; a
/// repetition some rank is missing is incomplete. `flows`: per scenario. Driver statistics and
/// clock offsets are left to the caller.
std::vector<engine::RepetitionOutcome> merge_fabric_outcomes(
    std::vector<std::vector<engine::RepetitionOutcome>>& by_rank,
    const std::vector<FabricFlows>& flows);

}  // namespace qb::cluster
