// Lossy mode over a [topology]: whether `retransmit_timeout` outlasts a packet's way. Private to
// qb::suite; called by compile_scenario() once the fabric's graph is built.
#pragma once

#include <vector>

#include "qb/common/warning.hpp"
#include "qb/suite/compile.hpp"

namespace qb::suite::detail {

/// A warning when the timeout is shorter than the longest time one of the flows' packets can
/// take to reach its receiver (propagation and serialisation at every hop, and every switch
/// egress buffer full ahead of it): the simulated sender restarts its timer with every packet
/// and, when it fires, goes back for whatever the receiver lacks, packets still on their way
/// included (spurious retransmissions). Nothing without lossy mode or without a [topology].
void warn_short_retransmit_timeout(const Scenario& scenario, const CompiledScenario& compiled,
                                   std::vector<Warning>& warnings);

}  // namespace qb::suite::detail
