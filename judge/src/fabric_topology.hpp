// A [topology] scenario's graph into the results (qb/judge/topology_results.hpp): what the
// report draws. Kept apart from the judgement of links and victims (fabric_results.hpp).
#pragma once

#include "qb/judge/results.hpp"
#include "qb/suite/compile.hpp"

namespace qb::judge {

/// Fills out.topology from the plan's graph: every node, every link with its two channels, and
/// per flow (out.flows order) its path with its class at each egress. Nothing without a graph.
void describe_topology(const suite::CompiledScenario& compiled, ScenarioResult& out);

}  // namespace qb::judge
