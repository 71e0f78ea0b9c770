// How a gate's value or threshold is written for people (console, JUnit): durations with units,
// share errors and cap overshoots as percentages, other figures as plain numbers.
#pragma once

#include <string>

#include "qb/reports/results.hpp"

namespace qb::report {

std::string format_gate_value(const GateResult& gate, double value);

}  // namespace qb::report
