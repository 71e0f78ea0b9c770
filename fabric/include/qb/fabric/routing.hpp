// Routes: which channels each flow crosses, host NIC first.
// - shortest: minimum hop count (hosts never forward); where several next hops are as short,
//   ECMP picks one per hop by a hash of the flow's RoCEv2 5-tuple (source and destination host,
//   UDP source port from the flow's seeded entropy, destination port 4791) and the switch, as a
//   switch hashes a packet's headers; seeded, so a seed sweep moves the collisions.
// - single: the same shortest paths, always the lowest-numbered port of the candidates.
// - lft: each switch's linear forwarding table (destination host -> output port), as OpenSM
//   programs it; a missing entry, an unconnected port, a loop or a wrong host is an error.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/fabric/topology.hpp"
#include "qb/fabric/traffic.hpp"

namespace qb::fabric {

enum class RoutingKind : uint8_t { shortest, single, lft };

/// One switch's forwarding table, as given.
struct Lft {
  uint32_t switch_node = 0;
  std::vector<uint32_t> out_port;  // per destination host index; 0 = no entry
  std::vector<SourceLoc> entry_loc;  // per destination host: where its entry was written
  std::string where;                 // "topology.lft[0]"
  SourceLoc loc;
};

struct RoutingSpec {
  RoutingKind kind = RoutingKind::shortest;
  uint64_t ecmp_seed = 1;
  std::vector<Lft> lfts;  // kind lft: one per switch that forwards
  std::string where;      // "topology.routing", for errors without a table of their own
  SourceLoc loc;
};

inline constexpr uint16_t kRoceV2Port = 4791;

struct Route {
  uint16_t udp_source_port = 0;  // the flow's entropy (RoCEv2), 49152..65535
  std::vector<uint32_t> channels;
};

/// RoCEv2's UDP source port of flow `flow` under `seed`: 49152 + a hash mod 16384.
uint16_t flow_source_port(uint64_t seed, uint64_t flow) noexcept;

/// A route per flow, in order. A flow from a host to itself has no route (an error).
Result<std::vector<Route>> route_flows(const Topology& topology,
                                       std::span<const FlowEndpoints> flows,
                                       const RoutingSpec& spec);

}  // namespace qb::fabric
