#include "convergence.hpp"

#include <algorithm>
#include <cmath>

#include "qb/judge/judge.hpp"

namespace qb::judge {
namespace {

bool within(double measured, double expected, double tolerance) noexcept {
  return std::fabs(measured / expected - 1.0) <= tolerance;
}

}  // namespace

void judge_convergence(const suite::CompiledScenario& compiled, double tolerance,
                       ScenarioResult& out) {
  std::vector<suite::ExpectationEpoch> epochs = compiled.epochs;
  if (epochs.empty()) {
    if (compiled.plan.congestion.dpa.program.empty()) return;
    epochs.push_back(suite::ExpectationEpoch{0, compiled.expected.flow_bps});
  }
  Convergence& c = out.convergence;
  c.present = true;
  c.tolerance = tolerance;
  const int64_t bin_ns = std::max<int64_t>(out.bin_ns, 1);
  // The window's last bin is left out: it ends with the run, and the packets still on their way
  // then (at the receiver a few microseconds later) fall out of it, so it reads low.
  size_t bins = out.flows.empty() ? 0 : out.flows.front().series_bps.size();
  if (bins > 2) --bins;
  const int64_t window_end_ns = out.warmup_ns + static_cast<int64_t>(bins) * bin_ns;

  size_t settled_bin = bins;  // of the last judged epoch
  bool any_judged = false;
  bool all_converged = true;
  for (size_t e = 0; e < epochs.size(); ++e) {
    const suite::ExpectationEpoch& epoch = epochs[e];
    const int64_t end_ns = e + 1 < epochs.size() ? epochs[e + 1].start_ns : window_end_ns;
    ConvergenceEpoch result;
    result.start_ns = epoch.start_ns;
    settled_bin = bins;  // only this epoch's settled bins count for the settled figures
    for (const double expected : epoch.flow_bps) result.active_flows += expected > 0.0 ? 1 : 0;
    // Whole bins inside [start, end) of the measured window.
    const int64_t first =
        std::max<int64_t>(0, (epoch.start_ns - out.warmup_ns + bin_ns - 1) / bin_ns);
    const int64_t last = std::min<int64_t>(static_cast<int64_t>(bins),
                                           (end_ns - out.warmup_ns) / bin_ns);  // exclusive
    if (first < last) {
      result.judged = true;
      any_judged = true;
      // Walk back from the epoch's last bin while every active flow is within tolerance.
      int64_t settled = last;
      while (settled > first) {
        const auto b = static_cast<size_t>(settled - 1);
        bool ok = true;
        for (size_t f = 0; f < out.flows.size() && ok; ++f) {
          const double expected = epoch.flow_bps[f];
          if (expected > 0.0) ok = within(out.flows[f].series_bps[b], expected, tolerance);
        }
        if (!ok) break;
        --settled;
      }
      result.converged = settled < last;
      if (result.converged) {
        const int64_t settled_ns = out.warmup_ns + settled * bin_ns;
        result.time_ns = std::max<int64_t>(0, settled_ns - epoch.start_ns);
        c.worst_time_ns = std::max(c.worst_time_ns, result.time_ns);
      }
      all_converged = all_converged && result.converged;
      if (result.converged) settled_bin = static_cast<size_t>(settled);
    }
    c.epochs.push_back(result);
  }
  c.converged = any_judged && all_converged;

  // The settled figures: the last epoch's expectation over its settled bins.
  const std::vector<double>& expected = epochs.back().flow_bps;
  c.settled_from_ns = out.warmup_ns + static_cast<int64_t>(settled_bin) * bin_ns;
  std::vector<double> ratios;
  c.worst_flow_error_settled = settled_bin < bins ? 0.0 : 1.0;
  c.worst_flow_settled.clear();
  for (size_t f = 0; f < out.flows.size() && settled_bin < bins; ++f) {
    if (!(expected[f] > 0.0)) continue;
    double sum = 0.0;
    for (size_t b = settled_bin; b < bins; ++b) sum += out.flows[f].series_bps[b];
    const double ratio = sum / static_cast<double>(bins - settled_bin) / expected[f];
    ratios.push_back(ratio);
    if (c.worst_flow_settled.empty() || std::fabs(ratio - 1.0) > c.worst_flow_error_settled) {
      c.worst_flow_error_settled = std::fabs(ratio - 1.0);
      c.worst_flow_settled = out.flows[f].name;
    }
  }
  c.jain_settled = ratios.empty() ? 0.0 : jain_index(ratios);
}

}  // namespace qb::judge
