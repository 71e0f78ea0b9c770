// How a gate's value or threshold is written for people (console, JUnit), by the gate's kind:
// durations with units, ratios (share errors, cap overshoots) as percentages, indices as plain
// numbers.
#pragma once

#include <string>

#include "qb/reports/results.hpp"

namespace qb::report {

std::string format_gate_value(const GateResult& gate, double value);

}  // namespace qb::report
