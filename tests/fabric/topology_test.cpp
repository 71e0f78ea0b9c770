#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "qb/fabric/generators.hpp"
#include "qb/fabric/topology.hpp"

namespace qb::fabric {
namespace {

const GeneratedAt kAt{"topology", SourceLoc{"suite.toml", 3, 1}};

uint32_t count_switches(const Topology& t, std::string_view prefix) {
  uint32_t n = 0;
  for (const Node& node : t.nodes()) {
    if (node.kind == NodeKind::switch_node && node.name.rfind(prefix, 0) == 0) ++n;
  }
  return n;
}

TEST(FabricTopology, LeafSpineHasItsHostsSwitchesAndLinks) {
  LeafSpineSpec spec;
  spec.leaves = 4;
  spec.spines = 3;
  spec.hosts_per_leaf = 5;
  spec.uplink_rate_bps = 400e9;
  auto t = leaf_spine(spec, kAt);
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->host_count(), 20u);
  EXPECT_EQ(count_switches(*t, "leaf"), 4u);
  EXPECT_EQ(count_switches(*t, "spine"), 3u);
  EXPECT_EQ(t->links().size(), 20u + 12u);
  // h7 is on leaf1, port 3; its channel leaves the host and enters leaf1.
  const Channel up = t->channel(t->host_uplink(7));
  EXPECT_EQ(t->nodes()[up.from].name, "h7");
  EXPECT_EQ(t->nodes()[up.to].name, "leaf1");
  EXPECT_EQ(up.to_port, 3u);
  EXPECT_EQ(up.rate_bps, 100e9);
  const Channel down = t->channel(t->host_downlink(7));
  EXPECT_EQ(t->nodes()[down.from].name, "leaf1");
  // Uplinks run at the uplink rate.
  const Node& leaf0 = t->nodes()[*t->find_node("leaf0")];
  EXPECT_EQ(t->channel(leaf0.out_channel[6]).rate_bps, 400e9);
  EXPECT_EQ(t->nodes()[t->channel(leaf0.out_channel[6]).to].name, "spine0");
  EXPECT_EQ(t->channel_name(t->host_uplink(0)), "h0:1->leaf0:1");
}

TEST(FabricTopology, KAryFatTreeHasTheTextbookCounts) {
  auto t = fat_tree(FatTreeSpec::k_ary(4), kAt);
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->host_count(), 16u);  // k^3/4
  EXPECT_EQ(count_switches(*t, "tor"), 8u);
  EXPECT_EQ(count_switches(*t, "agg"), 8u);
  EXPECT_EQ(count_switches(*t, "core"), 4u);  // (k/2)^2
  EXPECT_EQ(t->links().size(), 16u + 16u + 16u);
}

TEST(FabricTopology, HpccFatTreeShapeMatchesItsFile) {
  // simulation/mix/fat.txt of HPCC: 376 nodes, 56 switches, 480 links.
  FatTreeSpec spec;
  spec.pods = 5;
  spec.tors_per_pod = 4;
  spec.aggs_per_pod = 4;
  spec.hosts_per_tor = 16;
  spec.cores_per_agg = 4;
  spec.fabric_rate_bps = 400e9;
  auto t = fat_tree(spec, kAt);
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->nodes().size(), 376u);
  EXPECT_EQ(t->host_count(), 320u);
  EXPECT_EQ(count_switches(*t, "tor"), 20u);
  EXPECT_EQ(count_switches(*t, "agg"), 20u);
  EXPECT_EQ(count_switches(*t, "core"), 16u);
  EXPECT_EQ(t->links().size(), 480u);
  // agg1 of pod 0 (agg1) links to cores 4..7, as the file's "341 364..367".
  const Node& agg1 = t->nodes()[*t->find_node("agg1")];
  std::vector<std::string> up;
  for (uint32_t p = 5; p < agg1.out_channel.size(); ++p) {
    up.push_back(t->nodes()[t->channel(agg1.out_channel[p]).to].name);
  }
  EXPECT_EQ(up, (std::vector<std::string>{"core4", "core5", "core6", "core7"}));
}

TEST(FabricTopology, OneSwitchIsTheIncastGraph) {
  auto t = one_switch(3, 100e9, 50e9, 250, kAt);
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->host_count(), 4u);
  EXPECT_EQ(t->nodes()[t->hosts()[3]].name, "rx");
  EXPECT_EQ(t->channel(t->host_downlink(3)).rate_bps, 50e9);
}

TEST(FabricTopology, BuilderRefusesBadInputWithItsLocation) {
  const SourceLoc loc{"suite.toml", 7, 3};
  TopologyBuilder b;
  ASSERT_TRUE(b.add_switch("s1", 4, "topology.switch[0]", {"suite.toml", 5, 1}));
  ASSERT_TRUE(b.add_host("h0", "topology.host[0]", {"suite.toml", 6, 1}));
  ASSERT_TRUE(b.add_host("h1", "topology.host[1]", loc));
  auto dup = b.add_host("s1", "topology.host[2]", loc);
  ASSERT_FALSE(dup);
  EXPECT_EQ(dup.error().code, Errc::invalid_config);
  EXPECT_NE(dup.error().message.find("duplicate name 's1'"), std::string::npos);
  EXPECT_EQ(dup.error().loc.line, 7u);
  for (const double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity(),
                           1e30}) {
    auto status = b.add_link(1, 0, 0, 1, bad, 0, "topology.link[0]", loc);
    ASSERT_FALSE(status) << bad;
    EXPECT_EQ(status.error().where, "topology.link[0]");
  }
  EXPECT_FALSE(b.add_link(1, 0, 0, 5, 100e9, 0, "l", loc));  // s1 has 4 ports
  EXPECT_FALSE(b.add_link(1, 0, 0, 1, 100e9, -1, "l", loc));
  EXPECT_FALSE(b.add_link(1, 0, 0, 1, 100e9, 2'000'000, "l", loc));
  ASSERT_TRUE(b.add_link(1, 0, 0, 1, 100e9, 0, "topology.link[0]", loc));
  auto reused = b.add_link(2, 0, 0, 1, 100e9, 0, "topology.link[1]", loc);
  ASSERT_FALSE(reused);
  EXPECT_NE(reused.error().message.find("port 1 of 's1' is already used"), std::string::npos);
  ASSERT_TRUE(b.add_switch("s2", 0, "topology.switch[1]", loc));
  ASSERT_TRUE(b.add_link(0, 0, 3, 0, 100e9, 0, "topology.link[2]", loc));
  // h0 on a second switch.
  auto second = b.add_link(1, 0, 3, 0, 100e9, 0, "topology.link[3]", loc);
  ASSERT_FALSE(second);
  EXPECT_NE(second.error().message.find("already has its link"), std::string::npos);
  // h1 has no link yet: not connected, at h1's definition.
  auto lonely = std::move(b).finish();
  ASSERT_FALSE(lonely);
  EXPECT_NE(lonely.error().message.find("'h1'"), std::string::npos);
  EXPECT_EQ(lonely.error().where, "topology.host[1]");
}

TEST(FabricTopology, TwoIslandsAreNotConnected) {
  TopologyBuilder b;
  const SourceLoc loc{"f", 1, 1};
  ASSERT_TRUE(b.add_host("a", "h", loc));
  ASSERT_TRUE(b.add_host("b", "h", {"f", 8, 2}));
  ASSERT_TRUE(b.add_switch("s1", 0, "s", loc));
  ASSERT_TRUE(b.add_switch("s2", 0, "s", {"f", 9, 2}));
  ASSERT_TRUE(b.add_link(0, 0, 2, 0, 1e9, 0, "l", loc));
  ASSERT_TRUE(b.add_link(1, 0, 3, 0, 1e9, 0, "l", loc));
  auto t = std::move(b).finish();
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("not connected"), std::string::npos);
  EXPECT_NE(t.error().message.find("host 'b'"), std::string::npos);
  EXPECT_EQ(t.error().loc.line, 8u);  // b is the first node a cannot reach
}

TEST(FabricTopology, GeneratorsRefuseShapesTheyCannotBuild) {
  LeafSpineSpec spec;
  spec.hosts_per_leaf = 250;
  spec.spines = 10;  // 260 ports on a leaf
  auto t = leaf_spine(spec, kAt);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().loc.line, 3u);
  EXPECT_FALSE(fat_tree(FatTreeSpec::k_ary(0), kAt));
}

}  // namespace
}  // namespace qb::fabric
