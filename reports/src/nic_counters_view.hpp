// The port's counters in the console and the HTML report: the deltas the driver read
// (driver stats "nic.<source>.<name>", per repetition) and the reconciliation checks.
#pragma once

#include <ostream>

#include "qb/judge/results.hpp"
#include "svg_builder.hpp"

namespace qb::report {

/// "  NIC counters (per repetition): ..." and one line per check; nothing when none were read.
void print_nic_counters(const judge::ScenarioResult& s, std::ostream& out);

namespace html {
/// A <details> with the checks and the non-zero deltas; nothing when none were read.
void nic_counters_section(Markup& m, const judge::ScenarioResult& s);
}  // namespace html

}  // namespace qb::report
