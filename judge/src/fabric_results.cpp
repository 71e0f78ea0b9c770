// A [topology] scenario's links and victims; see fabric_results.hpp.
#include "fabric_results.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

#include "qb/judge/sampling_noise.hpp"
#include "qb/policies/port_qos.hpp"

namespace qb::judge {
namespace {

using StatIndex = std::unordered_map<std::string, double>;

double stat_or_zero(const StatIndex& stats, const std::string& name) {
  const auto found = stats.find(name);
  return found == stats.end() ? 0.0 : found->second;
}

// The channel on `flow`'s path (into a switch) paused longest for the flow's class while the
// switch's egress towards the flow was not a bottleneck; its pause time (0: none).
std::pair<uint32_t, double> worst_foreign_pause(const policy::FabricPlan& graph, size_t flow,
                                                const StatIndex& stats) {
  const std::vector<uint32_t>& path = graph.flow_path[flow];
  std::pair<uint32_t, double> worst{UINT32_MAX, 0.0};
  for (size_t hop = 0; hop + 1 < path.size(); ++hop) {
    const uint32_t paused = path[hop];
    const uint32_t onward = path[hop + 1];
    // Its own egress at that switch full: the pause is the flow's own congestion.
    if (graph.channel_expected_bps[onward] >= graph.channels[onward].rate_bps * (1.0 - 1e-9)) {
      continue;
    }
    const std::string cls = policy::arb_class_name(graph.channel_qos[paused],
                                                   graph.flow_class[flow][hop]);
    const double paused_ns =
        stat_or_zero(stats, "link." + graph.channel_names[paused] + ".paused_ns." + cls);
    if (paused_ns > worst.second) worst = {paused, paused_ns};
  }
  return worst;
}

}  // namespace

void judge_fabric(const suite::CompiledScenario& compiled, double share_limit,
                  ScenarioResult& out) {
  if (!compiled.plan.graph) return;
  const policy::FabricPlan& graph = *compiled.plan.graph;
  StatIndex stats;
  for (const auto& [name, value] : out.driver_stats) stats.emplace(name, value);

  // "link.<channel>.paused_ns.<class>", summed per channel.
  std::unordered_map<std::string, uint32_t> channel_of;
  for (uint32_t ch = 0; ch < graph.channel_count(); ++ch) channel_of.emplace(graph.channel_names[ch], ch);
  std::vector<double> paused_ns(graph.channel_count(), 0.0);
  constexpr std::string_view kPaused = ".paused_ns.";
  for (const auto& [name, value] : out.driver_stats) {
    const size_t at = name.rfind(kPaused);
    if (!name.starts_with("link.") || at == std::string::npos) continue;
    const auto found = channel_of.find(name.substr(5, at - 5));
    if (found != channel_of.end()) paused_ns[found->second] += value;
  }
  std::vector<double> measured(graph.channel_count(), 0.0);
  std::vector<uint8_t> crossed(graph.channel_count(), 0);
  for (size_t f = 0; f < out.flows.size() && f < graph.flow_path.size(); ++f) {
    for (const uint32_t ch : graph.flow_path[f]) {
      measured[ch] += out.flows[f].measured_bps;
      crossed[ch] = 1;
    }
  }
  for (uint32_t ch = 0; ch < graph.channel_count(); ++ch) {
    if (crossed[ch] == 0) continue;
    const std::string prefix = "link." + graph.channel_names[ch] + ".";
    LinkResult& link = out.links.emplace_back();
    link.name = graph.channel_names[ch];
    link.rate_bps = graph.channels[ch].rate_bps;
    link.expected_bps = graph.channel_expected_bps[ch];
    link.measured_bps = measured[ch];
    link.utilisation = stat_or_zero(stats, prefix + "utilisation");
    link.queue_max_bytes = stat_or_zero(stats, prefix + "queue_max_bytes");
    link.queue_p50_bytes = stat_or_zero(stats, prefix + "queue_p50_bytes");
    link.queue_p99_bytes = stat_or_zero(stats, prefix + "queue_p99_bytes");
    link.paused_ns = paused_ns[ch];
    link.ecn_marks = stat_or_zero(stats, prefix + "ecn_marks");
    link.drops = stat_or_zero(stats, prefix + "drops");
  }
  const double z = noise_quantile(out.flows.size());
  for (size_t f = 0; f < out.flows.size() && f < graph.flow_path.size(); ++f) {
    const FlowResult& flow = out.flows[f];
    if (!flow.judged || flow.expected_bps <= 0.0) continue;
    if (flow.error >= -(share_limit + z * flow.noise)) continue;
    const auto [channel, pause_ns] = worst_foreign_pause(graph, f, stats);
    if (channel == UINT32_MAX) continue;
    out.victims.push_back(
        VictimResult{flow.name, graph.channel_names[channel], pause_ns, flow.error});
  }
}

}  // namespace qb::judge
