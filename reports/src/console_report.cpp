#include "qb/reports/console_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "console_units.hpp"
#include "gate_format.hpp"
#include "fabric_view.hpp"
#include "nic_counters_view.hpp"
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

// Rates in the unit --units picks (latency has its own table, print_latency).
// The fifth rate column is 11 wide: under --units mpps its basis is "wire Gbit/s".
constexpr const char* kRowFormat = "  {:<20} {:<10} {:>12} {:>12} {:>9} {:>14} {:>11}\n";

// Two header lines: what each column is, then its basis and unit.
void print_header(std::ostream& out, RateUnit unit) {
  const RateHeader h = rate_header(unit);
  fmt::print(out, kRowFormat, "flow", "leaf", h.expected, h.measured, "error", h.goodput, h.extra);
  fmt::print(out, kRowFormat, "", "", h.expected_basis, h.measured_basis, "", h.goodput_basis,
             h.extra_basis);
}

// `error` is the relative error as text, or why the row is not judged.
void print_row(std::ostream& out, RateUnit unit, const std::string& name, const std::string& leaf,
               double expected_bps, const MeasuredRates& measured, const std::string& error) {
  const RateCells cells = rate_cells(unit, expected_bps, measured);
  fmt::print(out, kRowFormat, name, leaf, cells.expected, cells.measured, error, cells.goodput,
             cells.extra);
}

// ---------------------------------------------------------------------------------------------
// Latency, like perftest: min / mean / stdev beside the percentiles, each column in one unit
// (named in the header) so a column reads down; "≥" marks a lower bound (messages outstanding
// at the window's end are older than it: a stuck flow reads as stuck, not as a short tail).

struct LatencyRow {
  std::string name;
  const LatencySummary* sched;  // from the scheduled send time
  const LatencySummary* sent;   // from the actual send time
};

// One unit for a column: the largest in which its largest figure is at least 1.
struct TimeUnit {
  const char* name;
  double ns;
};
TimeUnit unit_for(double largest_ns) {
  if (largest_ns >= 1e9) return {"s", 1e9};
  if (largest_ns >= 1e6) return {"ms", 1e6};
  if (largest_ns >= 1e3) return {"us", 1e3};
  return {"ns", 1.0};
}

// Four significant digits (a 3-digit histogram is exact to 0.1 %), no exponent.
std::string in_unit(double ns, TimeUnit unit, bool at_least = false) {
  if (!std::isfinite(ns)) return "-";
  const double v = ns / unit.ns;
  const double magnitude = std::fabs(v);
  const int decimals = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 10 ? 2 : 3;
  return fmt::format("{}{:.{}f}", at_least ? "≥" : "", v, unit.ns == 1.0 ? 0 : decimals);
}

// Columns: figure (of the row's summaries), censored flag, whether the row has it.
enum class LatencyColumn { min, mean, stdev, p50, p99, p999, sent_p99, oldest, count };

double figure(const LatencyRow& row, LatencyColumn c) {
  const LatencySummary& l = *row.sched;
  switch (c) {
    case LatencyColumn::min:
      return static_cast<double>(l.min_ns);
    case LatencyColumn::mean:
      return l.mean_ns;
    case LatencyColumn::stdev:
      return l.stdev_ns;
    case LatencyColumn::p50:
      return static_cast<double>(l.p50_ns);
    case LatencyColumn::p99:
      return static_cast<double>(l.p99_ns);
    case LatencyColumn::p999:
      return static_cast<double>(l.p999_ns);
    case LatencyColumn::sent_p99:
      return static_cast<double>(row.sent->p99_ns);
    case LatencyColumn::oldest:
      return static_cast<double>(l.oldest_outstanding_ns);
    case LatencyColumn::count:
      break;
  }
  return 0.0;
}

bool shown(const LatencyRow& row, LatencyColumn c) {
  if (c == LatencyColumn::oldest) return row.sched->outstanding != 0;
  if (c == LatencyColumn::sent_p99) return row.sent->count != 0;
  return row.sched->count != 0;
}

bool at_least(const LatencySummary& l, LatencyColumn c) {
  switch (c) {
    case LatencyColumn::p50:
      return l.censored.p50;
    case LatencyColumn::p99:
      return l.censored.p99;
    case LatencyColumn::p999:
      return l.censored.p999;
    default:
      return false;
  }
}

constexpr const char* kLatencyFormat =
    "  {:<20} {:>7} {:>9} {:>9} {:>9} {:>10} {:>10} {:>10} {:>9} {:>12} {:>10}\n";
constexpr size_t kLatencyColumns = static_cast<size_t>(LatencyColumn::count);

void print_latency(std::ostream& out, const std::vector<LatencyRow>& flows,
                   const std::vector<LatencyRow>& groups) {
  std::array<TimeUnit, kLatencyColumns> units{};
  for (size_t c = 0; c < kLatencyColumns; ++c) {
    double largest = 0.0;
    for (const auto* rows : {&flows, &groups}) {
      for (const LatencyRow& row : *rows) {
        const double v = figure(row, static_cast<LatencyColumn>(c));
        if (shown(row, static_cast<LatencyColumn>(c)) && std::isfinite(v)) {
          largest = std::max(largest, std::fabs(v));
        }
      }
    }
    units[c] = unit_for(largest);
  }
  const auto basis = [&](const char* from, LatencyColumn c) {
    return fmt::format("{} {}", from, units[static_cast<size_t>(c)].name);
  };
  fmt::print(out,
             "  latency (sched: from the scheduled send time, waiting behind the flow's earlier "
             "messages included; sent: from the actual send time; ≥: a lower bound)\n");
  fmt::print(out, kLatencyFormat, "flow", "depth", "min", "mean", "stdev", "p50", "p99", "p99.9",
             "p99", "outstanding", "oldest");
  fmt::print(out, kLatencyFormat, "", "per QP", basis("sched", LatencyColumn::min),
             basis("sched", LatencyColumn::mean), basis("sched", LatencyColumn::stdev),
             basis("sched", LatencyColumn::p50), basis("sched", LatencyColumn::p99),
             basis("sched", LatencyColumn::p999), basis("sent", LatencyColumn::sent_p99), "at end",
             basis("age", LatencyColumn::oldest));
  const auto print = [&](const LatencyRow& row) {
    std::array<std::string, kLatencyColumns> cells;
    for (size_t c = 0; c < kLatencyColumns; ++c) {
      const auto column = static_cast<LatencyColumn>(c);
      cells[c] = shown(row, column)
                     ? in_unit(figure(row, column), units[c], at_least(*row.sched, column))
                     : "-";
    }
    const LatencySummary& l = *row.sched;
    fmt::print(out, kLatencyFormat, row.name,
               l.outstanding_limit != 0 ? std::to_string(l.outstanding_limit) : "-", cells[0],
               cells[1], cells[2], cells[3], cells[4], cells[5], cells[6],
               l.outstanding != 0 ? std::to_string(l.outstanding) : "-", cells[7]);
  };
  for (const LatencyRow& row : flows) print(row);
  fmt::print(out, "  groups:\n");
  for (const LatencyRow& row : groups) print(row);
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
  if (nothing_measured(s)) {
    fmt::print(out, "  {}\n", kNothingMeasured);
    return;
  }
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
  std::vector<LatencyRow> flow_latency, group_latency;
  for (size_t f : order) {
    const auto& flow = s.flows[f];
    print_row(out, unit, flow.name, flow.leaf, flow.expected_bps, measured_rates(flow),
              flow.judged ? percent(flow.error) : std::string("not started"));
    flow_latency.push_back({flow.name, &flow.latency, &flow.latency_from_sent});
  }
  fmt::print(out, "  groups:\n");
  for (const auto& group : s.groups) {
    MeasuredRates measured =
        sum_rates(members(s, [&](const FlowResult& f) { return f.group == group.name; }));
    measured.wire_bps = group.measured_bps;  // the judged figure
    const std::string name = fmt::format("{} (x{})", group.name, group.flows);
    print_row(out, unit, name, group.leaf, group.expected_bps, measured,
              group.judged ? percent(group.error) : std::string("not started"));
    group_latency.push_back({name, &group.latency, &group.latency_from_sent});
  }
  print_latency(out, flow_latency, group_latency);
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
  print_nic_counters(s, out);
  print_fabric(s, out);
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
