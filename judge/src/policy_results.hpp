// The QoS policy as the results carry it for reports: each arbitrating port's tables (ETS,
// SL2VL + VLArb) and, with several hosts, the scheduling tree of each host's NIC.
#pragma once

#include <vector>

#include "qb/judge/results.hpp"
#include "qb/suite/compile.hpp"

namespace qb::judge {

/// One element of a scheduling tree as the results carry it, with its rates (wire bit/s).
ElementResult element_result(const policy::SchedTree& tree, size_t element, double demand_bps,
                             double expected_bps, double measured_bps);

/// The NIC port and, when the fabric has a switch, its egress port, each only when it
/// arbitrates between classes (ETS or VLArb); empty otherwise.
std::vector<PortArbitrationResult> arbitration_results(const policy::QosPlan& plan);

/// One tree per sending host when the plan has more than one, from that host's flows (their
/// expected and measured rates in `flows`, in plan order); empty with one host.
std::vector<HostTreeResult> host_tree_results(const suite::CompiledScenario& compiled,
                                              const std::vector<FlowResult>& flows);

}  // namespace qb::judge
