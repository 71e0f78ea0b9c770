// `qosbench explain`: the compiled plan and every flow's expected rate, without running.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "qb/suite/compile.hpp"
#include "qb/suite/suite.hpp"

namespace qb::report {

/// {"schema":"qosbench.explain/1","suite",...,"scenarios":[{"name","capacity_bps","rate_basis",
///   "wire":{...},"model_choices":[...],"tree":[...],"flows":[{"name","group","leaf",
///   "offered_bps","expected_bps"}]}]}
/// With classes (plan_has_classes): per flow also "host","tclass","dscp","sl","priority",
/// "arb_class","class_note"; per scenario "classes":[{"name","flows","expected_bps",
/// "expected_share"}] and "oracle_notes":[...].
std::string explain_json(const suite::Suite& suite,
                         const std::vector<suite::CompiledScenario>& compiled);

void print_explain(const suite::Suite& suite,
                   const std::vector<suite::CompiledScenario>& compiled, std::ostream& out);

/// Whether results and explain show per-class figures: the NIC or the switch arbitrates between
/// classes, or several hosts send. Without it every output is as before classes existed.
bool plan_has_classes(const policy::QosPlan& plan);
/// The port whose classes decide the shares: the switch egress when switched, else the NIC.
const policy::PortQos& class_port_qos(const policy::QosPlan& plan);
/// A flow's class at that port (switch_arb_class when switched, else arb_class).
uint32_t class_of_flow(const policy::QosPlan& plan, const policy::FlowPlan& flow);
/// That port's capacity: the switch egress rate, or the NIC line rate times the hosts.
double class_port_capacity_bps(const policy::QosPlan& plan);

/// The model choices behind the expectations, named as reference/qos-semantics.md asks.
std::vector<std::string> model_choices(const suite::CompiledScenario& compiled);

}  // namespace qb::report
