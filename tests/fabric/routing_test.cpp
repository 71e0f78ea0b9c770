#include <gtest/gtest.h>

#include <set>

#include "qb/fabric/generators.hpp"
#include "qb/fabric/routing.hpp"

namespace qb::fabric {
namespace {

Topology leaf_spine_4x2() {
  LeafSpineSpec spec;
  spec.leaves = 4;
  spec.spines = 2;
  spec.hosts_per_leaf = 4;
  auto t = leaf_spine(spec, {"topology", {}});
  EXPECT_TRUE(t);
  return std::move(*t);
}

std::vector<std::string> hops(const Topology& t, const Route& route) {
  std::vector<std::string> names;
  for (const uint32_t ch : route.channels) names.push_back(t.nodes()[t.channel(ch).to].name);
  return names;
}

TEST(FabricRouting, ShortestPathsAreMinimalAndEcmpSpreadsOverSpines) {
  const Topology t = leaf_spine_4x2();
  std::vector<FlowEndpoints> flows;
  for (uint32_t i = 0; i < 64; ++i) flows.push_back({i % 4, 4 + (i % 12)});  // leaf0 -> others
  flows.push_back({0, 1});                                                   // same leaf
  RoutingSpec spec;
  auto routes = route_flows(t, flows, spec);
  ASSERT_TRUE(routes) << routes.error().to_string();
  std::set<std::string> spines;
  for (size_t i = 0; i < 64; ++i) {
    const auto path = hops(t, (*routes)[i]);
    ASSERT_EQ(path.size(), 4u);
    EXPECT_EQ(path[0], "leaf0");
    spines.insert(path[1]);
    EXPECT_EQ(path[3], t.nodes()[t.hosts()[flows[i].dst_host]].name);
    EXPECT_GE((*routes)[i].udp_source_port, 49152);
  }
  EXPECT_EQ(spines, (std::set<std::string>{"spine0", "spine1"}));
  EXPECT_EQ(hops(t, routes->back()), (std::vector<std::string>{"leaf0", "h1"}));
  // Deterministic per seed; another seed moves some flows.
  auto again = route_flows(t, flows, spec);
  spec.ecmp_seed = 99;
  auto other = route_flows(t, flows, spec);
  ASSERT_TRUE(again && other);
  size_t moved = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    EXPECT_EQ((*again)[i].channels, (*routes)[i].channels);
    moved += (*other)[i].channels != (*routes)[i].channels ? 1 : 0;
  }
  EXPECT_GT(moved, 0u);
}

TEST(FabricRouting, SinglePathTakesTheLowestPort) {
  const Topology t = leaf_spine_4x2();
  std::vector<FlowEndpoints> flows{{0, 5}, {1, 9}, {2, 14}};
  RoutingSpec spec;
  spec.kind = RoutingKind::single;
  auto routes = route_flows(t, flows, spec);
  ASSERT_TRUE(routes);
  for (const Route& route : *routes) EXPECT_EQ(hops(t, route)[1], "spine0");
}

TEST(FabricRouting, FlowToItselfIsRefused) {
  const Topology t = leaf_spine_4x2();
  std::vector<FlowEndpoints> flows{{3, 3}};
  auto routes = route_flows(t, flows, RoutingSpec{});
  ASSERT_FALSE(routes);
  EXPECT_NE(routes.error().message.find("to itself"), std::string::npos);
}

// leaf0 -> spine1 -> leaf2 for h8 (leaf2's port 1), by tables.
RoutingSpec lft_spec(const Topology& t) {
  RoutingSpec spec;
  spec.kind = RoutingKind::lft;
  spec.where = "topology.routing";
  for (const char* name : {"leaf0", "spine1", "leaf2"}) {
    Lft lft;
    lft.switch_node = *t.find_node(name);
    lft.out_port.assign(t.host_count(), 0);
    lft.entry_loc.assign(t.host_count(), SourceLoc{"suite.toml", 20, 7});
    lft.where = std::string("topology.lft.") + name;
    lft.loc = SourceLoc{"suite.toml", 19, 1};
    spec.lfts.push_back(std::move(lft));
  }
  spec.lfts[0].out_port[8] = 6;  // leaf0: hosts 1-4, spine0 5, spine1 6
  spec.lfts[1].out_port[8] = 3;  // spine1: leaf0 1, leaf1 2, leaf2 3
  spec.lfts[2].out_port[8] = 1;  // leaf2: h8 on port 1
  return spec;
}

TEST(FabricRouting, LftRoutesFollowTheTables) {
  const Topology t = leaf_spine_4x2();
  const RoutingSpec spec = lft_spec(t);
  std::vector<FlowEndpoints> flows{{0, 8}};
  auto routes = route_flows(t, flows, spec);
  ASSERT_TRUE(routes) << routes.error().to_string();
  EXPECT_EQ(hops(t, (*routes)[0]), (std::vector<std::string>{"leaf0", "spine1", "leaf2", "h8"}));
}

TEST(FabricRouting, LftErrorsNameTheTable) {
  const Topology t = leaf_spine_4x2();
  std::vector<FlowEndpoints> flows{{0, 8}};
  {
    RoutingSpec spec = lft_spec(t);
    spec.lfts[2].out_port[8] = 5;  // back up to spine0... which has no LFT
    auto routes = route_flows(t, flows, spec);
    ASSERT_FALSE(routes);
    EXPECT_NE(routes.error().message.find("switch 'spine0' has no LFT"), std::string::npos);
  }
  {
    RoutingSpec spec = lft_spec(t);
    spec.lfts[2].out_port[8] = 6;  // leaf2 -> spine1 -> leaf2 ...: a loop
    auto routes = route_flows(t, flows, spec);
    ASSERT_FALSE(routes);
    EXPECT_NE(routes.error().message.find("routing loop"), std::string::npos)
        << routes.error().message;
    EXPECT_EQ(routes.error().loc.line, 20u);
  }
  {
    RoutingSpec spec = lft_spec(t);
    spec.lfts[1].out_port[8] = 0;  // no entry: no route reaches h8
    auto routes = route_flows(t, flows, spec);
    ASSERT_FALSE(routes);
    EXPECT_NE(routes.error().message.find("no LFT entry for 'h8'"), std::string::npos);
    EXPECT_EQ(routes.error().where, "topology.lft.spine1");
  }
  {
    RoutingSpec spec = lft_spec(t);
    spec.lfts[2].out_port[8] = 40;  // no link there
    auto routes = route_flows(t, flows, spec);
    ASSERT_FALSE(routes);
    EXPECT_NE(routes.error().message.find("port 40, which has no link"), std::string::npos);
  }
  {
    RoutingSpec spec = lft_spec(t);
    spec.lfts[2].out_port[8] = 2;  // h9, not h8
    auto routes = route_flows(t, flows, spec);
    ASSERT_FALSE(routes);
    EXPECT_NE(routes.error().message.find("to host 'h9'"), std::string::npos);
  }
}

}  // namespace
}  // namespace qb::fabric
