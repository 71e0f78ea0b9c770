// An overloaded DPA's verdict (qb/dpa/overload.hpp).
#include "qb/dpa/overload.hpp"

#include <fmt/format.h>

namespace qb::dpa {
namespace {

DpaDrops drops_with_prefix(std::span<const std::pair<std::string, double>> stats,
                           std::string_view prefix) {
  DpaDrops drops;
  for (const auto& [name, value] : stats) {
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string_view rest = std::string_view(name).substr(prefix.size());
    const auto count = value > 0 ? static_cast<uint64_t>(value) : uint64_t{0};
    if (rest == "events") {
      drops.present = true;
      drops.handled = count;
    } else if (rest == "dropped_events") {
      drops.present = true;
      drops.dropped = count;
    }
  }
  return drops;
}

}  // namespace

DpaDrops dpa_drops_of(std::span<const std::pair<std::string, double>> driver_stats) {
  DpaDrops worst = drops_with_prefix(driver_stats, "dpa_");
  DpaDrops receiver = drops_with_prefix(driver_stats, "receiver_dpa_");
  receiver.receiver = true;
  worst.keep_worse(receiver);
  return worst;
}

std::string dpa_drops_message(std::string_view scenario, const DpaDrops& drops) {
  return fmt::format(
      "scenario \"{}\": the {} DPA dropped {} of {} events ({:.1f} %): its threads were full, so "
      "the program missed what it reacts to; figures unreliable ({}: give it more [dpa] threads "
      "or queue_events, a shorter handler_cost or a longer tx_sample_interval, see docs/dpa.md)",
      scenario, drops.receiver ? "receiver's" : "senders'", drops.dropped,
      drops.handled + drops.dropped, 100.0 * drops.dropped_fraction(),
      drops.invalid()
          ? fmt::format("above {:.0f} %, an invalid measurement", 100.0 * kDropInvalidFraction)
          : fmt::format("above {:.0f} %", 100.0 * kDropWarnFraction));
}

}  // namespace qb::dpa
