// The fabric drawing's layout (qb/reports/fabric_layout.hpp): tiers by distance from the hosts,
// every node inside the drawing, no two boxes of a row overlapping, switches over their
// neighbours, the width growing only when the hosts would not fit, and the load buckets.
#include "qb/reports/fabric_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

namespace qb::report {
namespace {

using judge::TopologyLink;
using judge::TopologyNode;
using judge::TopologyResult;

void add_node(TopologyResult& t, const std::string& name, const std::string& kind) {
  t.nodes.push_back(TopologyNode{name, kind});
}
void add_link(TopologyResult& t, const std::string& a, const std::string& b) {
  TopologyLink link;
  link.ends = {a, b};
  link.channels = {a + "->" + b + "#" + std::to_string(t.links.size()),
                   b + "->" + a + "#" + std::to_string(t.links.size())};
  link.rate_bps = 100e9;
  link.delay_ns = 1000;
  t.links.push_back(link);
}

size_t index_of(const TopologyResult& t, const std::string& name) {
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    if (t.nodes[n].name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return 0;
}

// The textbook PFC victim's fabric (configs/fabrics/pfc_victim.toml).
TopologyResult pfc_victim() {
  TopologyResult t;
  for (const char* s : {"leafA", "leafB", "spine"}) add_node(t, s, "switch");
  for (const char* h : {"s", "t", "r", "v"}) add_node(t, h, "host");
  add_link(t, "s", "leafA");
  add_link(t, "t", "leafA");
  add_link(t, "r", "leafA");
  add_link(t, "v", "leafB");
  add_link(t, "leafA", "spine");
  add_link(t, "spine", "leafB");
  return t;
}

// HPCC's fat tree shape: `pods` pods of ToRs and aggregation switches, hosts under each ToR,
// each agg i of a pod to cores i*cores_per_agg ...
TopologyResult fat_tree(int pods, int tors, int aggs, int hosts, int cores_per_agg) {
  TopologyResult t;
  int host = 0;
  for (int p = 0; p < pods; ++p) {
    for (int r = 0; r < tors; ++r) {
      const std::string tor = "tor" + std::to_string(p * tors + r);
      add_node(t, tor, "switch");
      for (int h = 0; h < hosts; ++h) {
        const std::string name = "h" + std::to_string(host++);
        add_node(t, name, "host");
        add_link(t, name, tor);
      }
    }
  }
  for (int p = 0; p < pods; ++p) {
    for (int a = 0; a < aggs; ++a) {
      const std::string agg = "agg" + std::to_string(p * aggs + a);
      add_node(t, agg, "switch");
      for (int r = 0; r < tors; ++r) add_link(t, "tor" + std::to_string(p * tors + r), agg);
    }
  }
  for (int c = 0; c < aggs * cores_per_agg; ++c) add_node(t, "core" + std::to_string(c), "switch");
  for (int p = 0; p < pods; ++p) {
    for (int a = 0; a < aggs; ++a) {
      for (int c = 0; c < cores_per_agg; ++c) {
        add_link(t, "agg" + std::to_string(p * aggs + a),
                 "core" + std::to_string(a * cores_per_agg + c));
      }
    }
  }
  return t;
}

// Every node inside the drawing, and no two boxes of one row overlapping.
void expect_bounded_and_apart(const TopologyResult& t, const FabricLayout& layout) {
  ASSERT_EQ(layout.nodes.size(), t.nodes.size());
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    const LaidNode& node = layout.nodes[n];
    EXPECT_GE(node.x - node.box_width / 2.0, 0.0) << t.nodes[n].name;
    EXPECT_LE(node.x + node.box_width / 2.0, layout.width) << t.nodes[n].name;
    EXPECT_GE(node.y - node.box_height / 2.0, 0.0) << t.nodes[n].name;
    EXPECT_LE(node.y + node.box_height / 2.0, layout.height) << t.nodes[n].name;
    EXPECT_GT(node.box_width, 0.0) << t.nodes[n].name;
    EXPECT_DOUBLE_EQ(node.y, layout.tier_y[node.tier]) << t.nodes[n].name;
  }
  for (uint32_t tier = 0; tier < layout.tiers; ++tier) {
    std::vector<const LaidNode*> row;
    for (const LaidNode& node : layout.nodes) {
      if (node.tier == tier) row.push_back(&node);
    }
    std::sort(row.begin(), row.end(), [](const auto* a, const auto* b) { return a->x < b->x; });
    for (size_t i = 1; i < row.size(); ++i) {
      EXPECT_GE(row[i]->x - row[i - 1]->x, (row[i]->box_width + row[i - 1]->box_width) / 2.0 - 1e-9)
          << "tier " << tier << ", nodes " << i - 1 << " and " << i << " overlap";
    }
  }
  // Upper tiers above lower ones.
  for (uint32_t tier = 1; tier < layout.tiers; ++tier) {
    EXPECT_LT(layout.tier_y[tier], layout.tier_y[tier - 1]);
  }
}

TEST(FabricLayout, TiersAreTheDistanceFromTheHosts) {
  const TopologyResult t = pfc_victim();
  const FabricLayout layout = layout_fabric(t);
  EXPECT_EQ(layout.tiers, 3u);
  for (const char* h : {"s", "t", "r", "v"}) EXPECT_EQ(layout.nodes[index_of(t, h)].tier, 0u) << h;
  EXPECT_EQ(layout.nodes[index_of(t, "leafA")].tier, 1u);
  EXPECT_EQ(layout.nodes[index_of(t, "leafB")].tier, 1u);
  EXPECT_EQ(layout.nodes[index_of(t, "spine")].tier, 2u);
  EXPECT_EQ(tier_name(0, 3), "hosts");
  EXPECT_EQ(tier_name(1, 3), "leaves");
  EXPECT_EQ(tier_name(2, 3), "spines");
  expect_bounded_and_apart(t, layout);
  EXPECT_DOUBLE_EQ(layout.width, FabricLayoutOptions{}.width);
  // Few hosts: every name fits, so no run labels.
  for (const LaidNode& node : layout.nodes) EXPECT_TRUE(node.label);
  EXPECT_TRUE(layout.host_groups.empty());
  for (size_t l = 0; l < t.links.size(); ++l) EXPECT_TRUE(layout.link_drawn[l]);
}

TEST(FabricLayout, SwitchesSitOverTheirNeighboursBelow) {
  const TopologyResult t = pfc_victim();
  const FabricLayout layout = layout_fabric(t);
  const auto x = [&](const char* name) { return layout.nodes[index_of(t, name)].x; };
  // leafA over s, t, r; leafB over v; the spine between the leaves.
  EXPECT_GE(x("leafA"), std::min({x("s"), x("t"), x("r")}));
  EXPECT_LE(x("leafA"), std::max({x("s"), x("t"), x("r")}));
  EXPECT_NEAR(x("leafB"), x("v"), 1e-9);
  EXPECT_NEAR(x("spine"), (x("leafA") + x("leafB")) / 2.0, 1e-9);
  // Hosts of one leaf stay together, left of the other leaf's.
  EXPECT_LT(std::max({x("s"), x("t"), x("r")}), x("v"));
}

TEST(FabricLayout, AFatTreeHasLeavesAggregationAndCores) {
  const TopologyResult t = fat_tree(2, 2, 2, 2, 2);
  const FabricLayout layout = layout_fabric(t);
  EXPECT_EQ(layout.tiers, 4u);
  EXPECT_EQ(layout.nodes[index_of(t, "tor3")].tier, 1u);
  EXPECT_EQ(layout.nodes[index_of(t, "agg0")].tier, 2u);
  EXPECT_EQ(layout.nodes[index_of(t, "core3")].tier, 3u);
  EXPECT_EQ(tier_name(1, 4), "leaves (ToR)");
  EXPECT_EQ(tier_name(2, 4), "aggregation");
  EXPECT_EQ(tier_name(3, 4), "cores");
  EXPECT_EQ(tier_name(4, 6), "tier 4");
  expect_bounded_and_apart(t, layout);
  // Pod 0's aggregation switches left of pod 1's.
  EXPECT_LT(std::max(layout.nodes[index_of(t, "agg0")].x, layout.nodes[index_of(t, "agg1")].x),
            std::min(layout.nodes[index_of(t, "agg2")].x, layout.nodes[index_of(t, "agg3")].x));
}

TEST(FabricLayout, ThreeHundredTwentyHostsFitTheWidthWithRunLabels) {
  const TopologyResult t = fat_tree(5, 4, 4, 16, 4);  // HPCC's 320 hosts
  ASSERT_EQ(t.nodes.size(), 376u);  // 320 hosts, 20 ToRs, 20 aggregation, 16 cores
  const FabricLayout layout = layout_fabric(t);
  EXPECT_EQ(layout.tiers, 4u);
  EXPECT_DOUBLE_EQ(layout.width, FabricLayoutOptions{}.width);
  expect_bounded_and_apart(t, layout);
  // Host names do not fit one by one: one label per ToR's run, covering its 16 hosts.
  size_t host_labels = 0, switch_labels = 0;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    (t.nodes[n].kind == "host" ? host_labels : switch_labels) += layout.nodes[n].label ? 1 : 0;
  }
  EXPECT_EQ(host_labels, 0u);
  EXPECT_EQ(switch_labels, 56u);  // tor19, agg19, core15 fit their boxes
  ASSERT_EQ(layout.host_groups.size(), 20u);
  EXPECT_EQ(layout.host_groups.front().text, "h0\u2013h15");
  for (const GroupLabel& group : layout.host_groups) {
    EXPECT_GE(group.x, layout.nodes[group.first].x);
    EXPECT_LE(group.x, layout.nodes[group.last].x);
    EXPECT_LE(group.y, layout.height);
  }
  // Each ToR over its own 16 hosts.
  for (int r = 0; r < 20; ++r) {
    const double tor = layout.nodes[index_of(t, "tor" + std::to_string(r))].x;
    EXPECT_GE(tor, layout.nodes[index_of(t, "h" + std::to_string(16 * r))].x);
    EXPECT_LE(tor, layout.nodes[index_of(t, "h" + std::to_string(16 * r + 15))].x);
  }
}

TEST(FabricLayout, TheWidthGrowsWhenHostsWouldGetLessThanTheMinimumPitch) {
  TopologyResult t;
  add_node(t, "big", "switch");
  for (int h = 0; h < 1000; ++h) {
    add_node(t, "h" + std::to_string(h), "host");
    add_link(t, "h" + std::to_string(h), "big");
  }
  const FabricLayoutOptions options;
  const FabricLayout layout = layout_fabric(t, options);
  EXPECT_NEAR(layout.width, options.left + options.right + 1000 * options.min_pitch, 1e-6);
  expect_bounded_and_apart(t, layout);
}

TEST(FabricLayout, AnUnknownEndIsNotDrawnAndAnUnreachedSwitchGetsARowAbove) {
  TopologyResult t = pfc_victim();
  add_node(t, "lonely", "switch");
  add_link(t, "v", "nowhere");
  const FabricLayout layout = layout_fabric(t);
  EXPECT_FALSE(layout.link_drawn.back());
  EXPECT_EQ(layout.tiers, 4u);
  EXPECT_EQ(layout.nodes[index_of(t, "lonely")].tier, 3u);
  expect_bounded_and_apart(t, layout);
}

TEST(FabricLayout, AnEmptyTopologyHasOneEmptyRow) {
  const FabricLayout layout = layout_fabric(TopologyResult{});
  EXPECT_EQ(layout.tiers, 1u);
  EXPECT_TRUE(layout.nodes.empty());
  EXPECT_GT(layout.height, 0.0);
}

TEST(FabricLayout, LoadBucketsAndTheirColours) {
  EXPECT_EQ(load_bucket(false, 1.0), 0);  // no flow crosses it
  EXPECT_EQ(load_bucket(true, 0.0), 1);
  EXPECT_EQ(load_bucket(true, 0.2499), 1);
  EXPECT_EQ(load_bucket(true, 0.25), 2);
  EXPECT_EQ(load_bucket(true, 0.5), 3);
  EXPECT_EQ(load_bucket(true, 0.75), 4);
  EXPECT_EQ(load_bucket(true, 0.8999), 4);
  EXPECT_EQ(load_bucket(true, 0.9), 5);
  EXPECT_EQ(load_bucket(true, 1.3), 5);
  EXPECT_EQ(load_bucket(true, std::nan("")), 1);
  std::set<std::string> colours;
  for (int b = 0; b < kLoadBuckets; ++b) colours.insert(load_bucket_colour(b));
  EXPECT_EQ(colours.size(), static_cast<size_t>(kLoadBuckets));
}

}  // namespace
}  // namespace qb::report
