// A gate's kind and bound in the results JSON: their names ("kind": "ratio", "bound":
// "at_most"), and, for files written before the two were fields, how they follow from the gate's
// name and unit as judge gives them. judge.cpp sets both directly; the writer writes them and
// the reader reads them back, deriving them only when a file has neither.
#pragma once

#include <optional>
#include <string_view>

#include "qb/reports/results.hpp"

namespace qb::report {

/// "ratio", "duration", "index", "bytes".
std::string_view gate_kind_name(GateKind kind);
/// The kind `name` names; none for anything else.
std::optional<GateKind> gate_kind_named(std::string_view name);

/// "at_most", "at_least".
std::string_view gate_bound_name(GateBound bound);
/// The bound `name` names; none for anything else.
std::optional<GateBound> gate_bound_named(std::string_view name);

/// For files without "kind": unit "ns": duration; unit "B": bytes; a name with "error" or
/// "overshoot" (share errors, cap overshoot): ratio; else (min_jain and anything unknown): index.
GateKind gate_kind_from_name(std::string_view name, std::string_view unit);

/// For files without "bound": "min_..." gates pass at or above their threshold; every other gate
/// at or below it.
GateBound gate_bound_from_name(std::string_view name);

}  // namespace qb::report
