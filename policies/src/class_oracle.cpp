// The oracle with traffic classes and a fabric (see class_oracle.hpp for the composition).
#include "qb/policies/class_oracle.hpp"

namespace qb::policy {

std::vector<double> arbitrate_classes(const PortQos& /*qos*/, std::span<const ClassDemand> classes,
                                      double capacity_bps, std::vector<std::string>* /*notes*/) {
  // First cut: one class takes what it needs up to the capacity.
  std::vector<double> out(classes.size(), 0.0);
  double left = capacity_bps > 0.0 ? capacity_bps : 0.0;
  for (size_t c = 0; c < classes.size(); ++c) {
    const double demand = classes[c].demand_bps > 0.0 ? classes[c].demand_bps : 0.0;
    out[c] = demand < left ? demand : left;
    left -= out[c];
  }
  return out;
}

ClassOracleResult expected_rates_with_classes(const QosPlan& plan,
                                              std::span<const double> offered_bps,
                                              std::span<const double> /*mean_packet_wire_bytes*/) {
  ClassOracleResult result;
  std::vector<FlowDemand> demands(plan.flows.size());
  for (size_t i = 0; i < plan.flows.size(); ++i) {
    demands[i].leaf = plan.flows[i].leaf;
    demands[i].offered_bps = i < offered_bps.size() ? offered_bps[i] : 0.0;
    if (plan.flows[i].dropped) demands[i].offered_bps = 0.0;
  }
  result.flows = expected_rates(plan.tree, demands, plan.port_rate_bps);
  double total = 0.0;
  for (const double bps : result.flows.flow_bps) total += bps;
  result.class_bps.assign(1, total);
  return result;
}

}  // namespace qb::policy
