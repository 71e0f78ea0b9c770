// The expectation across bottlenecks: the rate every flow should get in a fabric, each channel
// (egress port) arbitrating as its port does: classes first (strict priority, ETS weights or
// VLArb, policy::arbitrate_classes), then inside a class at a switch egress round robin over the
// ingress ports (Fairness::per_ingress, as the one-switch model) or over the flows
// (Fairness::per_flow); at a host's NIC port the scheduling tree (or, without one, the flows
// equally). Every level is a work-conserving weighted max-min division (water-filling).
//
// Definition (docs/semantics.md, "The expectation across a fabric"): the rates x such that every
// flow gets the least of its offered load and, on every channel of its path, what that channel's
// arbitration gives it when it asks for everything and every other flow there asks for its own
// rate:  x_f = min(offered_f, min over l in path(f) of A_l(x with x_f = inf)_f).
// That is the fluid steady state of queues that are backlogged only at their bottleneck. With one
// class and per-flow fairness it is the classical max-min fair allocation.
//
// Algorithm: (0) a channel whose possible arrivals (its flows grouped by their NIC, or by the
// channel they arrive from) never exceed its rate arbitrates nothing: it is left out. (1) Every
// other channel divides its rate with frozen flows at their rate and the others at their offered
// load; a flow's least share over its path bounds its rate from below; a saturated channel on
// which every unfrozen flow has its least share is a bottleneck whose flows' rates are exact:
// freeze them (and flows that get their offered load); repeat. (2) When no channel is such a
// bottleneck (arbitrations that differ hop by hop couple the channels), the remaining flows are
// solved together. The right-hand side T is antitone (a flow's greedy share falls when the others
// ask more), so bounds lo <= x <= hi of every fixed point stay bounds under lo <- T(hi),
// hi <- T(lo): from step (1)'s lower bounds, flow by flow, until they are within 1e-13
// (relative; then the fixed point is unique and found). If they stall apart (a 2-cycle of T), a
// damped iteration inside them (steps towards T, halved when they turn back) looks for a fixed
// point. At most kMaxSweeps sweeps in all; unsettled, the rates are the lower bounds and
// `settled` is false. (3) Every channel's load is checked against its rate (1e-9 relative).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/routing.hpp"
#include "qb/fabric/topology.hpp"
#include "qb/policies/port_qos.hpp"
#include "qb/policies/sched_tree.hpp"

namespace qb::fabric {

enum class Fairness : uint8_t { per_ingress, per_flow };

struct FabricFlow {
  double offered_bps = std::numeric_limits<double>::infinity();  // wire bit/s; inf: saturating
  uint8_t nic_class = 0;     // arbitration class at its host's NIC port (TC or VL)
  uint8_t switch_class = 0;  // at every switch egress
  // The flow's marking, mapped to a class by each port when PortPolicy::channel_qos is given
  // (port_class, channel_qos.hpp); nic_class and switch_class are then not read.
  uint8_t sl = 0;    // IB SL, or the Ethernet PCP
  uint8_t dscp = 0;  // Ethernet with trust dscp
  double packet_wire_bytes = 4096.0 + 82.0;  // mean wire bytes per packet (VLArb credit rule)
  uint32_t leaf = 0;                         // NIC scheduling tree leaf (with a tree)
  bool dropped = false;                      // SL2VL to VL15: gets 0
};

/// How every port arbitrates.
struct PortPolicy {
  policy::PortQos nic_qos;     // every host NIC port (without channel_qos)
  policy::PortQos switch_qos;  // every switch egress (without channel_qos)
  /// Per channel (fabric::channel_qos): each port's own QoS, each flow's class from its sl/dscp
  /// at that port (a flow its SL2VL sends to VL15 on any hop gets 0). Empty: nic_qos/switch_qos
  /// with the flows' nic_class/switch_class.
  std::vector<policy::PortQos> channel_qos;
  /// The NIC tree inside each class (null: the class's flows share equally).
  const policy::SchedTree* tree = nullptr;
  Fairness fairness = Fairness::per_ingress;
};

inline constexpr uint32_t kLimitedByOffered = UINT32_MAX;
inline constexpr uint32_t kMaxSweeps = 2000;

struct FabricExpectation {
  std::vector<double> flow_bps;         // per flow, wire bit/s
  std::vector<uint32_t> bottleneck;     // per flow: the channel that limits it, or kLimitedByOffered
  std::vector<double> channel_bps;      // per channel: the expected load
  uint32_t freeze_rounds = 0;           // rounds of step (1)
  uint32_t coupled_flows = 0;           // flows solved by step (2)
  uint32_t sweeps = 0;                  // sweeps of step (2), both phases
  uint32_t bracket_sweeps = 0;          // of which the two-sided bounds
  double bracket_gap = 0.0;             // the bounds' largest relative gap when they stopped
  /// Settled at rounding's floor (the flow-by-flow phase's steps stalled this far from the
  /// right-hand sides, relative, at most 1e-9); 0: within 1e-13.
  double rounding_floor = 0.0;
  /// Two fixed points found apart (per flow, wire bit/s), which leave the expectation undefined
  /// (settled is then false, and `notes` says so); empty when none were.
  std::vector<std::vector<double>> fixed_points;
  /// False: step (2) did not settle, or a channel came out over its rate (a solver fault; its
  /// flows were scaled down to fit). flow_bps are then feasible lower bounds, not the
  /// expectation: a caller must not judge against them ("not judged"). `notes` says why.
  bool settled = true;
  std::vector<std::string> notes;
};

/// `routes[i]` is flow i's path (route_flows). Errors: sizes that do not match (routes, or
/// channel_qos against the topology's channels), a route with a channel that does not exist or
/// does not start at a host (invalid_config, no location).
Result<FabricExpectation> expected_fabric_rates(const Topology& topology,
                                                std::span<const FabricFlow> flows,
                                                std::span<const Route> routes,
                                                const PortPolicy& policy);

/// What channel `channel`'s arbitration gives flow `flow` when it asks for everything and every
/// other flow there asks for `rates` (the right-hand side of the definition, for one channel).
/// For tests and explain; slow (builds the channel's view each call).
double greedy_share(const Topology& topology, std::span<const FabricFlow> flows,
                    std::span<const Route> routes, const PortPolicy& policy, uint32_t channel,
                    uint32_t flow, std::span<const double> rates);

}  // namespace qb::fabric
