// A [topology] scenario's fabric as the results carry it, for the report's drawing: the nodes,
// every link with both ends and both channels, and each flow's path with its class at every
// hop (docs/results-schema.md, "topology"). Filled by judge/src/fabric_topology.cpp from the
// compiled plan's graph; empty for every other scenario.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qb::judge {

struct TopologyNode {
  std::string name;  // "h0", "leaf0", "spine1"
  std::string kind;  // "host" or "switch"
};

/// A cable between two nodes: two channels, one leaving each end (the names of `links` and of
/// a victim's `paused_at`).
struct TopologyLink {
  std::vector<std::string> ends;      // two node names
  std::vector<std::string> channels;  // ends[0] -> ends[1], then ends[1] -> ends[0]
  double rate_bps = 0.0;
  int64_t delay_ns = 0;  // one way
};

/// One egress a flow crosses and its arbitration class there ("VL1", "TC3", "port").
struct TopologyHop {
  std::string channel;
  std::string arb_class;
};

/// A flow's route, its NIC port first; `sl` (IB) and `priority` (Ethernet) are what the ports
/// map to their classes.
struct TopologyPath {
  std::string flow;
  uint32_t sl = 0;
  uint32_t priority = 0;
  std::vector<TopologyHop> hops;
};

struct TopologyResult {
  std::vector<TopologyNode> nodes;
  std::vector<TopologyLink> links;
  std::vector<TopologyPath> paths;  // one per flow, in the order of `flows`
  bool empty() const noexcept { return nodes.empty(); }
};

}  // namespace qb::judge
