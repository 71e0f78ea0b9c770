#include "qb/fabric/routing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <numeric>

#include "qb/common/rng.hpp"

namespace qb::fabric {
namespace {

// The ECMP hash of a flow at one switch: the 5-tuple and the switch mixed with the seed, as a
// switch's hash function with its own seed spreads packets of different flows.
uint64_t ecmp_hash(uint64_t seed, const FlowEndpoints& flow, uint16_t sport, uint32_t node) {
  uint64_t state = seed ^ 0x6a09e667f3bcc909ULL;
  uint64_t h = splitmix64(state);
  for (const uint64_t word : {uint64_t{flow.src_host}, uint64_t{flow.dst_host},
                              (uint64_t{sport} << 16) | kRoceV2Port, uint64_t{node}}) {
    state = h ^ (word * 0x9e3779b97f4a7c15ULL);
    h = splitmix64(state);
  }
  return h;
}

// Hop distance of every node to `dst_node`, walking channels backwards; hosts other than the
// destination do not forward, so paths never cross them.
std::vector<uint32_t> distances_to(const Topology& t, uint32_t dst_node) {
  std::vector<uint32_t> dist(t.nodes().size(), UINT32_MAX);
  dist[dst_node] = 0;
  std::deque<uint32_t> queue{dst_node};
  while (!queue.empty()) {
    const uint32_t node = queue.front();
    queue.pop_front();
    if (node != dst_node && t.nodes()[node].kind == NodeKind::host) continue;
    for (const uint32_t out : t.nodes()[node].out_channel) {
      if (out == kNoChannel) continue;
      // The channel into `node` is the reverse of this one.
      const uint32_t prev = t.channel(out ^ 1u).from;
      if (dist[prev] == UINT32_MAX) {
        dist[prev] = dist[node] + 1;
        queue.push_back(prev);
      }
    }
  }
  return dist;
}

Error route_error(const std::string& message, const std::string& where, const SourceLoc& loc) {
  return make_error(Errc::invalid_config, message, where, loc);
}

Result<Route> route_by_lft(const Topology& t, const FlowEndpoints& flow, uint32_t index,
                           const RoutingSpec& spec, const std::vector<int32_t>& lft_of_node) {
  Route route;
  const uint32_t dst_node = t.hosts()[flow.dst_host];
  const std::string& dst_name = t.nodes()[dst_node].name;
  route.channels.push_back(t.host_uplink(flow.src_host));
  std::vector<bool> visited(t.nodes().size(), false);
  uint32_t node = t.channel(route.channels.back()).to;
  std::string trail = t.nodes()[t.hosts()[flow.src_host]].name;
  while (node != dst_node) {
    const Node& here = t.nodes()[node];
    trail += " -> " + here.name;
    if (here.kind == NodeKind::host) {
      const int32_t k = lft_of_node[t.channel(route.channels.back()).from];
      const std::string message = fmt::format(
          "the LFTs send flow #{}'s traffic for '{}' to host '{}' ({})", index, dst_name,
          here.name, trail);
      if (k < 0) return route_error(message, spec.where, spec.loc);
      const Lft& lft = spec.lfts[static_cast<size_t>(k)];
      return route_error(message, lft.where, lft.entry_loc[flow.dst_host]);
    }
    if (visited[node]) {
      const Lft& lft = spec.lfts[static_cast<size_t>(lft_of_node[node])];
      return route_error(fmt::format("routing loop for destination '{}': {}", dst_name, trail),
                         lft.where, lft.entry_loc[flow.dst_host]);
    }
    visited[node] = true;
    if (lft_of_node[node] < 0) {
      return route_error(fmt::format("switch '{}' has no LFT, so no route reaches '{}' ({})",
                                     here.name, dst_name, trail),
                         spec.where, spec.loc);
    }
    const Lft& lft = spec.lfts[static_cast<size_t>(lft_of_node[node])];
    const uint32_t port = lft.out_port[flow.dst_host];
    if (port == 0) {
      return route_error(fmt::format("switch '{}' has no LFT entry for '{}': no route reaches it "
                                     "({})",
                                     here.name, dst_name, trail),
                         lft.where, lft.loc);
    }
    if (port >= here.out_channel.size() || here.out_channel[port] == kNoChannel) {
      return route_error(fmt::format("switch '{}' sends '{}' out of port {}, which has no link",
                                     here.name, dst_name, port),
                         lft.where, lft.entry_loc[flow.dst_host]);
    }
    route.channels.push_back(here.out_channel[port]);
    node = t.channel(route.channels.back()).to;
  }
  return route;
}

}  // namespace

uint16_t flow_source_port(uint64_t seed, uint64_t flow) noexcept {
  return static_cast<uint16_t>(49152 + derive_seed(seed, flow) % 16384);
}

Result<std::vector<Route>> route_flows(const Topology& t, std::span<const FlowEndpoints> flows,
                                       const RoutingSpec& spec) {
  std::vector<Route> routes(flows.size());
  for (uint32_t i = 0; i < flows.size(); ++i) {
    const FlowEndpoints& flow = flows[i];
    if (flow.src_host >= t.host_count() || flow.dst_host >= t.host_count()) {
      return route_error(fmt::format("flow #{} names a host that does not exist", i), spec.where,
                         spec.loc);
    }
    if (flow.src_host == flow.dst_host) {
      return route_error(fmt::format("flow #{} sends from '{}' to itself", i,
                                     t.nodes()[t.hosts()[flow.src_host]].name),
                         spec.where, spec.loc);
    }
    routes[i].udp_source_port = flow_source_port(spec.ecmp_seed, i);
  }
  if (spec.kind == RoutingKind::lft) {
    std::vector<int32_t> lft_of_node(t.nodes().size(), -1);
    for (size_t k = 0; k < spec.lfts.size(); ++k) {
      lft_of_node[spec.lfts[k].switch_node] = static_cast<int32_t>(k);
    }
    for (uint32_t i = 0; i < flows.size(); ++i) {
      auto route = route_by_lft(t, flows[i], i, spec, lft_of_node);
      if (!route) return route.error();
      route->udp_source_port = routes[i].udp_source_port;
      routes[i] = std::move(*route);
    }
    return routes;
  }
  // Shortest paths: one breadth-first search per destination, its flows routed together.
  std::vector<uint32_t> order(flows.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return flows[a].dst_host < flows[b].dst_host;
  });
  std::vector<uint32_t> dist;
  uint32_t dist_for = UINT32_MAX;
  std::vector<uint32_t> candidates;
  for (const uint32_t i : order) {
    const FlowEndpoints& flow = flows[i];
    const uint32_t dst_node = t.hosts()[flow.dst_host];
    if (dist_for != flow.dst_host) {
      dist = distances_to(t, dst_node);
      dist_for = flow.dst_host;
    }
    Route& route = routes[i];
    route.channels.push_back(t.host_uplink(flow.src_host));
    uint32_t node = t.channel(route.channels.back()).to;
    if (dist[node] == UINT32_MAX) {
      const Node& dst = t.nodes()[dst_node];
      return route_error(fmt::format("no route reaches '{}' from '{}'", dst.name,
                                     t.nodes()[t.hosts()[flow.src_host]].name),
                         dst.where, dst.loc);
    }
    while (node != dst_node) {
      const Node& here = t.nodes()[node];
      candidates.clear();
      for (const uint32_t out : here.out_channel) {
        if (out == kNoChannel) continue;
        const uint32_t next = t.channel(out).to;
        if (dist[next] + 1 == dist[node]) candidates.push_back(out);
      }
      // dist[node] > 0 and finite, so a neighbour one hop closer exists.
      const size_t pick =
          spec.kind == RoutingKind::single || candidates.size() == 1
              ? 0
              : ecmp_hash(spec.ecmp_seed, flow, route.udp_source_port, node) % candidates.size();
      route.channels.push_back(candidates[pick]);
      node = t.channel(candidates[pick]).to;
    }
  }
  return routes;
}

}  // namespace qb::fabric
