// The fabric as a graph: hosts and switches (nodes) joined by full-duplex links. Each link is two
// directed channels; a channel is one egress port and the cable behind it, the unit the
// expectation arbitrates and the simulator will queue on. Plain data plus the builder that checks
// it (names unique, ports free, rates sane, every host reachable from every other).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::fabric {

/// The fastest link qosbench takes: what mlx5dv's u32 Mbit/s fields hold (as a port rate).
inline constexpr double kMaxLinkRateBps = 4294967295.0 * 1e6;
/// The longest one-way delay of one link: 200 km of fibre.
inline constexpr int64_t kMaxLinkDelayNs = 1'000'000;
/// IB switches have at most 254 external ports (port 0 is the management port); so do ours.
inline constexpr uint32_t kMaxSwitchPorts = 254;
inline constexpr uint32_t kMaxNodes = 1u << 20;
inline constexpr uint32_t kNoChannel = UINT32_MAX;

enum class NodeKind : uint8_t { host, switch_node };

struct Node {
  std::string name;
  NodeKind kind = NodeKind::host;
  /// Port p (1-based, as IB numbers them) leaves on out_channel[p], kNoChannel when unconnected;
  /// index 0 is unused. A host has one connected port (its NIC port).
  std::vector<uint32_t> out_channel;
  std::string where;  // "topology.switch[2]", "topology.file" ...
  SourceLoc loc;      // where the node was defined (the suite or the topology file)
};

struct Link {
  uint32_t node[2] = {0, 0};
  uint32_t port[2] = {0, 0};
  double rate_bps = 0.0;  // each direction
  int64_t delay_ns = 0;   // one way (propagation)
  std::string where;
  SourceLoc loc;
};

/// A directed channel: channel 2*l + d leaves links[l].node[d] through port[d].
struct Channel {
  uint32_t from = 0, from_port = 0;
  uint32_t to = 0, to_port = 0;
  double rate_bps = 0.0;
  int64_t delay_ns = 0;
};

class Topology {
 public:
  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  const std::vector<Link>& links() const noexcept { return links_; }
  /// Host index -> node id, in the order hosts were defined (flows name hosts by this index).
  const std::vector<uint32_t>& hosts() const noexcept { return hosts_; }
  uint32_t host_count() const noexcept { return static_cast<uint32_t>(hosts_.size()); }
  uint32_t channel_count() const noexcept { return static_cast<uint32_t>(links_.size() * 2); }
  Channel channel(uint32_t id) const noexcept;
  /// The channel a host sends on (its NIC port), and the one it receives on.
  uint32_t host_uplink(uint32_t host) const noexcept { return host_uplink_[host]; }
  uint32_t host_downlink(uint32_t host) const noexcept { return host_uplink_[host] ^ 1u; }
  /// Host index of a node, or nullopt for a switch.
  std::optional<uint32_t> host_index(uint32_t node) const noexcept;
  std::optional<uint32_t> find_node(std::string_view name) const;
  std::optional<uint32_t> find_host(std::string_view name) const;
  /// "leaf0:3->spine1:1": how explain and errors name a channel.
  std::string channel_name(uint32_t id) const;

 private:
  friend class TopologyBuilder;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<uint32_t> hosts_;
  std::vector<uint32_t> host_index_;   // per node: host index or UINT32_MAX
  std::vector<uint32_t> host_uplink_;  // per host
  std::unordered_map<std::string, uint32_t> by_name_;
};

/// Builds a Topology, checking as it goes. Every error is Errc::invalid_config with the `where`
/// and `loc` given for the offending node or link.
class TopologyBuilder {
 public:
  /// A switch with `ports` external ports (1..ports), or 0: as many as its links need.
  Result<uint32_t> add_switch(std::string name, uint32_t ports, std::string where, SourceLoc loc);
  Result<uint32_t> add_host(std::string name, std::string where, SourceLoc loc);
  /// port 0: the node's lowest free port. Checks the rate (> 0, finite, at most kMaxLinkRateBps),
  /// the delay (0..kMaxLinkDelayNs), a port used twice, a host with a second link, a self-loop.
  Status add_link(uint32_t a, uint32_t port_a, uint32_t b, uint32_t port_b, double rate_bps,
                  int64_t delay_ns, std::string where, SourceLoc loc);
  /// Checks the whole: at least one host, every host has its link, and every host reaches every
  /// other through switches (a host never forwards).
  Result<Topology> finish() &&;

  uint32_t node_count() const noexcept { return static_cast<uint32_t>(topo_.nodes_.size()); }
  std::optional<uint32_t> find_node(std::string_view name) const { return topo_.find_node(name); }
  const Node& node(uint32_t id) const { return topo_.nodes_[id]; }

 private:
  Result<uint32_t> add_node(std::string name, NodeKind kind, uint32_t ports, std::string where,
                            SourceLoc loc);
  Topology topo_;
  std::vector<uint32_t> fixed_ports_;  // per node: declared port count (0: grows)
};

/// Why a link rate is not usable ("" when it is): not > 0, NaN/inf, above kMaxLinkRateBps.
std::string link_rate_problem(double rate_bps);

}  // namespace qb::fabric
