// The oracle with traffic classes and a fabric: the rate every flow should get when the port
// arbitrates between classes (strict priority, ETS, VLArb; reference §3-§4), the NIC's mlx5
// scheduling tree still applies inside each class (oracle.hpp), and flows from several hosts
// meet at one switch egress port.
//
// Composition (model choice, docs/semantics.md): per host NIC, each class's demand is its flows'
// demand through the tree; the NIC port divides its capacity among its classes; then the switch
// egress divides its capacity among the classes of all hosts, and inside a class among the
// ingress ports (hosts) equally, water-filled by demand; finally each host's share of a class is
// water-filled through the tree among that host's flows of the class.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "qb/policies/oracle.hpp"
#include "qb/policies/port_qos.hpp"
#include "qb/policies/qos_plan.hpp"

namespace qb::policy {

/// One class as the port sees it.
struct ClassDemand {
  double demand_bps = 0.0;              // wire bit/s; +inf = saturating
  double mean_packet_wire_bytes = 0.0;  // for the VLArb credit rule (0: no packets)
};

/// How a port divides `capacity_bps` among its classes (indexed by arb class; size
/// kMaxArbClasses or the port's class count). Work-conserving: what a class does not need goes
/// to the others by the same rules. VLArb follows the packet-level credit rule (an entry of
/// weight w sends ceil(w / credits-per-packet) packets per turn); when that differs from the
/// weight ratio by more than 1 %, a note names both ratios.
std::vector<double> arbitrate_classes(const PortQos& qos, std::span<const ClassDemand> classes,
                                      double capacity_bps, std::vector<std::string>* notes);

struct ClassOracleResult {
  OracleResult flows;               // flow_bps per plan flow; element_bps summed over hosts
  std::vector<double> class_bps;    // per arb class at the bottleneck port (NIC, or the switch)
  std::vector<std::string> notes;   // e.g. VLArb credit rule vs weight ratio
};

/// `offered_bps[i]` and `mean_packet_wire_bytes[i]` per plan.flows[i]. With PortQos kind none,
/// one host and no switch, flows equal expected_rates(plan.tree, ..., plan.port_rate_bps).
ClassOracleResult expected_rates_with_classes(const QosPlan& plan,
                                              std::span<const double> offered_bps,
                                              std::span<const double> mean_packet_wire_bytes);

}  // namespace qb::policy
