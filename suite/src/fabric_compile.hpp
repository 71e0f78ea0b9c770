// A [topology] scenario's fabric: routes, the plan's graph (policy::FabricPlan) and the
// expectation across its bottlenecks (qb::fabric). Private to qb::suite; called by
// compile_scenario() once every flow instance has its classes.
#pragma once

#include <span>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/traffic.hpp"
#include "qb/suite/compile.hpp"

namespace qb::suite::detail {

/// Routes `endpoints` (one per plan flow), fills compiled.plan.graph and hosts, and the
/// expectation (compiled.expected: per flow, per tree element summed over the hosts).
/// Errors: a flow no route reaches, a bad forwarding table (at the topology's keys).
Status compile_fabric(const Scenario& scenario, std::span<const fabric::FlowEndpoints> endpoints,
                      CompiledScenario& compiled);

/// The expectation with `offered_bps` (per flow; 0: not started): per flow, wire bit/s.
std::vector<double> fabric_expected_bps(const CompiledScenario& compiled,
                                        std::span<const double> offered_bps);

}  // namespace qb::suite::detail
