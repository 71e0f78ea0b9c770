// How a gate's value or threshold is written for people (console, JUnit), by the gate's kind:
// durations with units, ratios (share errors, cap overshoots) as percentages, indices as plain
// numbers.
#pragma once

#include <string>

#include "qb/reports/results.hpp"

namespace qb::report {

std::string format_gate_value(const GateResult& gate, double value);

/// The relation that holds between the value and the threshold, then the limit:
/// "5.00 us <= 10.00 us" when the gate passed, "21.98 us > 10.00 us (limit <= 10.00 us)" when it
/// failed; a value that is not a number reads "n/a (limit <= 10.00 us)".
std::string format_gate_relation(const GateResult& gate);

}  // namespace qb::report
