#include "qb/reports/sender_summary.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "qb/common/units.hpp"
#include "qb/reports/starvation_verdict.hpp"

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

std::vector<SenderScenarioTotals> sender_totals(const engine::SuiteRun& run) {
  std::vector<SenderScenarioTotals> totals;
  for (const auto& scenario : run.scenarios) {
    SenderScenarioTotals out;
    out.name = scenario.compiled.scenario->name;
    out.repetition_ns = scenario.warmup_ns + scenario.duration_ns;
    for (const auto& rep : scenario.reps) {
      if (!rep.ran) continue;
      ++out.repetitions_ran;
      // An interrupted repetition ran for less than the suite asked: its wall time instead.
      out.sent_seconds +=
          rep.complete ? static_cast<double>(out.repetition_ns) / 1e9 : rep.wall_seconds;
    }
    out.starvation = starvation_of(scenario);
    out.tx_frames = driver_stat(scenario, "tx_packets");
    out.tx_bytes = driver_stat(scenario, "tx_frame_bytes");
    const auto& plan = scenario.compiled.plan;
    for (size_t f = 0; f < plan.flows.size(); ++f) {
      SenderFlowTotals flow{plan.flows[f].name, 0, 0};
      for (const auto& rep : scenario.reps) {
        if (f >= rep.flows.size()) continue;
        flow.posted_messages += rep.flows[f].posted_messages;
        flow.late_posts += rep.flows[f].late_posts;
      }
      out.flows.push_back(std::move(flow));
    }
    totals.push_back(std::move(out));
  }
  return totals;
}

void print_sender_summary(const engine::SuiteRun& run, std::ostream& out) {
  fmt::print(out,
             "sender only (driver {}, clock {}): nothing is received here, so nothing is "
             "judged; the receiver measures the flows\n",
             run.driver, run.clock);
  for (const SenderScenarioTotals& scenario : sender_totals(run)) {
    fmt::print(out, "\nscenario \"{}\": {} repetition(s) of {} (warm-up included)\n", scenario.name,
               scenario.repetitions_ran,
               format_duration_ns(static_cast<double>(scenario.repetition_ns)));
    fmt::print(out, "  {:<24} {:>14} {:>12}\n", "flow", "posted", "late posts");
    for (const SenderFlowTotals& flow : scenario.flows) {
      fmt::print(out, "  {:<24} {:>14} {:>12}\n", flow.name, flow.posted_messages, flow.late_posts);
    }
    fmt::print(out, "  driver: {:.0f} frames sent ({:.3f} Mpps), {:.0f} bytes\n",
               scenario.tx_frames, scenario.tx_mpps(), scenario.tx_bytes);
    if (scenario.starvation.unreliable) {
      fmt::print(out, "warning: {}\n", starvation_message(scenario.name, scenario.starvation));
    }
  }
}

bool sender_starved_invalid(const engine::SuiteRun& run) {
  for (const auto& scenario : run.scenarios) {
    if (starvation_of(scenario).invalid) return true;
  }
  return false;
}

}  // namespace qb::report
