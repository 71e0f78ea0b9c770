// The compiled QoS plan: what `policies` hands to the oracle and the drivers.
// Pure data; built by suite::compile_scenario() from the suite's QoS sections.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qb/policies/congestion.hpp"
#include "qb/policies/fabric_plan.hpp"
#include "qb/policies/port_qos.hpp"
#include "qb/policies/sched_tree.hpp"
#include "qb/policies/traffic_class.hpp"
#include "qb/policies/wire.hpp"

namespace qb::policy {

/// One flow instance (a QP): a `[[flow]]` with count = 4 gives four of these.
struct FlowPlan {
  std::string name;   // "g1-qp#2" (or "g1-qp" when count = 1)
  std::string group;  // the [[flow]] entry's name: "g1-qp"
  uint32_t leaf = 0;  // SchedTree element index
  RdmaOp op = RdmaOp::write;

  uint32_t host = 0;  // sending host (0 .. QosPlan::hosts - 1)
  int64_t start_ns = 0;  // the flow's first message leaves this long after time zero
  /// The generator's mean offered rate in wire bit/s (+inf: saturating), for drivers that
  /// pace a flow in hardware (verbs: IBV_QP_RATE_LIMIT).
  double offered_wire_bps = 0.0;
  // Traffic class after inheritance (domain -> tx/rx) and the provider profile.
  TrafficClass tx_tclass;
  TrafficClass rx_tclass;  // responder side; reported, not arbitrated (no READs modelled)
  uint8_t dscp = 0;        // IP DSCP on the wire (RoCEv2 traffic_class >> 2; Ethernet)
  uint8_t sl = 0;          // IB SL; on RoCE the QP's sl (eth priority = sl & 7 under PCP trust)
  uint8_t priority = 0;    // Ethernet priority the port uses (trust pcp: sl & 7; dscp: dscp2prio)
  uint8_t arb_class = 0;   // TC (ets) or VL (vlarb) at the NIC port; 0 with PortQos::none
  uint8_t switch_arb_class = 0;  // the same at the switch egress port (IB: the switch's SL2VL)
  bool dropped = false;          // SL2VL sends its SL to VL15: every packet is dropped
  std::string class_note;        // how the class was chosen (provider, policy rule), for explain
};

struct QosPlan {
  SchedTree tree;  // every host's NIC runs this tree over its own flows
  WireModel wire;
  double port_rate_bps = 0.0;  // NIC line rate: the capacity, in wire bit/s
  std::vector<FlowPlan> flows;

  PortQos nic_qos;  // every NIC egress port

  // Fabric: `hosts` sending NICs; with `switched`, their links meet at one switch whose egress
  // port (switch_rate_bps, arbitrating by switch_qos) leads to the receiver.
  uint32_t hosts = 1;
  bool switched = false;
  double switch_rate_bps = 0.0;
  PortQos switch_qos;
  CongestionPlan congestion;  // ECN marking, CNPs, the DPA program (switched fabrics)
  /// A multi-switch fabric ([topology]): then `hosts` is its host count, `switched` is false
  /// (no one-switch model) and every flow's path and classes are here. Shared: a plan is copied
  /// per repetition and job rank, the graph is not.
  std::shared_ptr<const FabricPlan> graph;

  // Plan queries, shared by the oracle, explain and the judge.

  uint32_t host_count() const noexcept { return hosts > 1 ? hosts : 1; }
  /// Whether results and explain show per-class figures: the NIC or the switch arbitrates
  /// between classes, or several hosts send.
  bool has_classes() const noexcept {
    return nic_qos.kind != PortQos::Kind::none ||
           (switched && switch_qos.kind != PortQos::Kind::none) || hosts > 1;
  }
  /// The port whose classes decide the shares: the switch egress when switched, else the NIC.
  const PortQos& deciding_port_qos() const noexcept { return switched ? switch_qos : nic_qos; }
  /// A flow's class at that port (switch_arb_class when switched, else arb_class).
  uint32_t deciding_class_of(const FlowPlan& flow) const noexcept {
    return switched ? flow.switch_arb_class : flow.arb_class;
  }
  /// That port's capacity: the switch egress rate, or the NIC line rate times the hosts.
  double deciding_port_capacity_bps() const noexcept {
    return switched ? switch_rate_bps : port_rate_bps * static_cast<double>(host_count());
  }
};

}  // namespace qb::policy
