#include "qb/reports/console_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "gate_format.hpp"
#include "qb/common/units.hpp"

namespace qb::report {
namespace {

std::string gbps(double bps) {
  return fmt::format("{:.3f}", bps / 1e9);
}
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

constexpr const char* kRowFormat = "  {:<20} {:<10} {:>12} {:>12} {:>9} {:>10} {:>10} {:>10}\n";

void print_row(std::ostream& out, const std::string& name, const std::string& leaf,
               double expected_bps, double measured_bps, double error, const LatencySummary& lat) {
  fmt::print(out, kRowFormat, name, leaf, gbps(expected_bps), gbps(measured_bps), percent(error),
             latency(lat.p50_ns, lat.count), latency(lat.p99_ns, lat.count),
             latency(lat.p999_ns, lat.count));
}

void print_scenario(const ScenarioResult& s, std::ostream& out, const ConsoleOptions& options) {
  fmt::print(out,
             "\nscenario \"{}\": {} {} port, MTU {}, {} x {} after {} warm-up (rates: Gbit/s "
             "of wire bytes)\n",
             s.name, format_rate_bps(s.capacity_bps), s.transport, s.mtu_bytes,
             s.repetitions_completed, format_duration_ns(static_cast<double>(s.duration_ns)),
             format_duration_ns(static_cast<double>(s.warmup_ns)));
  fmt::print(out, kRowFormat, "flow", "leaf", "expected", "measured", "error", "p50", "p99",
             "p99.9");
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
    print_row(out, flow.name, flow.leaf, flow.expected_bps, flow.measured_bps, flow.error,
              flow.latency);
  }
  fmt::print(out, "  groups:\n");
  for (const auto& group : s.groups) {
    print_row(out, fmt::format("{} (x{})", group.name, group.flows), group.leaf, group.expected_bps,
              group.measured_bps, group.error, group.latency);
  }
  if (!s.classes.empty()) {
    // Shares are of the port that arbitrates the classes (the switch egress when there is one).
    fmt::print(out, "  classes:\n");
    fmt::print(out, "  {:<20} {:>6} {:>9} {:>9} {:>12} {:>12} {:>9} {:>10} {:>10}\n", "class",
               "flows", "exp.share", "meas.share", "expected", "measured", "error", "p50", "p99");
    for (const auto& c : s.classes) {
      fmt::print(out, "  {:<20} {:>6} {:>8.2f}% {:>9.2f}% {:>12} {:>12} {:>9} {:>10} {:>10}\n",
                 c.name, c.flows, c.expected_share * 100.0, c.measured_share * 100.0,
                 gbps(c.expected_bps), gbps(c.measured_bps), percent(c.error),
                 latency(c.latency.p50_ns, c.latency.count),
                 latency(c.latency.p99_ns, c.latency.count));
    }
  }
  for (const auto& note : s.oracle_notes) fmt::print(out, "  oracle: {}\n", note);
  fmt::print(out,
             "  fairness: normalised Jain {:.6f}; worst flow error {} ({}); worst group error "
             "{} ({})\n",
             s.fairness.jain,
             worst_error(s.flows, s.fairness.worst_flow, s.fairness.worst_flow_error),
             s.fairness.worst_flow,
             worst_error(s.groups, s.fairness.worst_group, s.fairness.worst_group_error),
             s.fairness.worst_group);
  if (!s.gates.empty()) fmt::print(out, "  gates:\n");
  for (const auto& gate : s.gates) {
    fmt::print(out, "    {} {:<28} {} {} {}   {}\n", gate.passed ? "PASS" : "FAIL", gate.name,
               format_gate_value(gate, gate.value), gate.bound == GateBound::at_least ? ">=" : "<=",
               format_gate_value(gate, gate.threshold), gate.detail);
  }
}

}  // namespace

void print_console(const Results& results, std::ostream& out, const ConsoleOptions& options) {
  fmt::print(out, "qosbench {}: suite \"{}\" on driver {} (clock: {})\n", results.tool_version,
             results.suite, results.driver, results.clock);
  for (const auto& warning : results.warnings) fmt::print(out, "warning: {}\n", warning);
  for (const auto& scenario : results.scenarios) print_scenario(scenario, out, options);
  size_t gates = 0, failed = 0;
  for (const auto& scenario : results.scenarios) {
    gates += scenario.gates.size();
    for (const auto& gate : scenario.gates) failed += gate.passed ? 0 : 1;
  }
  fmt::print(out, "\n{}: {} of {} gates passed{} ({:.2f} s)\n",
             results.passed ? "PASSED" : "FAILED", gates - failed, gates,
             results.complete ? "" : "; the run was interrupted, results are incomplete",
             results.wall_seconds);
}

}  // namespace qb::report
