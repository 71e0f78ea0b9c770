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
    case GateKind::index:
      break;
  }
  return fmt::format("{:.6f}", value);
}

}  // namespace qb::report
