#include "qb/judge/starvation_verdict.hpp"

#include <fmt/format.h>

#include "qb/common/units.hpp"
#include "qb/engine/starvation.hpp"

namespace qb::judge {

Starvation starvation_of(const engine::ScenarioRun& run) {
  engine::WorkerStarvation worst;
  for (const auto& rep : run.reps) {
    if (rep.ran) worst.keep_worse(rep.starvation);
  }
  Starvation out;
  if (!worst.measured) return out;
  out.present = true;
  out.lost_ns = worst.lost_ns;
  out.run_ns = worst.run_ns;
  out.lost_fraction = worst.lost_fraction();
  out.run_delay_ns = worst.run_delay_ns;
  out.stalled_ns = worst.stalled_ns;
  out.longest_stall_ns = worst.longest_stall_ns;
  out.stalls = worst.stalls;
  out.involuntary_switches = worst.involuntary_switches;
  out.unreliable = out.lost_fraction > engine::kStarvationWarnFraction;
  out.invalid = out.lost_fraction > engine::kStarvationInvalidFraction;
  return out;
}

std::string starvation_message(const std::string& scenario, const Starvation& s) {
  return fmt::format(
      "scenario \"{}\": the worker lost {} of {} ({:.1f} %) to other processes; figures "
      "unreliable ({} stalls, longest {}, {} involuntary context switches; {}: give the "
      "worker a core of its own, see docs/dpdk.md)",
      scenario, format_duration_ns(static_cast<double>(s.lost_ns)),
      format_duration_ns(static_cast<double>(s.run_ns)), 100.0 * s.lost_fraction, s.stalls,
      format_duration_ns(static_cast<double>(s.longest_stall_ns)), s.involuntary_switches,
      s.invalid ? fmt::format("above {:.0f} %, an invalid measurement",
                              100.0 * engine::kStarvationInvalidFraction)
                : fmt::format("above {:.0f} %", 100.0 * engine::kStarvationWarnFraction));
}

bool starved_invalid(const Results& results) {
  for (const auto& scenario : results.scenarios) {
    if (scenario.starvation.invalid) return true;
  }
  return false;
}

}  // namespace qb::judge
