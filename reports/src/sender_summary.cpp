#include "qb/reports/sender_summary.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "qb/common/units.hpp"
#include "qb/judge/starvation_verdict.hpp"

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

double at(const std::vector<double>& values, size_t i) {
  return i < values.size() ? values[i] : 0.0;
}

std::string gbit(double bytes, double seconds) {
  return seconds > 0.0 ? fmt::format("{:.3f}", bytes * 8.0 / seconds / 1e9) : std::string("-");
}
std::string mpps(double packets, double seconds) {
  return seconds > 0.0 ? fmt::format("{:.4f}", packets / seconds / 1e6) : std::string("-");
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
    const auto& compiled = scenario.compiled;
    const auto& plan = compiled.plan;
    if (plan.wire.transport == policy::Transport::eth) {
      out.frame_overhead_bytes = plan.wire.per_packet_overhead_bytes();
    }
    for (size_t f = 0; f < plan.flows.size(); ++f) {
      SenderFlowTotals flow;
      flow.name = plan.flows[f].name;
      for (const auto& rep : scenario.reps) {
        if (f >= rep.flows.size()) continue;
        engine::merge_counters(flow.counts, rep.flows[f].counts, engine::CounterSide::sender);
      }
      const double posted = static_cast<double>(flow.counts.posted_messages);
      const double wire = at(compiled.mean_wire_bytes, f);
      const double packet = at(compiled.mean_packet_wire_bytes, f);
      flow.posted_payload_bytes = posted * at(compiled.mean_message_bytes, f);
      flow.posted_wire_bytes = posted * wire;
      flow.posted_packets = packet > 0.0 ? posted * wire / packet : 0.0;
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
    // Rates of what was posted, over the time sent (warm-up included), at each flow's mean
    // message size: what the receiver should see offered.
    // A column for every sender-side counter with a heading (engine/counters.hpp), its unit
    // under it.
    constexpr const char* kFormat = "  {:<24}{} {:>14} {:>12} {:>10}\n";
    const auto counter_cells = [](const auto& cell) {
      std::string cells;
      for (const engine::CounterInfo& counter : engine::kCounters) {
        if (counter.side == engine::CounterSide::sender && !counter.column.empty()) {
          cells += fmt::format(" {:>12}", cell(counter));
        }
      }
      return cells;
    };
    fmt::print(out, kFormat, "flow",
               counter_cells([](const engine::CounterInfo& c) { return c.column; }), "goodput",
               "wire", "packets");
    fmt::print(out, kFormat, "", counter_cells([](const engine::CounterInfo& c) {
                 return engine::counter_unit_name(c.unit);
               }),
               "payload Gbit/s", "wire Gbit/s", "Mpps");
    const double seconds = scenario.sent_seconds;
    for (const SenderFlowTotals& flow : scenario.flows) {
      fmt::print(out, kFormat, flow.name,
                 counter_cells([&](const engine::CounterInfo& c) { return flow.counts.*c.member; }),
                 gbit(flow.posted_payload_bytes, seconds), gbit(flow.posted_wire_bytes, seconds),
                 mpps(flow.posted_packets, seconds));
    }
    const std::optional<double> wire_bps = scenario.tx_wire_bps();
    fmt::print(out,
               "  driver: {:.0f} frames sent ({:.4f} Mpps), {:.0f} frame bytes: goodput {:.3f} "
               "Gbit/s (frame bytes){}\n",
               scenario.tx_frames, scenario.tx_mpps(), scenario.tx_bytes,
               scenario.tx_goodput_bps() / 1e9,
               wire_bps ? fmt::format(", wire {:.3f} Gbit/s (preamble, SFD and inter-frame gap "
                                      "included)",
                                      *wire_bps / 1e9)
                        : std::string());
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
