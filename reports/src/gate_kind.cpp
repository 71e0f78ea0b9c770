#include "gate_kind.hpp"

#include <array>
#include <utility>

namespace qb::report {
namespace {

constexpr std::array kKindNames{
    std::pair{GateKind::ratio, std::string_view("ratio")},
    std::pair{GateKind::duration, std::string_view("duration")},
    std::pair{GateKind::index, std::string_view("index")},
    std::pair{GateKind::bytes, std::string_view("bytes")},
};

constexpr std::array kBoundNames{
    std::pair{GateBound::at_most, std::string_view("at_most")},
    std::pair{GateBound::at_least, std::string_view("at_least")},
};

template <class Enum, size_t N>
std::string_view name_of(const std::array<std::pair<Enum, std::string_view>, N>& names,
                         Enum value) {
  for (const auto& [item, name] : names) {
    if (item == value) return name;
  }
  return "unknown";
}

template <class Enum, size_t N>
std::optional<Enum> named(const std::array<std::pair<Enum, std::string_view>, N>& names,
                          std::string_view name) {
  for (const auto& [item, item_name] : names) {
    if (item_name == name) return item;
  }
  return std::nullopt;
}

}  // namespace

std::string_view gate_kind_name(GateKind kind) {
  return name_of(kKindNames, kind);
}

std::optional<GateKind> gate_kind_named(std::string_view name) {
  return named(kKindNames, name);
}

std::string_view gate_bound_name(GateBound bound) {
  return name_of(kBoundNames, bound);
}

std::optional<GateBound> gate_bound_named(std::string_view name) {
  return named(kBoundNames, name);
}

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
