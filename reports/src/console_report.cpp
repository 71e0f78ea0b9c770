#include "qb/reports/console_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "console_units.hpp"
#include "gate_format.hpp"
#include "qb/common/units.hpp"
#include "qb/judge/starvation_verdict.hpp"

namespace qb::report {
namespace {

std::string percent(double ratio) {
  return fmt::format("{:+.3f}%", ratio * 100.0);
}
std::string latency(int64_t ns, uint64_t count) {
  return count == 0 ? std::string("-") : format_duration_ns(static_cast<double>(ns));
}

// Fairness keeps the worst error as a magnitude; the console shows the named row's own sign
// (a flow at -100 % is starved, not oversubscribed).
template <typename Row>
std::string worst_error(const std::vector<Row>& rows, const std::string& name, double magnitude) {
  for (const Row& row : rows) {
    if (row.name == name) return percent(row.error);
  }
  return fmt::format("{:.3f}%", magnitude * 100.0);
}

// Rates in the unit --units picks; latency from the scheduled send time (p50, p99, p99.9: it
// includes waiting behind the flow's earlier messages) and from the actual send time (p99).
// The fifth rate column is 11 wide: under --units mpps its basis is "wire Gbit/s".
constexpr const char* kRowFormat =
    "  {:<20} {:<10} {:>12} {:>12} {:>9} {:>14} {:>11} {:>10} {:>10} {:>10} {:>18}\n";

// Two header lines: what each column is, then its basis and unit (latency: which percentile).
void print_header(std::ostream& out, RateUnit unit) {
  const RateHeader h = rate_header(unit);
  fmt::print(out, "  {:<20} {:<10} {:>12} {:>12} {:>9} {:>14} {:>11} {:>32} {:>18}\n", "flow",
             "leaf", h.expected, h.measured, "error", h.goodput, h.extra,
             "latency from scheduled send", "from actual send");
  fmt::print(out, kRowFormat, "", "", h.expected_basis, h.measured_basis, "", h.goodput_basis,
             h.extra_basis, "p50", "p99", "p99.9", "p99");
}

// `error` is the relative error as text, or why the row is not judged.
void print_row(std::ostream& out, RateUnit unit, const std::string& name, const std::string& leaf,
               double expected_bps, const MeasuredRates& measured, const std::string& error,
               const LatencySummary& lat, const LatencySummary& lat_from_sent) {
  const RateCells cells = rate_cells(unit, expected_bps, measured);
  fmt::print(out, kRowFormat, name, leaf, cells.expected, cells.measured, error, cells.goodput,
             cells.extra, latency(lat.p50_ns, lat.count), latency(lat.p99_ns, lat.count),
             latency(lat.p999_ns, lat.count), latency(lat_from_sent.p99_ns, lat_from_sent.count));
}

template <typename Pick>
std::vector<const FlowResult*> members(const ScenarioResult& s, Pick pick) {
  std::vector<const FlowResult*> out;
  for (const auto& flow : s.flows) {
    if (pick(flow)) out.push_back(&flow);
  }
  return out;
}

// Flows joined during the window (or a DPA program sets rates): when each change settled, and
// the settled figures the share gates use.
void print_convergence(const Convergence& c, std::ostream& out) {
  std::string epochs;
  for (const ConvergenceEpoch& epoch : c.epochs) {
    if (!epochs.empty()) epochs += ", ";
    epochs += fmt::format(
        "{} flows at {}: {}", epoch.active_flows,
        format_duration_ns(static_cast<double>(epoch.start_ns)),
        !epoch.judged     ? std::string("not judged (no whole bin)")
        : epoch.converged ? "settled in " + format_duration_ns(static_cast<double>(epoch.time_ns))
                          : std::string("never settled"));
  }
  fmt::print(out, "  convergence (within {:g}% per bin): {}\n", c.tolerance * 100.0, epochs);
  if (c.converged) {
    fmt::print(out, "  settled from {}: normalised Jain {:.6f}; worst flow error {:.3f}% ({})\n",
               format_duration_ns(static_cast<double>(c.settled_from_ns)), c.jain_settled,
               c.worst_flow_error_settled * 100.0, c.worst_flow_settled);
  }
}

// A lossy fabric's drops and repairs (the simulator's driver stats, mean per repetition); the
// rates above count in-order deliveries only.
void print_lossy(const ScenarioResult& s, std::ostream& out) {
  double drops = -1, nacks = 0, timeouts = 0, again = 0, again_bytes = 0;
  for (const auto& [name, value] : s.driver_stats) {
    if (name == "switch_drops") drops = value;
    if (name == "nacks") nacks = value;
    if (name == "retransmit_timeouts") timeouts = value;
    if (name == "retransmitted_packets") again = value;
    if (name == "retransmitted_wire_bytes") again_bytes = value;
  }
  if (drops < 0) return;  // lossless
  fmt::print(out,
             "  lossy fabric (per repetition): {:.0f} packets dropped at the switch, {:.0f} NACKs, "
             "{:.0f} timer go-backs, {:.0f} packets ({:.0f} wire bytes) sent again; the rates "
             "above are goodput\n",
             drops, nacks, timeouts, again, again_bytes);
}

void print_classes(const ScenarioResult& s, std::ostream& out, RateUnit unit) {
  // Shares are of the port that arbitrates the classes (the switch egress when there is one).
  const RateHeader h = rate_header(unit);
  constexpr const char* kClassFormat =
      "  {:<20} {:>6} {:>9} {:>10} {:>12} {:>12} {:>9} {:>14} {:>10} {:>10}\n";
  fmt::print(out, "  classes:\n");
  fmt::print(out, "  {:<20} {:>6} {:>9} {:>10} {:>12} {:>12} {:>9} {:>14} {:>21}\n", "class",
             "flows", "exp.share", "meas.share", h.expected, h.measured, "error", h.goodput,
             "from scheduled send");
  fmt::print(out, kClassFormat, "", "", "", "", h.expected_basis, h.measured_basis, "",
             h.goodput_basis, "p50", "p99");
  for (const auto& c : s.classes) {
    const MeasuredRates measured =
        sum_rates(members(s, [&](const FlowResult& f) { return f.arb_class == c.name; }));
    // The class's own measured figure stays the one judged (it is the switch's view with a
    // switch); goodput and packets come from its flows.
    MeasuredRates shown = measured;
    shown.wire_bps = c.measured_bps;
    const RateCells cells = rate_cells(unit, c.expected_bps, shown);
    fmt::print(out, kClassFormat, c.name, c.flows, fmt::format("{:.2f}%", c.expected_share * 100.0),
               fmt::format("{:.2f}%", c.measured_share * 100.0), cells.expected, cells.measured,
               percent(c.error), cells.goodput, latency(c.latency.p50_ns, c.latency.count),
               latency(c.latency.p99_ns, c.latency.count));
  }
}

void print_scenario(const ScenarioResult& s, std::ostream& out, const ConsoleOptions& options) {
  const RateUnit unit = options.units;
  fmt::print(out,
             "\nscenario \"{}\": {} {} port, MTU {}, {} x {} after {} warm-up (wire: every byte "
             "on the link, headers and per-packet overhead included; goodput: payload)\n",
             s.name, format_rate_bps(s.capacity_bps), s.transport, s.mtu_bytes,
             s.repetitions_completed, format_duration_ns(static_cast<double>(s.duration_ns)),
             format_duration_ns(static_cast<double>(s.warmup_ns)));
  print_header(out, unit);
  std::vector<size_t> order(s.flows.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (s.flows.size() > options.max_flows) {
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return std::fabs(s.flows[a].error) > std::fabs(s.flows[b].error);
    });
    order.resize(options.worst_flows);
    fmt::print(out, "  ({} flows: the {} with the largest error)\n", s.flows.size(),
               options.worst_flows);
  }
  for (size_t f : order) {
    const auto& flow = s.flows[f];
    print_row(out, unit, flow.name, flow.leaf, flow.expected_bps, measured_rates(flow),
              flow.judged ? percent(flow.error) : std::string("not started"), flow.latency,
              flow.latency_from_sent);
  }
  fmt::print(out, "  groups:\n");
  for (const auto& group : s.groups) {
    MeasuredRates measured =
        sum_rates(members(s, [&](const FlowResult& f) { return f.group == group.name; }));
    measured.wire_bps = group.measured_bps;  // the judged figure
    print_row(out, unit, fmt::format("{} (x{})", group.name, group.flows), group.leaf,
              group.expected_bps, measured,
              group.judged ? percent(group.error) : std::string("not started"), group.latency,
              group.latency_from_sent);
  }
  if (!s.classes.empty()) print_classes(s, out, unit);
  for (const auto& note : s.oracle_notes) fmt::print(out, "  oracle: {}\n", note);
  for (const auto& why : s.shortfalls) fmt::print(out, "  why: {}\n", why);
  fmt::print(out,
             "  fairness: normalised Jain {:.6f}; worst flow error {} ({}); worst group error "
             "{} ({})\n",
             s.fairness.jain,
             worst_error(s.flows, s.fairness.worst_flow, s.fairness.worst_flow_error),
             s.fairness.worst_flow,
             worst_error(s.groups, s.fairness.worst_group, s.fairness.worst_group_error),
             s.fairness.worst_group);
  if (s.convergence.present) print_convergence(s.convergence, out);
  print_lossy(s, out);
  if (!s.gates.empty()) fmt::print(out, "  gates:\n");
  for (const auto& gate : s.gates) {
    if (!gate.judged) {
      fmt::print(out, "    SKIP {:<28} not judged: {}\n", gate.name, gate.detail);
      continue;
    }
    fmt::print(out, "    {} {:<28} {}{}   {}\n", gate.passed ? "PASS" : "FAIL", gate.name,
               format_gate_relation(gate), gate.default_limit ? " (default limit)" : "",
               gate.detail);
  }
}

}  // namespace

void print_console(const Results& results, std::ostream& out, const ConsoleOptions& options) {
  fmt::print(out, "qosbench {}: suite \"{}\" on driver {} (clock: {})\n", results.tool_version,
             results.suite, results.driver, results.clock);
  for (const auto& warning : results.warnings) fmt::print(out, "warning: {}\n", warning);
  for (const auto& scenario : results.scenarios) print_scenario(scenario, out, options);
  // The verdict says what held, what did not and what was not judged (judge/verdict.hpp).
  fmt::print(out, "\n{}{}{} ({:.2f} s)\n", results.verdict.summary,
             results.complete ? "" : "; the run was interrupted, results are incomplete",
             starved_invalid(results)
                 ? "; a worker was starved of CPU (see the warning above): invalid measurement"
                 : "",
             results.wall_seconds);
}

}  // namespace qb::report
