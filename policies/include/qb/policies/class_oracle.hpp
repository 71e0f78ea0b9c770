// The oracle with traffic classes and a fabric: the rate every flow should get when the port
// arbitrates between classes (strict priority between groups, ETS by percentage inside a group,
// VLArb weights in 64-byte credits with high_limit), the NIC's mlx5 scheduling tree still applies
// inside each class (oracle.hpp), and flows from several hosts meet at one switch egress port.
//
// Composition (model choice, docs/semantics.md "The oracle with classes and a fabric"):
// 1. Per host NIC, each class's demand is its flows' demand through the tree (caps applied).
// 2. The NIC port divides port_rate_bps among its classes (arbitrate_classes).
// 3. Inside each class, the tree water-fills the class's share among that host's flows of the
//    class (the tree, caps included, applies per class).
// 4. With a switch: the egress divides switch_rate_bps among the switch classes of all hosts
//    (demand = the flows' NIC rates), inside a class among the ingress ports (hosts) equally,
//    water-filled by demand; each host's share of a class is water-filled through the tree among
//    that host's flows of the class.
// 5. Lossless back-pressure: a flow the switch holds below its NIC rate has its demand lowered to
//    its switch rate and steps 1-4 run again (the NIC gives the freed capacity to the host's other
//    flows), until no demand falls.
// Dropped flows (SL2VL to VL15) get 0.
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

/// Classes a port arbitrates: 1 (kind none), 8 TCs (ets), 15 data VLs (vlarb).
uint32_t oracle_class_count(const PortQos& qos) noexcept;

/// How a port divides `capacity_bps` among its classes (indexed by arb class; normally
/// oracle_class_count(qos) of them). Work-conserving: what a class does not need goes to the
/// others by the same rules.
/// - none: class 0 takes min(capacity, demand).
/// - ets: strict priority between ets_groups(), the highest first; inside a group water-filling
///   by ETS percentage (zero-percent ETS and vendor TCs: equal weights); demand capped by
///   tc_max_rate_bps.
/// - vlarb: the high table first, bounded by high_limit when the low table is backlogged (high
///   sends max(1, ceil(high_limit x 4096 / mean high packet)) whole packets, then one low packet;
///   that cycle sets the split; 255 = strict); inside a table, water-filling by the bytes one pass
///   sends: an entry of weight w with packets of c = ceil(bytes / 64) credits sends ceil(w / c)
///   packets; a VL's entries add up; zero-weight entries and VLs in no table get 0. A VL with a
///   high entry is served by the high table; its low entries serve only what high leaves.
///   Notes: where the credit rule's shares differ from the weight ratio by more than 1 %, both
///   ratios ("VLArb credit rule (low table): VL1:VL2 = 1:1 by packets, 1:2 by weights"); and when
///   high_limit holds the high table back, the cycle that does it.
std::vector<double> arbitrate_classes(const PortQos& qos, std::span<const ClassDemand> classes,
                                      double capacity_bps, std::vector<std::string>* notes);

struct ClassOracleResult {
  OracleResult flows;  // flow_bps per plan flow; element_bps summed over hosts
  /// Per arb class at the bottleneck port: the switch egress (switch classes) when switched,
  /// else the NICs (summed over hosts). Size oracle_class_count() of that port's PortQos.
  std::vector<double> class_bps;
  /// E.g. VLArb credit rule vs weight ratio; prefixed "NIC: " / "switch egress: " when switched.
  std::vector<std::string> notes;
};

/// `offered_bps[i]` and `mean_packet_wire_bytes[i]` per plan.flows[i]. With PortQos kind none,
/// one host and no switch, flows equal expected_rates(plan.tree, ..., plan.port_rate_bps).
ClassOracleResult expected_rates_with_classes(const QosPlan& plan,
                                              std::span<const double> offered_bps,
                                              std::span<const double> mean_packet_wire_bytes);

}  // namespace qb::policy
