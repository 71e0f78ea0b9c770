// A gate's kind and bound for results read from a file: the results JSON names each gate but
// does not carry either (qosbench.results/1 stays as it was), so they follow from the name and
// unit judge gives it. judge.cpp sets both directly; this is for the reader only.
#pragma once

#include <string_view>

#include "qb/reports/results.hpp"

namespace qb::report {

/// unit "ns": duration; a name with "error" or "overshoot" (share errors, cap overshoot):
/// ratio; else (min_jain and anything unknown): index.
GateKind gate_kind_from_name(std::string_view name, std::string_view unit);

/// "min_..." gates pass at or above their threshold; every other gate at or below it.
GateBound gate_bound_from_name(std::string_view name);

}  // namespace qb::report
