// QoS at every egress, per port (issue 29 part 3): which policy::PortQos each channel of a
// topology arbitrates by, and which class a flow is in on it.
// - A host's NIC port: the suite's NIC QoS ([eth], or [ib] with OpenSM's CA tables).
// - A switch external port: the suite's switch QoS ([eth], or [ib] with OpenSM's switch-external
//   tables), replaced where a `[[topology.switch_qos]]` entry names the switch (and the port).
// - Switch port 0 (the management port, OpenSM's sw0 tables) carries no flow between hosts: it is
//   no channel here.
// A flow keeps its marking (IB SL; Ethernet PCP and DSCP) end to end; each port maps it to its own
// class (SL2VL; trust + dscp2prio + prio_tc), as the hardware does hop by hop.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/topology.hpp"
#include "qb/policies/port_qos.hpp"

namespace qb::fabric {

/// IB tables an override replaces (the others keep the switch's tables).
struct IbTablesOverride {
  std::optional<std::array<uint8_t, 16>> sl2vl;
  std::optional<std::vector<policy::VlArbEntry>> vlarb_high, vlarb_low;
  std::optional<uint8_t> high_limit;
  bool any() const noexcept { return sl2vl || vlarb_high || vlarb_low || high_limit; }
};

/// Writes the tables `tables` gives over `qos` (the others stay).
void apply_tables(const IbTablesOverride& tables, policy::IbPortQos& qos);

/// One `[[topology.switch_qos]]` entry: the switches (names or patterns) and ports it covers and
/// the QoS they arbitrate by. Entries apply in order; a later one wins on a port both cover.
struct SwitchQosOverride {
  std::vector<std::string> switches;  // a name, or a pattern where '*' is any run of characters
  std::vector<uint32_t> ports;        // empty: every external port
  std::optional<policy::EthPortQos> eth;  // RoCE: the whole [eth] of these ports
  IbTablesOverride ib;                    // IB: the tables given
  std::string where;                      // "topology.switch_qos[0]"
  SourceLoc loc;
};

/// What every port arbitrates by, before the overrides: `ca` on host NIC ports, `swe` on switch
/// external ports (the same kind: none, ets or vlarb).
struct FabricQosSpec {
  policy::PortQos ca;
  policy::PortQos swe;
  std::vector<SwitchQosOverride> overrides;
};

/// `name` against `pattern`: '*' matches any run of characters (none too), the rest literally.
bool name_matches(std::string_view pattern, std::string_view name) noexcept;

/// Each channel's PortQos, indexed by channel id (Topology::channel). Errors (Errc::invalid_config
/// at the override's where/loc): a pattern that matches no switch (or matches a host only), a
/// port the switch does not have connected, an override whose kind differs from `swe`'s (Ethernet
/// keys on an IB fabric), an IB table with a VL above the port's operational VLs.
Result<std::vector<policy::PortQos>> channel_qos(const Topology& topology,
                                                 const FabricQosSpec& spec);

/// The class a flow marked `sl` (IB SL, or the Ethernet PCP) and `dscp` is in at a port of `qos`:
/// IB SL2VL (policy::kDropVl: dropped there), Ethernet prio_tc[trust dscp ? dscp2prio[dscp] :
/// pcp], 0 with kind none.
uint8_t port_class(const policy::PortQos& qos, uint8_t sl, uint8_t dscp) noexcept;

}  // namespace qb::fabric
