#include "gate_format.hpp"

#include <fmt/format.h>

#include <cmath>

#include "qb/common/units.hpp"

namespace qb::report {

std::string format_gate_value(const GateResult& gate, double value) {
  if (!std::isfinite(value)) return "n/a";
  switch (gate.kind) {
    case GateKind::duration:
      return format_duration_ns(value);
    case GateKind::ratio:  // share errors and cap overshoots: a percentage reads at a glance
      return fmt::format("{:.4f}%", value * 100.0);
    case GateKind::bytes:
      return fmt::format("{:.0f} B", value);
    case GateKind::index:
      break;
  }
  return fmt::format("{:.6f}", value);
}

std::string format_gate_relation(const GateResult& gate) {
  const bool at_most = gate.bound == GateBound::at_most;
  // No samples: there is no value to set against the limit.
  if (std::isnan(gate.value)) return "no samples";
  // An unbounded limit (convergence_time's default): the rates must settle at all.
  if (!std::isfinite(gate.threshold)) {
    if (gate.passed) return format_gate_value(gate, gate.value) + " (settled)";
    return "never settled";
  }
  const std::string value = format_gate_value(gate, gate.value);
  const std::string threshold = format_gate_value(gate, gate.threshold);
  const std::string limit = fmt::format("{} {}", at_most ? "<=" : ">=", threshold);
  if (gate.passed) return fmt::format("{} {}", value, limit);
  if (!std::isfinite(gate.value)) return fmt::format("{} (limit {})", value, limit);
  // A failed gate's value lies beyond its limit: write the relation that is true.
  return fmt::format("{} {} {} (limit {})", value, at_most ? ">" : "<", threshold, limit);
}

}  // namespace qb::report
