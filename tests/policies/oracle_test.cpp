#include "qb/policies/oracle.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "qb/common/rng.hpp"

namespace qb::policy {
namespace {

constexpr double kPort = 100e9;

/// A tree built by hand (the oracle does not care how it was made).
class TreeBuilder {
 public:
  TreeBuilder() {
    SchedTree::Element root;
    root.name = "root";
    tree_.elements.push_back(root);
  }
  uint32_t node(uint32_t parent, uint32_t bw_share = 0, double cap_bps = 0.0) {
    return add(parent, false, bw_share, cap_bps);
  }
  uint32_t leaf(uint32_t parent, uint32_t bw_share = 0, double cap_bps = 0.0) {
    return add(parent, true, bw_share, cap_bps);
  }
  const SchedTree& tree() const { return tree_; }

 private:
  uint32_t add(uint32_t parent, bool is_leaf, uint32_t bw_share, double cap_bps) {
    const auto index = static_cast<uint32_t>(tree_.elements.size());
    SchedTree::Element element;
    element.name = "e" + std::to_string(index);
    element.parent = parent;
    element.is_leaf = is_leaf;
    element.bw_share = bw_share;
    element.weight = bw_share != 0 ? bw_share : SchedTree::kDefaultWeight;
    element.max_avg_bw_bps = cap_bps;
    element.depth = tree_.elements[parent].depth + 1;
    tree_.elements[parent].children.push_back(index);
    tree_.elements.push_back(element);
    return index;
  }
  SchedTree tree_;
};

void add_flows(std::vector<FlowDemand>& flows, uint32_t leaf, int count,
               double offered_bps = kUnlimited) {
  for (int i = 0; i < count; ++i) flows.push_back({leaf, offered_bps});
}

// mlx5dv_sched man page: g1 bw_share 7; g2 bw_share 3 capped at 4096 Mbit/s.
TEST(Oracle, ManPageExampleWithCap) {
  TreeBuilder b;
  const uint32_t g1 = b.leaf(0, 7);
  const uint32_t g2 = b.leaf(0, 3, 4096e6);
  std::vector<FlowDemand> flows;
  add_flows(flows, g1, 4);
  add_flows(flows, g2, 4);
  const auto r = expected_rates(b.tree(), flows, kPort);
  ASSERT_EQ(r.flow_bps.size(), 8u);
  // g2 is held at its cap; the remaining 95.904 Gbit/s go to g1 (work-conserving).
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.flow_bps[i], 23.976e9, 1e-3);
  for (int i = 4; i < 8; ++i) EXPECT_NEAR(r.flow_bps[i], 1.024e9, 1e-3);
  EXPECT_NEAR(r.element_bps[g1], 95.904e9, 1e-2);
  EXPECT_NEAR(r.element_bps[g2], 4.096e9, 1e-2);
  EXPECT_NEAR(r.element_bps[0], 100e9, 1e-2);
  EXPECT_EQ(r.element_demand_bps[g2], 4096e6);
  EXPECT_TRUE(std::isinf(r.element_demand_bps[g1]));
  EXPECT_TRUE(std::isinf(r.element_demand_bps[0]));
}

TEST(Oracle, ManPageExampleWithoutCap) {
  TreeBuilder b;
  const uint32_t g1 = b.leaf(0, 7);
  const uint32_t g2 = b.leaf(0, 3);
  std::vector<FlowDemand> flows;
  add_flows(flows, g1, 4);
  add_flows(flows, g2, 4);
  const auto r = expected_rates(b.tree(), flows, kPort);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.flow_bps[i], 17.5e9, 1e-3);
  for (int i = 4; i < 8; ++i) EXPECT_NEAR(r.flow_bps[i], 7.5e9, 1e-3);
  EXPECT_NEAR(r.element_bps[g1], 70e9, 1e-2);
  EXPECT_NEAR(r.element_bps[g2], 30e9, 1e-2);
}

TEST(Oracle, CbrFlowBelowItsShareLeavesTheRestToOthers) {
  // One leaf, three flows: a 10 Gbit/s CBR flow and two saturating ones. Equal share would be
  // 33.3 each; the CBR flow keeps 10 and the other two split 90.
  TreeBuilder b;
  const uint32_t leaf = b.leaf(0);
  std::vector<FlowDemand> flows{{leaf, 10e9}, {leaf, kUnlimited}, {leaf, kUnlimited}};
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_DOUBLE_EQ(r.flow_bps[0], 10e9);
  EXPECT_DOUBLE_EQ(r.flow_bps[1], 45e9);
  EXPECT_DOUBLE_EQ(r.flow_bps[2], 45e9);
}

TEST(Oracle, CbrLeafBelowItsWeightedShare) {
  // a:b:c = 1:1:2. a asks 5 G (share 25 G): satisfied; b and c split 95 G 1:2.
  TreeBuilder b;
  const uint32_t la = b.leaf(0, 1);
  const uint32_t lb = b.leaf(0, 1);
  const uint32_t lc = b.leaf(0, 2);
  std::vector<FlowDemand> flows{{la, 5e9}, {lb, kUnlimited}, {lc, kUnlimited}};
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_DOUBLE_EQ(r.flow_bps[0], 5e9);
  EXPECT_NEAR(r.flow_bps[1], 95e9 / 3, 1e-3);
  EXPECT_NEAR(r.flow_bps[2], 95e9 * 2 / 3, 1e-3);
}

TEST(Oracle, WaterFillingTakesSeveralRounds) {
  // Weights 1:1:1:1 over 100 G: shares 25. d asks 10 -> 30 each for the rest; c asks 28 ->
  // 31 each for a and b.
  TreeBuilder b;
  const uint32_t l0 = b.leaf(0);
  const uint32_t l1 = b.leaf(0);
  const uint32_t l2 = b.leaf(0);
  const uint32_t l3 = b.leaf(0);
  std::vector<FlowDemand> flows{{l0, kUnlimited}, {l1, 40e9}, {l2, 28e9}, {l3, 10e9}};
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_NEAR(r.flow_bps[0], 31e9, 1e-3);
  EXPECT_NEAR(r.flow_bps[1], 31e9, 1e-3);
  EXPECT_DOUBLE_EQ(r.flow_bps[2], 28e9);
  EXPECT_DOUBLE_EQ(r.flow_bps[3], 10e9);
}

TEST(Oracle, ThreeLevelsWithCapsAtTwoLevels) {
  // root
  //  |- A (w 3, cap 60G)
  //  |   |- A1 (w 1)          2 saturating flows
  //  |   `- A2 (w 2, cap 10G) 1 saturating flow
  //  `- B (w 1)
  //      |- B1 (w 1)          1 saturating flow
  //      `- B2 (w 1)          1 CBR flow of 5G
  // Root: A share 75 > cap 60 -> A 60, B 40. In A: A1 share 20, A2 share 40 > cap 10 -> A2 10,
  // A1 50 (25 per flow). In B: B2 5, B1 35.
  TreeBuilder b;
  const uint32_t a = b.node(0, 3, 60e9);
  const uint32_t bb = b.node(0, 1);
  const uint32_t a1 = b.leaf(a, 1);
  const uint32_t a2 = b.leaf(a, 2, 10e9);
  const uint32_t b1 = b.leaf(bb, 1);
  const uint32_t b2 = b.leaf(bb, 1);
  std::vector<FlowDemand> flows;
  add_flows(flows, a1, 2);
  add_flows(flows, a2, 1);
  add_flows(flows, b1, 1);
  add_flows(flows, b2, 1, 5e9);
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_NEAR(r.flow_bps[0], 25e9, 1e-3);
  EXPECT_NEAR(r.flow_bps[1], 25e9, 1e-3);
  EXPECT_DOUBLE_EQ(r.flow_bps[2], 10e9);
  EXPECT_NEAR(r.flow_bps[3], 35e9, 1e-3);
  EXPECT_DOUBLE_EQ(r.flow_bps[4], 5e9);
  EXPECT_NEAR(r.element_bps[a], 60e9, 1e-3);
  EXPECT_NEAR(r.element_bps[bb], 40e9, 1e-3);
  EXPECT_EQ(r.element_demand_bps[a], 60e9);
  EXPECT_TRUE(std::isinf(r.element_demand_bps[bb]));
  EXPECT_EQ(r.element_demand_bps[b2], 5e9);
}

TEST(Oracle, ZeroShareMixedCountsAsWeightOne) {
  TreeBuilder b;
  const uint32_t l0 = b.leaf(0, 0);  // device default -> weight 1
  const uint32_t l1 = b.leaf(0, 4);
  std::vector<FlowDemand> flows{{l0, kUnlimited}, {l1, kUnlimited}};
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_NEAR(r.flow_bps[0], 20e9, 1e-3);
  EXPECT_NEAR(r.flow_bps[1], 80e9, 1e-3);
}

TEST(Oracle, AllCappedBelowCapacityIsNotWorkConservingBeyondCaps) {
  TreeBuilder b;
  const uint32_t l0 = b.leaf(0, 1, 10e9);
  const uint32_t l1 = b.leaf(0, 5, 20e9);
  std::vector<FlowDemand> flows;
  add_flows(flows, l0, 2);
  add_flows(flows, l1, 3);
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_DOUBLE_EQ(r.flow_bps[0], 5e9);
  EXPECT_DOUBLE_EQ(r.flow_bps[1], 5e9);
  for (int i = 2; i < 5; ++i) EXPECT_NEAR(r.flow_bps[i], 20e9 / 3, 1e-3);
  EXPECT_NEAR(r.element_bps[0], 30e9, 1e-3);
  EXPECT_EQ(r.element_demand_bps[0], 30e9);
}

TEST(Oracle, LeafWithoutFlowsGetsNothing) {
  TreeBuilder b;
  const uint32_t busy = b.leaf(0, 1);
  const uint32_t idle = b.leaf(0, 9);  // heavy weight, but no flows
  std::vector<FlowDemand> flows;
  add_flows(flows, busy, 2);
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_EQ(r.element_bps[idle], 0.0);
  EXPECT_EQ(r.element_demand_bps[idle], 0.0);
  EXPECT_NEAR(r.flow_bps[0], 50e9, 1e-3);
  EXPECT_NEAR(r.flow_bps[1], 50e9, 1e-3);
}

TEST(Oracle, EverythingBelowCapacityGetsItsOffer) {
  TreeBuilder b;
  const uint32_t l0 = b.leaf(0, 1);
  const uint32_t l1 = b.leaf(0, 7);
  std::vector<FlowDemand> flows{{l0, 12e9}, {l1, 3e9}, {l1, 1e9}};
  const auto r = expected_rates(b.tree(), flows, kPort);
  EXPECT_EQ(r.flow_bps, (std::vector<double>{12e9, 3e9, 1e9}));
  EXPECT_DOUBLE_EQ(r.element_bps[0], 16e9);
}

TEST(Oracle, DegenerateInputsNeverGiveNaN) {
  TreeBuilder b;
  const uint32_t l0 = b.leaf(0, 1);
  const uint32_t n = b.node(0, 1);  // a node a flow wrongly names
  std::vector<FlowDemand> flows{{l0, std::nan("")}, {l0, -5.0}, {l0, 0.0},
                                {n, 1e9},           {99, 1e9},  {l0, kUnlimited}};
  for (const double capacity : {kPort, 0.0, -1.0, std::nan(""), kUnlimited}) {
    const auto r = expected_rates(b.tree(), flows, capacity);
    for (const double rate : r.flow_bps) EXPECT_FALSE(std::isnan(rate)) << capacity;
    for (const double rate : r.element_bps) EXPECT_FALSE(std::isnan(rate)) << capacity;
    EXPECT_EQ(r.flow_bps[0], 0.0);
    EXPECT_EQ(r.flow_bps[1], 0.0);
    EXPECT_EQ(r.flow_bps[2], 0.0);
    EXPECT_EQ(r.flow_bps[3], 0.0);
    EXPECT_EQ(r.flow_bps[4], 0.0);
  }
  const auto unlimited = expected_rates(b.tree(), flows, kUnlimited);
  EXPECT_TRUE(std::isinf(unlimited.flow_bps[5]));
  const auto normal = expected_rates(b.tree(), flows, kPort);
  EXPECT_DOUBLE_EQ(normal.flow_bps[5], kPort);
  EXPECT_EQ(expected_rates(SchedTree{}, {}, kPort).flow_bps.size(), 0u);
}

// ---- Property tests on random trees ----

struct RandomCase {
  TreeBuilder builder;
  std::vector<FlowDemand> flows;
  double capacity_bps = kPort;
};

RandomCase random_case(uint64_t seed) {
  Rng rng(seed);
  RandomCase c;
  const auto max_depth = static_cast<uint32_t>(1 + rng.next_below(5));  // leaves at depth 1-5
  auto random_cap = [&rng](double scale) {
    return rng.next_below(3) == 0
               ? 1e6 * static_cast<double>(1 + rng.next_below(static_cast<uint64_t>(scale / 1e6)))
               : 0.0;
  };
  // Grow level by level from the root.
  std::vector<uint32_t> frontier{0};
  for (uint32_t depth = 1; depth <= max_depth; ++depth) {
    std::vector<uint32_t> next;
    for (const uint32_t parent : frontier) {
      const auto fan_out = static_cast<uint32_t>(1 + rng.next_below(6));
      for (uint32_t k = 0; k < fan_out; ++k) {
        const auto share = static_cast<uint32_t>(rng.next_below(11));
        const bool leaf = depth == max_depth || rng.next_below(3) == 0;
        const double cap = random_cap(c.capacity_bps);
        if (leaf) {
          const uint32_t index = c.builder.leaf(parent, share, cap);
          const auto flow_count = rng.next_below(5);  // 0-4 flows: some leaves idle
          for (uint64_t f = 0; f < flow_count; ++f) {
            const double offered =
                rng.next_below(2) == 0 ? kUnlimited : rng.next_unit() * 0.5 * c.capacity_bps;
            c.flows.push_back({index, offered});
          }
        } else {
          next.push_back(c.builder.node(parent, share, cap));
        }
      }
    }
    frontier = std::move(next);
    if (frontier.empty()) break;
  }
  return c;
}

constexpr double kRel = 1e-9;

bool near(double a, double b) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= kRel * std::max({1.0, std::abs(a), std::abs(b)});
}

TEST(OracleProperty, RandomTrees) {
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const RandomCase c = random_case(seed);
    const SchedTree& tree = c.builder.tree();
    const auto r = expected_rates(tree, c.flows, c.capacity_bps);
    ASSERT_EQ(r.flow_bps.size(), c.flows.size());
    ASSERT_EQ(r.element_bps.size(), tree.elements.size());

    // Flows: never NaN, never negative, never above the offered load.
    for (size_t f = 0; f < c.flows.size(); ++f) {
      ASSERT_FALSE(std::isnan(r.flow_bps[f]));
      ASSERT_GE(r.flow_bps[f], 0.0);
      ASSERT_LE(r.flow_bps[f], c.flows[f].offered_bps * (1 + kRel));
    }
    // Elements: caps respected; nobody above its demand.
    for (size_t e = 0; e < tree.elements.size(); ++e) {
      const auto& element = tree.elements[e];
      ASSERT_FALSE(std::isnan(r.element_bps[e]));
      if (element.max_avg_bw_bps > 0.0) {
        ASSERT_LE(r.element_bps[e], element.max_avg_bw_bps * (1 + kRel)) << element.name;
      }
      ASSERT_LE(r.element_bps[e], r.element_demand_bps[e] * (1 + kRel) + 1e-3) << element.name;
    }
    // Total: within capacity, and work-conserving up to the caps.
    const double expected_total = std::min(c.capacity_bps, r.element_demand_bps[0]);
    ASSERT_LE(r.element_bps[0], c.capacity_bps * (1 + kRel));
    ASSERT_TRUE(near(r.element_bps[0], expected_total))
        << r.element_bps[0] << " vs " << expected_total;

    // Siblings (children of a node, or flows of a leaf with weight 1).
    struct Sibling {
      double got, demand, weight;
    };
    auto check_siblings = [](const std::vector<Sibling>& siblings) {
      for (const auto& a : siblings) {
        const bool a_limited_by_share = a.got < a.demand * (1 - kRel) - 1e-3;
        if (!a_limited_by_share) continue;
        for (const auto& b : siblings) {
          const bool b_limited_by_share = b.got < b.demand * (1 - kRel) - 1e-3;
          const double level_a = a.got / a.weight;
          const double level_b = b.got / b.weight;
          // Max-min: nobody who is satisfied has a higher weighted level than a child
          // that wanted more.
          ASSERT_LE(level_b, level_a * (1 + 1e-9) + 1e-3);
          // Among unconstrained siblings allocations are proportional to the weights.
          if (b_limited_by_share) {
            ASSERT_TRUE(near(level_a, level_b)) << level_a << " " << level_b;
          }
        }
      }
    };
    for (size_t e = 0; e < tree.elements.size(); ++e) {
      const auto& element = tree.elements[e];
      std::vector<Sibling> siblings;
      if (element.is_leaf) {
        for (size_t f = 0; f < c.flows.size(); ++f) {
          if (c.flows[f].leaf == e) {
            siblings.push_back({r.flow_bps[f], c.flows[f].offered_bps, 1.0});
          }
        }
      } else {
        for (const uint32_t child : element.children) {
          siblings.push_back({r.element_bps[child], r.element_demand_bps[child],
                              static_cast<double>(tree.elements[child].weight)});
        }
      }
      check_siblings(siblings);
      if (HasFatalFailure()) return;
    }
    // Consistency: an element carries the sum of its children.
    for (size_t e = 0; e < tree.elements.size(); ++e) {
      const auto& element = tree.elements[e];
      if (element.is_leaf) continue;
      double sum = 0.0;
      for (const uint32_t child : element.children) sum += r.element_bps[child];
      ASSERT_TRUE(near(sum, r.element_bps[e]));
    }
  }
}

}  // namespace
}  // namespace qb::policy
