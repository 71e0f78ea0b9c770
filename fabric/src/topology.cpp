#include "qb/fabric/topology.hpp"

#include <fmt/format.h>

#include <cmath>
#include <deque>
#include <utility>

#include "qb/common/units.hpp"

namespace qb::fabric {

Channel Topology::channel(uint32_t id) const noexcept {
  const Link& link = links_[id / 2];
  const uint32_t d = id % 2;
  return Channel{link.node[d], link.port[d], link.node[1 - d], link.port[1 - d], link.rate_bps,
                 link.delay_ns};
}

std::optional<uint32_t> Topology::host_index(uint32_t node) const noexcept {
  if (node >= host_index_.size() || host_index_[node] == UINT32_MAX) return std::nullopt;
  return host_index_[node];
}

std::optional<uint32_t> Topology::find_node(std::string_view name) const {
  const auto it = by_name_.find(std::string(name));
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint32_t> Topology::find_host(std::string_view name) const {
  const auto node = find_node(name);
  if (!node) return std::nullopt;
  return host_index(*node);
}

std::string Topology::channel_name(uint32_t id) const {
  const Channel c = channel(id);
  return fmt::format("{}:{}->{}:{}", nodes_[c.from].name, c.from_port, nodes_[c.to].name,
                     c.to_port);
}

std::string link_rate_problem(double rate_bps) {
  if (!std::isfinite(rate_bps)) return "a link rate must be a finite number";
  if (!(rate_bps > 0.0)) return "a link rate must be greater than 0";
  if (rate_bps > kMaxLinkRateBps) {
    return fmt::format("link rate {} is above {}, the largest port rate qosbench takes",
                       format_rate_bps(rate_bps), format_rate_bps(kMaxLinkRateBps));
  }
  return {};
}

Result<uint32_t> TopologyBuilder::add_node(std::string name, NodeKind kind, uint32_t ports,
                                           std::string where, SourceLoc loc) {
  if (name.empty()) {
    return make_error(Errc::invalid_config, "a node name must not be empty", std::move(where),
                      std::move(loc));
  }
  if (topo_.nodes_.size() >= kMaxNodes) {
    return make_error(Errc::invalid_config,
                      fmt::format("more than {} hosts and switches", kMaxNodes), std::move(where),
                      std::move(loc));
  }
  if (ports > kMaxSwitchPorts) {
    return make_error(Errc::invalid_config,
                      fmt::format("a switch has at most {} ports, got {}", kMaxSwitchPorts, ports),
                      std::move(where), std::move(loc));
  }
  const auto id = static_cast<uint32_t>(topo_.nodes_.size());
  const auto [it, inserted] = topo_.by_name_.emplace(name, id);
  if (!inserted) {
    const Node& first = topo_.nodes_[it->second];
    return make_error(Errc::invalid_config,
                      fmt::format("duplicate name '{}' (first used by {} at line {})", name,
                                  first.where, first.loc.line),
                      std::move(where), std::move(loc));
  }
  Node node;
  node.name = std::move(name);
  node.kind = kind;
  node.out_channel.assign(static_cast<size_t>(ports) + 1, kNoChannel);
  node.where = std::move(where);
  node.loc = std::move(loc);
  topo_.nodes_.push_back(std::move(node));
  fixed_ports_.push_back(ports);
  topo_.host_index_.push_back(UINT32_MAX);
  if (kind == NodeKind::host) {
    topo_.host_index_[id] = static_cast<uint32_t>(topo_.hosts_.size());
    topo_.hosts_.push_back(id);
  }
  return id;
}

Result<uint32_t> TopologyBuilder::add_switch(std::string name, uint32_t ports, std::string where,
                                             SourceLoc loc) {
  return add_node(std::move(name), NodeKind::switch_node, ports, std::move(where), std::move(loc));
}

Result<uint32_t> TopologyBuilder::add_host(std::string name, std::string where, SourceLoc loc) {
  return add_node(std::move(name), NodeKind::host, 0, std::move(where), std::move(loc));
}

Status TopologyBuilder::add_link(uint32_t a, uint32_t port_a, uint32_t b, uint32_t port_b,
                                 double rate_bps, int64_t delay_ns, std::string where,
                                 SourceLoc loc) {
  auto fail = [&](std::string message) -> Status {
    return make_error(Errc::invalid_config, std::move(message), where, loc);
  };
  if (a >= topo_.nodes_.size() || b >= topo_.nodes_.size()) return fail("unknown node");
  if (a == b) return fail(fmt::format("a link from '{}' to itself", topo_.nodes_[a].name));
  if (auto problem = link_rate_problem(rate_bps); !problem.empty()) return fail(problem);
  if (delay_ns < 0 || delay_ns > kMaxLinkDelayNs) {
    return fail(fmt::format("a link delay must be in 0..{} (200 km of fibre), got {}",
                            format_duration_ns(static_cast<double>(kMaxLinkDelayNs)),
                            format_duration_ns(static_cast<double>(delay_ns))));
  }
  const uint32_t ends[2] = {a, b};
  uint32_t ports[2] = {port_a, port_b};
  for (int d = 0; d < 2; ++d) {
    Node& node = topo_.nodes_[ends[d]];
    if (node.kind == NodeKind::host) {
      for (const uint32_t channel : node.out_channel) {
        if (channel != kNoChannel) {
          const Link& first = topo_.links_[channel / 2];
          return fail(fmt::format("host '{}' already has its link ({} at line {}); a host has "
                                  "one NIC port",
                                  node.name, first.where, first.loc.line));
        }
      }
    }
    const uint32_t fixed = fixed_ports_[ends[d]];
    if (ports[d] == 0) {  // the lowest free port
      uint32_t p = 1;
      while (p < node.out_channel.size() && node.out_channel[p] != kNoChannel) ++p;
      ports[d] = p;
    }
    if (fixed != 0 && ports[d] > fixed) {
      return fail(fmt::format("'{}' has {} ports; port {} does not exist", node.name, fixed,
                              ports[d]));
    }
    if (ports[d] > kMaxSwitchPorts) {
      return fail(fmt::format("'{}' would need port {}; a switch has at most {} ports", node.name,
                              ports[d], kMaxSwitchPorts));
    }
    if (ports[d] < node.out_channel.size() && node.out_channel[ports[d]] != kNoChannel) {
      const Link& first = topo_.links_[node.out_channel[ports[d]] / 2];
      return fail(fmt::format("port {} of '{}' is already used by {} at line {}", ports[d],
                              node.name, first.where, first.loc.line));
    }
  }
  const auto id = static_cast<uint32_t>(topo_.links_.size());
  for (uint32_t d = 0; d < 2; ++d) {
    Node& node = topo_.nodes_[ends[d]];
    if (node.out_channel.size() <= ports[d]) node.out_channel.resize(ports[d] + 1, kNoChannel);
    node.out_channel[ports[d]] = 2 * id + d;
  }
  Link link;
  link.node[0] = a;
  link.node[1] = b;
  link.port[0] = ports[0];
  link.port[1] = ports[1];
  link.rate_bps = rate_bps;
  link.delay_ns = delay_ns;
  link.where = std::move(where);
  link.loc = std::move(loc);
  topo_.links_.push_back(std::move(link));
  return {};
}

Result<Topology> TopologyBuilder::finish() && {
  Topology& t = topo_;
  if (t.hosts_.empty()) {
    // Located at the first node (a topology without nodes has no location of its own).
    const std::string where = t.nodes_.empty() ? std::string() : t.nodes_[0].where;
    const SourceLoc loc = t.nodes_.empty() ? SourceLoc{} : t.nodes_[0].loc;
    return make_error(Errc::invalid_config, "the topology has no hosts", where, loc);
  }
  t.host_uplink_.assign(t.hosts_.size(), kNoChannel);
  for (uint32_t h = 0; h < t.hosts_.size(); ++h) {
    const Node& node = t.nodes_[t.hosts_[h]];
    for (const uint32_t channel : node.out_channel) {
      if (channel != kNoChannel) t.host_uplink_[h] = channel;
    }
    if (t.host_uplink_[h] == kNoChannel) {
      return make_error(Errc::invalid_config,
                        fmt::format("host '{}' has no link: the topology is not connected",
                                    node.name),
                        node.where, node.loc);
    }
  }
  // Breadth-first from the first host, never forwarding through a host.
  std::vector<bool> seen(t.nodes_.size(), false);
  std::deque<uint32_t> queue{t.hosts_[0]};
  seen[t.hosts_[0]] = true;
  while (!queue.empty()) {
    const uint32_t node = queue.front();
    queue.pop_front();
    if (node != t.hosts_[0] && t.nodes_[node].kind == NodeKind::host) continue;
    for (const uint32_t channel : t.nodes_[node].out_channel) {
      if (channel == kNoChannel) continue;
      const uint32_t next = t.channel(channel).to;
      if (!seen[next]) {
        seen[next] = true;
        queue.push_back(next);
      }
    }
  }
  for (uint32_t id = 0; id < t.nodes_.size(); ++id) {
    const Node& node = t.nodes_[id];
    if (!seen[id]) {
      return make_error(Errc::invalid_config,
                        fmt::format("the topology is not connected: no path from host '{}' to "
                                    "{} '{}'",
                                    t.nodes_[t.hosts_[0]].name,
                                    node.kind == NodeKind::host ? "host" : "switch", node.name),
                        node.where, node.loc);
    }
  }
  return std::move(topo_);
}

}  // namespace qb::fabric
