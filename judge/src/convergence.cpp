#include "convergence.hpp"

#include <algorithm>
#include <cmath>

#include "qb/judge/judge.hpp"
#include "qb/judge/sampling_noise.hpp"

namespace qb::judge {
namespace {

bool within(double measured, double expected, double tolerance) noexcept {
  return std::fabs(measured / expected - 1.0) <= tolerance;
}

// The part of an epoch whose shares are judged: from its settled bin when it settled, else its
// second half (it never settled: its last half says where the rates went).
struct SettledSpan {
  size_t first = 0, last = 0;  // bins [first, last)
};

// The settled figures: each judged epoch's shares over its settled span; the worst flow over
// all of them, the Jain index of the last one.
void judge_settled(const suite::CompiledScenario& compiled,
                   const std::vector<suite::ExpectationEpoch>& epochs,
                   const std::vector<std::pair<size_t, SettledSpan>>& spans, int64_t bin_ns,
                   int64_t window_end_ns, ScenarioResult& out) {
  Convergence& c = out.convergence;
  c.worst_flow_error_settled = spans.empty() ? 1.0 : 0.0;
  c.worst_flow_settled.clear();
  c.settled_from_ns = window_end_ns;
  const bool modelled =
      compiled.scenario != nullptr && compiled.plan.flows.size() == out.flows.size();
  for (const auto& [e, span] : spans) {
    const std::vector<double>& expected = epochs[e].flow_bps;
    const size_t width = span.last - span.first;
    if (width == 0) continue;
    const int64_t span_ns = static_cast<int64_t>(width) * bin_ns;
    std::vector<double> noise(out.flows.size(), 0.0);
    if (modelled) {
      noise = model_noise(
          compiled, NoiseInput{expected, std::vector<int64_t>(expected.size(), span_ns), span_ns});
    }
    std::vector<double> ratios;
    for (size_t f = 0; f < out.flows.size(); ++f) {
      if (!(expected[f] > 0.0)) continue;
      double sum = 0.0;
      for (size_t b = span.first; b < span.last; ++b) sum += out.flows[f].series_bps[b];
      const double ratio = sum / static_cast<double>(width) / expected[f];
      ratios.push_back(ratio);
      const double error = std::fabs(ratio - 1.0);
      const double share_noise =
          noise[f] /
          std::sqrt(static_cast<double>(std::max<uint32_t>(out.repetitions_completed, 1)));
      c.settled_shares.push_back(SettledShare{out.flows[f].name, ratio - 1.0, share_noise});
      if (c.worst_flow_settled.empty() || error > c.worst_flow_error_settled) {
        c.worst_flow_error_settled = error;
        c.worst_flow_settled = out.flows[f].name;
        c.worst_flow_noise_settled = share_noise;
      }
    }
    // Groups likewise: a group's share of the epoch is its flows' (the join's transient is not
    // in it).
    for (const GroupResult& group : out.groups) {
      double group_expected = 0.0, sum = 0.0;
      std::vector<double> member_noise, member_expected;
      for (size_t f = 0; f < out.flows.size(); ++f) {
        if (out.flows[f].group != group.name || !(expected[f] > 0.0)) continue;
        group_expected += expected[f];
        member_noise.push_back(noise[f]);
        member_expected.push_back(expected[f]);
      }
      if (!(group_expected > 0.0) || group.series_bps.size() < span.last) continue;
      for (size_t b = span.first; b < span.last; ++b) sum += group.series_bps[b];
      const double ratio = sum / static_cast<double>(width) / group_expected;
      c.settled_group_shares.push_back(SettledShare{
          group.name, ratio - 1.0,
          noise_of_sum(member_noise, member_expected) /
              std::sqrt(static_cast<double>(std::max<uint32_t>(out.repetitions_completed, 1)))});
    }
    // The last judged epoch's span: where the settled Jain index and "settled from" are read.
    c.settled_from_ns = out.warmup_ns + static_cast<int64_t>(span.first) * bin_ns;
    c.jain_settled = ratios.empty() ? 0.0 : jain_index(ratios);
  }
  if (spans.empty()) c.jain_settled = 0.0;
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
  // Interrupted repetitions measured less: bins past the longest one's end are not the run's.
  if (out.repetitions_partial != 0 && !out.measured_ns_reps.empty()) {
    const int64_t measured_ns =
        *std::max_element(out.measured_ns_reps.begin(), out.measured_ns_reps.end());
    bins = std::min(bins, static_cast<size_t>(std::max<int64_t>(0, measured_ns / bin_ns)));
  }
  const int64_t window_end_ns = out.warmup_ns + static_cast<int64_t>(bins) * bin_ns;

  std::vector<std::pair<size_t, SettledSpan>> spans;  // (epoch, span) of every judged epoch
  bool any_judged = false;
  bool all_converged = true;
  for (size_t e = 0; e < epochs.size(); ++e) {
    const suite::ExpectationEpoch& epoch = epochs[e];
    const int64_t end_ns = e + 1 < epochs.size() ? epochs[e + 1].start_ns : window_end_ns;
    ConvergenceEpoch result;
    result.start_ns = epoch.start_ns;
    for (const double expected : epoch.flow_bps) result.active_flows += expected > 0.0 ? 1 : 0;
    // Whole bins inside [start, end) of the measured window.
    const int64_t first =
        std::max<int64_t>(0, (epoch.start_ns - out.warmup_ns + bin_ns - 1) / bin_ns);
    const int64_t last = std::min<int64_t>(static_cast<int64_t>(bins),
                                           (end_ns - out.warmup_ns) / bin_ns);  // exclusive
    if (epoch.start_ns >= window_end_ns) {
      result.not_judged = "starts after the measured window ends";
    } else if (first >= last) {
      result.not_judged = "no whole time bin inside the window";
    } else {
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
        spans.emplace_back(e, SettledSpan{static_cast<size_t>(settled), static_cast<size_t>(last)});
      } else {
        spans.emplace_back(
            e, SettledSpan{static_cast<size_t>((first + last + 1) / 2), static_cast<size_t>(last)});
      }
      all_converged = all_converged && result.converged;
    }
    c.epochs.push_back(result);
  }
  c.converged = any_judged && all_converged;

  judge_settled(compiled, epochs, spans, bin_ns, window_end_ns, out);
}

}  // namespace qb::judge
