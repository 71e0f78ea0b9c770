// The counter reconciliation's inputs from the judged scenario.
#include "nic_counter_checks.hpp"

#include <string_view>

#include "qb/nic/counter_checks.hpp"

namespace qb::judge {

std::vector<NicCheckResult> nic_counter_checks(const suite::CompiledScenario& compiled,
                                               const ScenarioResult& scenario) {
  nic::CounterCheckInput in;
  bool read = false;
  constexpr std::string_view kPrefix = "nic.";
  for (const auto& [name, value] : scenario.driver_stats) {
    if (!std::string_view(name).starts_with(kPrefix)) continue;
    if (name == "nic.direction") {
      read = true;
      in.direction = static_cast<nic::CounterDirection>(static_cast<int>(value));
      continue;
    }
    in.deltas[name.substr(kPrefix.size())] = value;
  }
  if (!read) return {};
  const policy::QosPlan& plan = compiled.plan;
  in.ethernet = plan.wire.transport != policy::Transport::ib;
  // Frame bytes: the wire bytes less each packet's preamble, start delimiter and gap (20 B),
  // which no port counter counts.
  for (size_t f = 0; f < plan.flows.size() && f < scenario.flows.size(); ++f) {
    const FlowResult& flow = scenario.flows[f];
    const double frame =
        static_cast<double>(flow.counts.wire_bytes) - 20.0 * static_cast<double>(flow.counts.packets);
    in.flow_frame_bytes[plan.flows[f].priority & 7U] += frame > 0 ? frame : 0.0;
  }
  const suite::Scenario& spec = *compiled.scenario;
  in.suite_lossy = spec.fabric.lossy;
  in.suite_ecn = spec.fabric.ecn;
  if (spec.fabric.lossy) {
    in.lossless_known = true;
    in.lossless = 0;
  } else if (spec.eth.present && spec.eth.qos.pfc_given) {
    in.lossless_known = true;
    in.lossless = spec.eth.qos.pfc_enabled;
  }
  std::vector<NicCheckResult> out;
  for (const nic::CounterCheck& c : nic::check_counters(in)) {
    out.push_back(NicCheckResult{c.name, c.passed, c.checked, c.detail});
  }
  return out;
}

}  // namespace qb::judge
