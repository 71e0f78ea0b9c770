#include "qb/reports/sender_summary.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "qb/common/units.hpp"

namespace qb::report {
namespace {

// Summed over the repetitions that ran (a counter the driver did not report sums to 0).
double driver_stat(const engine::ScenarioRun& scenario, const std::string& key) {
  double total = 0.0;
  for (const auto& rep : scenario.reps) {
    for (const auto& [name, value] : rep.driver_stats) {
      if (name == key) total += value;
    }
  }
  return total;
}

}  // namespace

void print_sender_summary(const engine::SuiteRun& run, std::ostream& out) {
  fmt::print(out,
             "sender only (driver {}, clock {}): nothing is received here, so nothing is "
             "judged; the receiver measures the flows\n",
             run.driver, run.clock);
  for (const auto& scenario : run.scenarios) {
    uint32_t ran = 0;
    double seconds = 0.0;
    for (const auto& rep : scenario.reps) {
      if (!rep.ran) continue;
      ++ran;
      // An interrupted repetition ran for less than the suite asked: its wall time instead.
      seconds += rep.complete ? static_cast<double>(scenario.warmup_ns + scenario.duration_ns) / 1e9
                              : rep.wall_seconds;
    }
    const double tx_packets = driver_stat(scenario, "tx_packets");
    fmt::print(out, "\nscenario \"{}\": {} repetition(s) of {} (warm-up included)\n",
               scenario.compiled.scenario->name, ran,
               format_duration_ns(static_cast<double>(scenario.warmup_ns + scenario.duration_ns)));
    fmt::print(out, "  {:<24} {:>14} {:>12}\n", "flow", "posted", "late posts");
    const auto& plan = scenario.compiled.plan;
    for (size_t f = 0; f < plan.flows.size(); ++f) {
      uint64_t posted = 0;
      uint64_t late = 0;
      for (const auto& rep : scenario.reps) {
        if (f >= rep.flows.size()) continue;
        posted += rep.flows[f].posted_messages;
        late += rep.flows[f].late_posts;
      }
      fmt::print(out, "  {:<24} {:>14} {:>12}\n", plan.flows[f].name, posted, late);
    }
    fmt::print(out, "  driver: {:.0f} frames sent ({:.3f} Mpps), {:.0f} bytes\n", tx_packets,
               seconds > 0.0 ? tx_packets / seconds / 1e6 : 0.0,
               driver_stat(scenario, "tx_frame_bytes"));
  }
}

}  // namespace qb::report
