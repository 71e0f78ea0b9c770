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
///   "offered_bps","offered_payload_bps","offered_pps","mean_wire_bytes","mean_payload_bytes",
///   "mean_packet_wire_bytes","expected_bps","expected_payload_bps","expected_pps"}]}]}
/// (*_bps without "payload": wire bit/s; *_pps: packets/s at the mean packet size)
/// With classes (QosPlan::has_classes): per flow also "host","tclass","dscp","sl","priority",
/// "arb_class","class_note"; per scenario "classes":[{"name","flows","expected_bps",
/// "expected_share"}] and "oracle_notes":[...].
std::string explain_json(const suite::Suite& suite,
                         const std::vector<suite::CompiledScenario>& compiled);

void print_explain(const suite::Suite& suite, const std::vector<suite::CompiledScenario>& compiled,
                   std::ostream& out);

/// The model choices behind the expectations, named as reference/qos-semantics.md asks.
std::vector<std::string> model_choices(const suite::CompiledScenario& compiled);

}  // namespace qb::report
