#include "qb/judge/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "qb/common/units.hpp"

namespace qb::judge {
namespace {

// For gates without a failure sentence (files read back): the name and the relation.
std::string generic_failure(const GateResult& gate) {
  if (std::isnan(gate.value)) return gate.name + ": " + gate.detail;
  const bool at_most = gate.bound == GateBound::at_most;
  auto shown = [&](double v) {
    if (!std::isfinite(v)) return std::string("n/a");
    switch (gate.kind) {
      case GateKind::ratio:
        return fmt::format("{:.2f}%", v * 100.0);
      case GateKind::duration:
        return format_duration_ns(v);
      case GateKind::bytes:
        return fmt::format("{:.0f} B", v);
      case GateKind::index:
        break;
    }
    return fmt::format("{:.4f}", v);
  };
  return fmt::format("{} {} {} {}", gate.name, shown(gate.value), at_most ? ">" : "<",
                     shown(gate.threshold));
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

// Why flows of a fabric fell short, when pauses from elsewhere explain it: the worst few by
// their error (a 320-host fabric can have hundreds; the results list every one).
std::string victims_note(const ScenarioResult& scenario) {
  if (scenario.victims.empty()) return {};
  constexpr size_t kNamedVictims = 3;
  std::vector<const VictimResult*> worst;
  for (const VictimResult& victim : scenario.victims) worst.push_back(&victim);
  std::stable_sort(worst.begin(), worst.end(),
                   [](const auto* a, const auto* b) { return a->error < b->error; });
  std::vector<std::string> named;
  for (size_t i = 0; i < worst.size() && i < kNamedVictims; ++i) {
    named.push_back(fmt::format("{} paused at {} for {}", worst[i]->flow, worst[i]->paused_at,
                                format_duration_ns(worst[i]->paused_ns)));
  }
  if (worst.size() > kNamedVictims) {
    named.push_back(fmt::format("and {} more (results: victims)", worst.size() - kNamedVictims));
  }
  return " (PFC victims: " + join(named) + ")";
}

}  // namespace

Verdict verdict_of(const Results& results) {
  Verdict verdict;
  const bool several = results.scenarios.size() > 1;
  for (const ScenarioResult& scenario : results.scenarios) {
    const std::string prefix = several ? fmt::format("[{}] ", scenario.name) : "";
    if (nothing_measured(scenario)) {
      ++verdict.unmeasured;
      verdict.not_judged.push_back(prefix + kNothingMeasured);
      continue;
    }
    for (const GateResult& gate : scenario.gates) {
      if (!gate.judged) {
        verdict.not_judged.push_back(fmt::format("{}{} ({})", prefix, gate.name, gate.detail));
        continue;
      }
      ++verdict.judged;
      if (gate.passed) {
        ++verdict.held;
      } else {
        verdict.failed.push_back(prefix +
                                 (gate.failure.empty() ? generic_failure(gate) : gate.failure));
        if (gate.name == "max_share_error") verdict.failed.back() += victims_note(scenario);
      }
    }
    uint32_t not_started = 0;
    std::vector<std::string> other_reasons;  // each once, in flow order
    for (const FlowResult& flow : scenario.flows) {
      if (flow.judged) continue;
      if (flow.not_judged.empty() || flow.not_judged.starts_with("not started")) {
        ++not_started;
      } else if (std::find(other_reasons.begin(), other_reasons.end(), flow.not_judged) ==
                 other_reasons.end()) {
        other_reasons.push_back(flow.not_judged);
      }
    }
    if (not_started != 0) {
      verdict.not_judged.push_back(
          fmt::format("{}{} flow(s) not started in the window", prefix, not_started));
    }
    for (const std::string& reason : other_reasons) {
      if (reason != kNothingMeasured) verdict.not_judged.push_back(prefix + "flow shares: " + reason);
    }
    // A change of the active flows the window cut off (or never reached) is not judged either.
    for (const ConvergenceEpoch& epoch : scenario.convergence.epochs) {
      if (epoch.judged || epoch.not_judged.empty()) continue;
      verdict.not_judged.push_back(
          fmt::format("{}the change at {} ({} flows): {}", prefix,
                      format_duration_ns(static_cast<double>(epoch.start_ns)), epoch.active_flows,
                      epoch.not_judged));
    }
  }
  // A port left as the suite set it fails the run first, whatever was measured.
  std::vector<std::string> left;
  for (const std::string& what : results.nic_left_changed)
    left.push_back("NIC left changed: " + what);
  verdict.failed.insert(verdict.failed.begin(), left.begin(), left.end());
  std::string line;
  if (verdict.unmeasured == results.scenarios.size() && verdict.unmeasured != 0) {
    line = "NOT JUDGED: nothing measured (the run was interrupted before a repetition was "
           "measured)";
    if (!left.empty()) line += "; and FAILED: " + join(left);
    verdict.summary = std::move(line);
    return verdict;
  }
  if (results.passed && verdict.failed.empty() && verdict.judged == 0) {
    line = "NOT JUDGED: nothing was judged";  // nothing failed, and nothing held either
  } else if (results.passed && verdict.failed.empty()) {
    line = fmt::format("PASSED: {} of {} judgements held", verdict.held, verdict.judged);
  } else if (!verdict.failed.empty()) {
    line = (results.interrupted ? "INTERRUPTED, and FAILED: " : "FAILED: ") + join(verdict.failed);
  } else if (results.interrupted) {
    line = fmt::format(
        "INTERRUPTED: a signal stopped the run; {} of {} judgements held on what was measured",
        verdict.held, verdict.judged);
  } else {
    // Every judgement held, yet the run cannot pass: its measurement is not one (interrupted,
    // a starved worker, an overloaded DPA; the warnings and the line's suffix say which).
    line = fmt::format(
        "FAILED: invalid or incomplete measurement (see the warnings); {} of {} "
        "judgements held",
        verdict.held, verdict.judged);
  }
  if (!verdict.not_judged.empty()) line += "; not judged: " + join(verdict.not_judged);
  verdict.summary = std::move(line);
  return verdict;
}

}  // namespace qb::judge
