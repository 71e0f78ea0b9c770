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
  // No delivered message: there is no value to set against the limit.
  if (std::isnan(gate.value) && gate.name.starts_with("latency.")) return "no samples";
  if (gate.name == "convergence_time") {
    // Never settling is +inf (null in a file); convergence_time's default limit is +inf too:
    // the rates must settle before the next change, however long that takes.
    if (!std::isfinite(gate.value)) {
      return std::isfinite(gate.threshold)
                 ? "never settled (limit " + format_gate_value(gate, gate.threshold) + ")"
                 : "never settled";
    }
    if (!std::isfinite(gate.threshold)) {
      return format_gate_value(gate, gate.value) +
             (gate.passed ? " (settled)" : " (settled, but see the detail)");
    }
  }
  const std::string value = format_gate_value(gate, gate.value);
  // A share judgement passes within its limit plus the sampling noise it allows for.
  const std::string threshold =
      format_gate_value(gate, gate.threshold) +
      (gate.allowance > 0.0 ? fmt::format(" {} {} noise", at_most ? "+" : "-",
                                          format_gate_value(gate, gate.allowance))
                            : "");
  const std::string limit = fmt::format("{} {}", at_most ? "<=" : ">=", threshold);
  if (gate.passed) return fmt::format("{} {}", value, limit);
  if (!std::isfinite(gate.value)) return fmt::format("{} (limit {})", value, limit);
  // A failed gate's value lies beyond its limit: write the relation that is true.
  return fmt::format("{} {} {} (limit {})", value, at_most ? ">" : "<", threshold, limit);
}

}  // namespace qb::report
