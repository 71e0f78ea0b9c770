#include "qb/judge/window_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "qb/common/units.hpp"
#include "qb/judge/expectation_window.hpp"
#include "qb/judge/sampling_noise.hpp"

namespace qb::judge {
namespace {

std::string gates_key(const suite::Scenario& scenario, const char* key) {
  const std::string& where = scenario.gates.where;
  if (!where.empty()) return where + "." + key;
  return scenario.where.empty() ? fmt::format("gates.{}", key)
                                : fmt::format("{}.gates.{}", scenario.where, key);
}

void not_started_warnings(const suite::CompiledScenario& compiled, const Window& window,
                          std::vector<Warning>& out) {
  const suite::Scenario& scenario = *compiled.scenario;
  const int64_t end_ns = window.warmup_ns + window.duration_ns;
  for (uint32_t g = 0; g < scenario.flows.size(); ++g) {
    uint32_t late = 0, instances = 0;
    int64_t first_late_ns = 0;
    for (size_t f = 0; f < compiled.plan.flows.size(); ++f) {
      if (compiled.flow_spec[f] != g) continue;
      ++instances;
      if (started_before(compiled, f, end_ns)) continue;
      if (late++ == 0) first_late_ns = compiled.plan.flows[f].start_ns;
    }
    if (late == 0) continue;
    const suite::FlowSpec& flow = scenario.flows[g];
    out.push_back(Warning{
        fmt::format("{} of {} instance(s) of flow '{}' start at {} or later, after the measured "
                    "window ends ({} warm-up + {}): not started, not judged (a longer duration "
                    "or an earlier start judges them)",
                    late, instances, flow.name,
                    format_duration_ns(static_cast<double>(first_late_ns)),
                    format_duration_ns(static_cast<double>(window.warmup_ns)),
                    format_duration_ns(static_cast<double>(window.duration_ns))),
        flow.where + (flow.start_loc.line != 0 ? ".start" : ""),
        flow.start_loc.line != 0 ? flow.start_loc : flow.loc});
  }
}

// The share limit against the noise of the flow that needs the most allowance.
void noise_warnings(const suite::CompiledScenario& compiled, const Window& window,
                    std::vector<Warning>& out) {
  const suite::Scenario& scenario = *compiled.scenario;
  if (!scenario.gates.max_share_error || window.duration_ns <= 0) return;
  const double limit = *scenario.gates.max_share_error;
  const SpanExpectation expected =
      expectation_over(compiled, window.warmup_ns, window.warmup_ns + window.duration_ns);
  const std::vector<double> noise =
      model_noise(compiled, NoiseInput{expected.flow_bps, expected.active_ns, window.duration_ns});
  size_t judged = 0, worst = 0;
  for (size_t f = 0; f < noise.size(); ++f) {
    if (!(expected.flow_bps[f] > 0.0)) continue;
    ++judged;
    if (noise[f] > noise[worst] || !(expected.flow_bps[worst] > 0.0)) worst = f;
  }
  if (judged == 0) return;
  const double z = noise_quantile(judged);
  const double allowance = z * noise[worst] / std::sqrt(static_cast<double>(window.repetitions));
  if (!(allowance > limit)) return;
  const int64_t needed_ns = span_for_noise(window.duration_ns, allowance, limit);
  out.push_back(Warning{
      fmt::format("max_share_error {:g}% is tighter than the sampling noise of flow '{}' "
                  "(±{:.2g}% at {:g}% confidence over {} x {}): the judgement allows for the "
                  "noise, so it resolves only errors above ~{:.2g}%; a duration of {} (or as "
                  "many more repetitions) resolves {:g}%",
                  limit * 100.0, compiled.plan.flows[worst].name, allowance * 100.0,
                  kNoiseConfidence * 100.0, window.repetitions,
                  format_duration_ns(static_cast<double>(window.duration_ns)),
                  (limit + allowance) * 100.0, format_duration_ns(static_cast<double>(needed_ns)),
                  limit * 100.0),
      gates_key(scenario, "max_share_error"),
      scenario.gates.max_share_error_loc.line != 0 ? scenario.gates.max_share_error_loc
                                                   : scenario.loc});
}

}  // namespace

Window window_of(const suite::Scenario& scenario) {
  return Window{scenario.warmup_ns, scenario.duration_ns,
                std::max<uint32_t>(scenario.repetitions, 1)};
}

std::vector<Warning> window_warnings(const suite::CompiledScenario& compiled,
                                     const Window& window) {
  std::vector<Warning> out;
  not_started_warnings(compiled, window, out);
  noise_warnings(compiled, window, out);
  return out;
}

}  // namespace qb::judge
