#include "qb/policies/tree_scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "qb/common/rng.hpp"
#include "qb/policies/oracle.hpp"

namespace qb::policy {
namespace {

constexpr double kLinkBps = 100e9;
constexpr double kNoCap = 0.0;

// Builds a SchedTree by hand (it is plain data). Element 0 is the root.
struct TreeBuilder {
  SchedTree tree = SchedTree::with_root();
  uint32_t add(uint32_t parent, bool is_leaf, uint32_t weight, double cap_bps = kNoCap) {
    return tree.add_child(parent, "e" + std::to_string(tree.elements.size()), is_leaf, weight,
                          cap_bps);
  }
  uint32_t node(uint32_t parent, uint32_t weight, double cap_bps = kNoCap) {
    return add(parent, false, weight, cap_bps);
  }
  uint32_t leaf(uint32_t parent, uint32_t weight, double cap_bps = kNoCap) {
    return add(parent, true, weight, cap_bps);
  }
};

// A tiny fluid loop: one link of `rate_bps`, every queue always backlogged with packets of
// packet_bytes[q] wire bytes. Returns each queue's wire bit/s over [warmup, warmup+measure).
// Time in picoseconds with an exact remainder, so the link runs at exactly rate_bps.
std::vector<double> run_fluid(TreeScheduler& scheduler, const std::vector<uint32_t>& packet_bytes,
                              double rate_bps, double warmup_s, double measure_s,
                              int64_t start_ps = 0) {
  const auto rate = static_cast<int64_t>(std::llround(rate_bps));
  const auto start = start_ps + static_cast<int64_t>(std::llround(warmup_s * 1e12));
  const auto end = start + static_cast<int64_t>(std::llround(measure_s * 1e12));
  std::vector<double> bytes(packet_bytes.size(), 0.0);
  for (uint32_t q = 0; q < packet_bytes.size(); ++q) scheduler.on_backlogged(q, start_ps);
  int64_t now = start_ps;
  int64_t carry = 0;
  while (now < end) {
    const uint32_t q = scheduler.pick(now);
    if (q == TreeScheduler::kNone) {
      const int64_t next = scheduler.next_eligible();
      if (next == TreeScheduler::kNever) break;
      EXPECT_GT(next, now);
      now = next;
      continue;
    }
    const uint32_t wire = packet_bytes[q];
    scheduler.on_sent(q, wire, true, now);
    if (now >= start) bytes[q] += wire;
    const int64_t numerator = static_cast<int64_t>(wire) * 8 * 1'000'000'000'000 + carry;
    now += numerator / rate;
    carry = numerator % rate;
  }
  std::vector<double> bps(bytes.size());
  for (size_t q = 0; q < bytes.size(); ++q) bps[q] = bytes[q] * 8.0 / measure_s;
  return bps;
}

TreeScheduler::Config ps_config(uint32_t quantum = 4194) {
  TreeScheduler::Config config;
  config.ticks_per_second = 1e12;
  config.quantum_bytes = quantum;
  return config;
}

void expect_rel(double measured, double expected, double tolerance, const std::string& what) {
  EXPECT_NEAR(measured / expected, 1.0, tolerance)
      << what << ": measured " << measured << " expected " << expected;
}

TEST(TreeScheduler, ManPageTreeSevenToThree) {
  TreeBuilder b;
  const uint32_t g1 = b.leaf(0, 7);
  const uint32_t g2 = b.leaf(0, 3);
  const std::vector<uint32_t> leaf{g1, g2};
  TreeScheduler s(b.tree, leaf, ps_config());
  const auto bps = run_fluid(s, {4194, 4194}, kLinkBps, 0.001, 0.02);
  expect_rel(bps[0], 70e9, 1e-3, "g1");
  expect_rel(bps[1], 30e9, 1e-3, "g2");
}

TEST(TreeScheduler, ManPageTreeWithCapGivesCapToG2AndTheRestToG1) {
  TreeBuilder b;
  const uint32_t g1 = b.leaf(0, 7);
  const uint32_t g2 = b.leaf(0, 3, 4096e6);
  const std::vector<uint32_t> leaf{g1, g2};
  TreeScheduler s(b.tree, leaf, ps_config());
  const auto bps = run_fluid(s, {4194, 4194}, kLinkBps, 0.001, 0.05);
  expect_rel(bps[1], 4.096e9, 1e-3, "g2 (capped)");
  expect_rel(bps[0], 95.904e9, 1e-3, "g1");
}

TEST(TreeScheduler, CapIsExactOverTheLongRun) {
  // A capped element alone on a fast link: the send times of its packets advance at exactly
  // the cap (to 1e-6) over 100000 packets, with no drift from the tick arithmetic.
  TreeBuilder b;
  const uint32_t g = b.leaf(0, 1, 4096e6);
  const std::vector<uint32_t> leaf{g};
  TreeScheduler s(b.tree, leaf, ps_config());
  s.on_backlogged(0, 0);
  int64_t now = 0;
  int64_t first_ps = 0;
  constexpr uint32_t kWire = 4194;
  constexpr int kFirst = 1000;
  constexpr int kLast = 101000;
  for (int packet = 0; packet <= kLast;) {
    if (s.pick(now) == TreeScheduler::kNone) {
      now = s.next_eligible();
      continue;
    }
    if (packet == kFirst) first_ps = now;
    s.on_sent(0, kWire, true, now);
    if (packet == kLast) break;
    ++packet;
    now += 335'520;  // the packet's serialisation at 100 Gbit/s
  }
  const double bps = (kLast - kFirst) * kWire * 8.0 / (static_cast<double>(now - first_ps) * 1e-12);
  expect_rel(bps, 4.096e9, 1e-6, "capped alone");
}

TEST(TreeScheduler, QueuesOfOneLeafShareEqually) {
  TreeBuilder b;
  const uint32_t l = b.leaf(0, 5);
  const std::vector<uint32_t> leaf{l, l, l, l};
  TreeScheduler s(b.tree, leaf, ps_config());
  // Strict round robin: with equal packets the order is q0 q1 q2 q3 q0 ...
  for (uint32_t q = 0; q < 4; ++q) s.on_backlogged(q, 0);
  for (uint32_t i = 0; i < 12; ++i) {
    const uint32_t q = s.pick(0);
    EXPECT_EQ(q, i % 4);
    s.on_sent(q, 4194, true, 0);
  }
  const auto bps = run_fluid(s, {4194, 4194, 4194, 4194}, kLinkBps, 0.0, 0.01);
  for (uint32_t q = 0; q < 4; ++q) expect_rel(bps[q], 25e9, 1e-3, "qp " + std::to_string(q));
}

TEST(TreeScheduler, ThreeLevelsWithCapsAtTwoLevels) {
  // root -> A (w1, cap 30G) -> { a1 (w3, cap 5G), a2 (w1) }
  //      -> B (w1)          -> { b1 (w1), b2 (w2) }
  // Hand-computed: A:B = 50:50 but A is capped -> A 30, B 70. In A, a1:a2 = 22.5:7.5 but a1
  // is capped at 5 -> a2 25. In B, 70 * 1/3 and 70 * 2/3.
  TreeBuilder b;
  const uint32_t a = b.node(0, 1, 30e9);
  const uint32_t bn = b.node(0, 1);
  const uint32_t a1 = b.leaf(a, 3, 5e9);
  const uint32_t a2 = b.leaf(a, 1);
  const uint32_t b1 = b.leaf(bn, 1);
  const uint32_t b2 = b.leaf(bn, 2);
  const std::vector<uint32_t> leaf{a1, a2, b1, b2};
  TreeScheduler s(b.tree, leaf, ps_config());
  const auto bps = run_fluid(s, {4194, 4194, 4194, 4194}, kLinkBps, 0.001, 0.05);
  expect_rel(bps[0], 5e9, 1e-3, "a1");
  expect_rel(bps[1], 25e9, 1e-3, "a2");
  expect_rel(bps[2], 70e9 / 3, 1e-3, "b1");
  expect_rel(bps[3], 140e9 / 3, 1e-3, "b2");
}

TEST(TreeScheduler, QueueThatEmptiesAndReturns) {
  TreeBuilder b;
  const uint32_t l1 = b.leaf(0, 1);
  const uint32_t l2 = b.leaf(0, 1);
  const std::vector<uint32_t> leaf{l1, l2};
  TreeScheduler s(b.tree, leaf, ps_config());
  s.on_backlogged(0, 0);
  s.on_backlogged(1, 0);
  // q1 sends one packet and goes idle: q0 gets every decision afterwards.
  uint32_t first = s.pick(0);
  s.on_sent(first, 4194, first == 0, 0);
  if (first == 0) {
    const uint32_t second = s.pick(0);
    ASSERT_EQ(second, 1u);
    s.on_sent(1, 4194, false, 0);
  }
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(s.pick(0), 0u);
    s.on_sent(0, 4194, true, 0);
  }
  // While idle, q1 built no credit: once back, the two alternate byte for byte.
  s.on_backlogged(1, 0);
  uint64_t sent[2] = {0, 0};
  for (int i = 0; i < 1000; ++i) {
    const uint32_t q = s.pick(0);
    ASSERT_NE(q, TreeScheduler::kNone);
    sent[q] += 4194;
    s.on_sent(q, 4194, true, 0);
    EXPECT_LE(std::abs(static_cast<double>(sent[0]) - static_cast<double>(sent[1])), 2 * 4194.0);
  }
  EXPECT_EQ(sent[0], sent[1]);
}

TEST(TreeScheduler, EmptyQueueIsNeverPicked) {
  TreeBuilder b;
  const uint32_t l = b.leaf(0, 1);
  const std::vector<uint32_t> leaf{l, l};
  TreeScheduler s(b.tree, leaf, ps_config());
  EXPECT_EQ(s.pick(0), TreeScheduler::kNone);
  EXPECT_EQ(s.next_eligible(), TreeScheduler::kNever);
  EXPECT_FALSE(s.any_backlogged());
  s.on_backlogged(1, 0);
  EXPECT_TRUE(s.any_backlogged());
  EXPECT_EQ(s.pick(0), 1u);
  s.on_sent(1, 100, false, 0);
  EXPECT_EQ(s.pick(0), TreeScheduler::kNone);
  EXPECT_FALSE(s.any_backlogged());
}

TEST(TreeScheduler, EverythingThrottledPicksNoneUntilNextEligible) {
  // Ticks of 1 ns and caps of 1 bit/ns keep the arithmetic exact.
  TreeScheduler::Config config;
  config.ticks_per_second = 1e9;
  config.quantum_bytes = 4200;  // depth = max(2 * 4200 * 8, 1e9 * 20e-6) = 67200 bits
  TreeBuilder b;
  const uint32_t l1 = b.leaf(0, 1, 1e9);
  const uint32_t l2 = b.leaf(0, 1, 2e9);  // depth 67200 bits too, 2 bit/ns
  const std::vector<uint32_t> leaf{l1, l2};
  TreeScheduler s(b.tree, leaf, config);
  s.on_backlogged(0, 0);
  s.on_backlogged(1, 0);
  // 5000-byte packets = 40000 bits: two packets each take both buckets to -12800 bits.
  for (int i = 0; i < 4; ++i) {
    const uint32_t q = s.pick(0);
    ASSERT_NE(q, TreeScheduler::kNone) << i;
    s.on_sent(q, 5000, true, 0);
  }
  EXPECT_EQ(s.pick(0), TreeScheduler::kNone);
  EXPECT_TRUE(s.any_backlogged());
  // l2 refills at 2 bit/ns: > 0 at 6401 ns; l1 at 12801 ns.
  EXPECT_EQ(s.next_eligible(), 6401);
  EXPECT_EQ(s.pick(6400), TreeScheduler::kNone);
  EXPECT_EQ(s.pick(6401), 1u);
  s.on_sent(1, 5000, true, 6401);  // l2 back in debt
  EXPECT_EQ(s.pick(6401), TreeScheduler::kNone);
  EXPECT_EQ(s.next_eligible(), 12801);
  EXPECT_EQ(s.pick(12801), 0u);
}

TEST(TreeScheduler, ThrottledNodeHidesItsWholeSubtree) {
  TreeScheduler::Config config;
  config.ticks_per_second = 1e9;
  config.quantum_bytes = 4200;
  TreeBuilder b;
  const uint32_t n = b.node(0, 1, 1e9);
  const uint32_t l1 = b.leaf(n, 1);
  const uint32_t l2 = b.leaf(n, 1);
  const std::vector<uint32_t> leaf{l1, l2};
  TreeScheduler s(b.tree, leaf, config);
  s.on_backlogged(0, 0);
  s.on_backlogged(1, 0);
  s.on_sent(s.pick(0), 5000, true, 0);
  s.on_sent(s.pick(0), 5000, true, 0);  // node at -12800 bits
  EXPECT_EQ(s.pick(0), TreeScheduler::kNone);
  EXPECT_EQ(s.next_eligible(), 12801);
  // A queue that goes idle and comes back while the node is throttled stays hidden.
  EXPECT_EQ(s.pick(100), TreeScheduler::kNone);
  EXPECT_NE(s.pick(12801), TreeScheduler::kNone);
}

TEST(TreeScheduler, MixedPacketSizesAreByteFairByWeight) {
  for (const uint32_t w1 : {1u, 2u}) {
    TreeBuilder b;
    const uint32_t small = b.leaf(0, w1);
    const uint32_t big = b.leaf(0, 1);
    const std::vector<uint32_t> leaf{small, big};
    TreeScheduler s(b.tree, leaf, ps_config());
    const auto bps = run_fluid(s, {84, 4194}, kLinkBps, 0.0005, 0.01);
    const double small_share = static_cast<double>(w1) / (w1 + 1.0);
    expect_rel(bps[0], kLinkBps * small_share, 1e-3, "64 B queue, w=" + std::to_string(w1));
    expect_rel(bps[1], kLinkBps * (1 - small_share), 1e-3, "4 KiB queue");
  }
}

TEST(TreeScheduler, PacketsLargerThanTheQuantumStayFair) {
  TreeBuilder b;
  const uint32_t l1 = b.leaf(0, 1);
  const uint32_t l2 = b.leaf(0, 1);
  const std::vector<uint32_t> leaf{l1, l2};
  TreeScheduler s(b.tree, leaf, ps_config(1000));
  const auto bps = run_fluid(s, {9000, 500}, kLinkBps, 0.0, 0.01);
  expect_rel(bps[0], 50e9, 1e-3, "jumbo");
  expect_rel(bps[1], 50e9, 1e-3, "small");
}

TEST(TreeScheduler, ZeroWeightCountsAsDefaultWeight) {
  TreeBuilder b;
  const uint32_t l1 = b.leaf(0, 0);  // bw_share 0 -> weight 1
  const uint32_t l2 = b.leaf(0, 3);
  const std::vector<uint32_t> leaf{l1, l2};
  TreeScheduler s(b.tree, leaf, ps_config());
  const auto bps = run_fluid(s, {4194, 4194}, kLinkBps, 0.0, 0.01);
  expect_rel(bps[0], 25e9, 1e-3, "weight 0");
}

TEST(TreeScheduler, QueueOnAnUnknownLeafIsNeverScheduled) {
  TreeBuilder b;
  const uint32_t l = b.leaf(0, 1);
  const std::vector<uint32_t> leaf{l, 99};
  TreeScheduler s(b.tree, leaf, ps_config());
  s.on_backlogged(1, 0);
  EXPECT_EQ(s.pick(0), TreeScheduler::kNone);
  s.on_backlogged(0, 0);
  EXPECT_EQ(s.pick(0), 0u);
}

// Water-filling by hand for a flat tree (children of the root with weight and cap): the
// children above their weighted share are fixed at their cap, the rest re-share.
std::vector<double> flat_water_fill(const std::vector<uint32_t>& weight,
                                    const std::vector<double>& cap, double capacity) {
  std::vector<double> rate(weight.size(), -1.0);
  double remaining = capacity;
  while (true) {
    double weights = 0;
    for (size_t i = 0; i < weight.size(); ++i) {
      if (rate[i] < 0) weights += weight[i];
    }
    if (weights == 0) break;
    bool fixed = false;
    for (size_t i = 0; i < weight.size(); ++i) {
      if (rate[i] < 0 && cap[i] > 0 && cap[i] < remaining * weight[i] / weights) {
        rate[i] = cap[i];
        remaining -= cap[i];
        fixed = true;
      }
    }
    if (!fixed) {
      for (size_t i = 0; i < weight.size(); ++i) {
        if (rate[i] < 0) rate[i] = remaining * weight[i] / weights;
      }
      break;
    }
  }
  return rate;
}

TEST(TreeScheduler, RandomFlatTreesMatchHandWaterFilling) {
  Rng rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    TreeBuilder b;
    const auto n = static_cast<uint32_t>(2 + rng.next_u64() % 5);
    std::vector<uint32_t> weight(n);
    std::vector<double> cap(n, 0.0);
    std::vector<uint32_t> leaf(n);
    for (uint32_t i = 0; i < n; ++i) {
      weight[i] = static_cast<uint32_t>(1 + rng.next_u64() % 8);
      if (rng.next_u64() % 3 == 0) cap[i] = 1e9 * static_cast<double>(1 + rng.next_u64() % 40);
      leaf[i] = b.leaf(0, weight[i], cap[i]);
    }
    TreeScheduler s(b.tree, leaf, ps_config());
    const auto bps = run_fluid(s, std::vector<uint32_t>(n, 4194), kLinkBps, 0.001, 0.02);
    const auto expected = flat_water_fill(weight, cap, kLinkBps);
    for (uint32_t i = 0; i < n; ++i) {
      expect_rel(bps[i], expected[i], 1e-3,
                 "trial " + std::to_string(trial) + " child " + std::to_string(i));
    }
  }
}

// Random trees of saturating queues against the oracle (water-filling with caps).
TEST(TreeScheduler, RandomTreesMatchTheOracle) {
  Rng rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    TreeBuilder b;
    std::vector<uint32_t> parents{0};
    std::vector<uint32_t> leaves;
    const auto nodes = static_cast<uint32_t>(rng.next_u64() % 4);
    for (uint32_t i = 0; i < nodes; ++i) {
      const uint32_t parent = parents[rng.next_u64() % parents.size()];
      const double cap =
          rng.next_u64() % 3 == 0 ? 1e9 * static_cast<double>(5 + rng.next_u64() % 60) : 0.0;
      parents.push_back(b.node(parent, static_cast<uint32_t>(1 + rng.next_u64() % 6), cap));
    }
    // Every node gets at least one leaf so no node is empty.
    for (const uint32_t parent : parents) {
      const auto count = static_cast<uint32_t>(1 + rng.next_u64() % 3);
      for (uint32_t i = 0; i < count; ++i) {
        const double cap =
            rng.next_u64() % 4 == 0 ? 1e9 * static_cast<double>(2 + rng.next_u64() % 40) : 0.0;
        leaves.push_back(b.leaf(parent, static_cast<uint32_t>(1 + rng.next_u64() % 6), cap));
      }
    }
    std::vector<uint32_t> queue_leaf;
    std::vector<FlowDemand> demand;
    for (const uint32_t l : leaves) {
      const auto qps = static_cast<uint32_t>(1 + rng.next_u64() % 3);
      for (uint32_t i = 0; i < qps; ++i) {
        queue_leaf.push_back(l);
        demand.push_back(FlowDemand{l, kUnlimited});
      }
    }
    TreeScheduler s(b.tree, queue_leaf, ps_config());
    const auto bps =
        run_fluid(s, std::vector<uint32_t>(queue_leaf.size(), 4194), kLinkBps, 0.002, 0.05);
    const OracleResult expected = expected_rates(b.tree, demand, kLinkBps);
    ASSERT_EQ(expected.flow_bps.size(), bps.size());
    for (size_t q = 0; q < bps.size(); ++q) {
      expect_rel(bps[q], expected.flow_bps[q], 5e-3,
                 "trial " + std::to_string(trial) + " queue " + std::to_string(q));
    }
  }
}

}  // namespace
}  // namespace qb::policy
