#include "software_tree.hpp"

#include <cmath>

#include "qb/policies/class_oracle.hpp"

namespace qb::drv::verbs {

std::vector<double> software_pace_bps(const policy::QosPlan& plan) {
  std::vector<double> offered;
  std::vector<double> packet_bytes;
  for (const policy::FlowPlan& flow : plan.flows) {
    offered.push_back(flow.offered_wire_bps);
    const uint32_t mtu = plan.wire.mtu_bytes;
    packet_bytes.push_back(static_cast<double>(plan.wire.wire_bytes_for_message(mtu, flow.op)));
  }
  const policy::ClassOracleResult expected =
      policy::expected_rates_with_classes(plan, offered, packet_bytes);
  std::vector<double> pace(plan.flows.size(), 0.0);
  for (size_t f = 0; f < plan.flows.size(); ++f) {
    const double share = expected.flows.flow_bps[f];
    // Held below what it offers: paced at its share. (A dropped flow's share is 0: left alone,
    // the port drops it.)
    if (share > 0.0 && share < offered[f] * (1.0 - 1e-9)) pace[f] = share;
  }
  return pace;
}

}  // namespace qb::drv::verbs
