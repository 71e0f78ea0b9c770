#include "gate_format.hpp"

#include <fmt/format.h>

#include <cmath>

#include "qb/common/units.hpp"

namespace qb::report {

std::string format_gate_value(const GateResult& gate, double value) {
  if (!std::isfinite(value)) return "n/a";
  if (gate.unit == "ns") return format_duration_ns(value);
  // Share errors and cap overshoots are ratios: a percentage reads at a glance.
  if (gate.name.find("error") != std::string::npos ||
      gate.name.find("overshoot") != std::string::npos) {
    return fmt::format("{:.4f}%", value * 100.0);
  }
  return fmt::format("{:.6f}", value);
}

}  // namespace qb::report
