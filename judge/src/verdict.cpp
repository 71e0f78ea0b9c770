#include "qb/judge/verdict.hpp"

#include <fmt/format.h>

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

// Why flows of a fabric fell short, when pauses from elsewhere explain it.
std::string victims_note(const ScenarioResult& scenario) {
  if (scenario.victims.empty()) return {};
  std::vector<std::string> named;
  for (const VictimResult& victim : scenario.victims) {
    named.push_back(fmt::format("{} paused at {} for {}", victim.flow, victim.paused_at,
                                format_duration_ns(victim.paused_ns)));
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
    for (const FlowResult& flow : scenario.flows) not_started += flow.judged ? 0 : 1;
    if (not_started != 0) {
      verdict.not_judged.push_back(
          fmt::format("{}{} flow(s) not started in the window", prefix, not_started));
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
