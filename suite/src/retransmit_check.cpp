#include "retransmit_check.hpp"

#include <fmt/format.h>

#include "qb/common/units.hpp"
#include "qos_loader.hpp"

namespace qb::suite::detail {

void warn_short_retransmit_timeout(const Scenario& scenario, const CompiledScenario& compiled,
                                   std::vector<Warning>& warnings) {
  const FabricSpec& fabric = scenario.fabric;
  const policy::FabricPlan* graph = compiled.plan.graph.get();
  if (!fabric.lossy || graph == nullptr) return;
  // The slowest flow's way: the sum over its hops, each a propagation delay, its packet's
  // serialisation and, behind a switch egress, that class's buffer drained at the link's rate.
  double longest_ns = 0.0;
  double longest_queued_ns = 0.0;
  size_t slowest = 0;
  for (size_t f = 0; f < graph->flow_path.size(); ++f) {
    double way_ns = 0.0;
    double queued_ns = 0.0;
    for (const uint32_t channel : graph->flow_path[f]) {
      const policy::FabricChannel& c = graph->channels[channel];
      way_ns += static_cast<double>(c.delay_ns) +
                compiled.mean_packet_wire_bytes[f] * 8.0 / c.rate_bps * 1e9;
      if (!graph->from_host(channel)) {
        queued_ns += static_cast<double>(fabric.buffer_bytes) * 8.0 / c.rate_bps * 1e9;
      }
    }
    if (way_ns + queued_ns > longest_ns + longest_queued_ns) {
      longest_ns = way_ns;
      longest_queued_ns = queued_ns;
      slowest = f;
    }
  }
  const double timeout_ns = static_cast<double>(fabric.retransmit_timeout_ns);
  if (timeout_ns >= longest_ns + longest_queued_ns) return;
  const bool written = fabric.retransmit_timeout_loc.line != 0;
  add_warning(
      warnings,
      Warning{fmt::format("retransmit_timeout {} is shorter than a packet's way on flow '{}' "
                          "({} hops: {} of propagation and serialisation, up to {} queued in "
                          "its switches' buffers): its sender can go back for packets still on "
                          "their way (spurious retransmissions); above {} it cannot",
                          format_duration_ns(timeout_ns), compiled.plan.flows[slowest].name,
                          graph->flow_path[slowest].size(), format_duration_ns(longest_ns),
                          format_duration_ns(longest_queued_ns),
                          format_duration_ns(longest_ns + longest_queued_ns)),
              written ? fabric.where + ".retransmit_timeout" : fabric.where + ".mode",
              written ? fabric.retransmit_timeout_loc : fabric.loc});
}

}  // namespace qb::suite::detail
