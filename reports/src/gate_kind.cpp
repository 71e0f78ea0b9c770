#include "gate_kind.hpp"

namespace qb::report {

GateKind gate_kind_from_name(std::string_view name, std::string_view unit) {
  if (unit == "ns") return GateKind::duration;
  if (unit == "B") return GateKind::bytes;
  if (name.find("error") != std::string_view::npos ||
      name.find("overshoot") != std::string_view::npos) {
    return GateKind::ratio;
  }
  return GateKind::index;
}

GateBound gate_bound_from_name(std::string_view name) {
  return name.starts_with("min_") ? GateBound::at_least : GateBound::at_most;
}

}  // namespace qb::report
