// The engine's own worker loop (engine/src/flow_worker) driving the DPDK driver over a net_ring
// loopback port, and the software shaper's shares and caps. Bounds here are properties (every
// frame arrives, no gaps; a shaper never sends above its caps), not speed.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "dpdk_driver.hpp"
#include "dpdk_test_env.hpp"
#include "flow_worker.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::drv {
namespace {

using test::stat;

constexpr const char* kSuite = R"(
[suite]
name = "dpdk loopback"
warmup = "2ms"
duration = "40ms"
bin = "10ms"

[port]
rate = "1Gbps"
transport = "eth"
mtu = 1500

[[sched.node]]
name = "root"

[[sched.leaf]]
name = "gold"
parent = "root"
bw_share = 7

[[sched.leaf]]
name = "bronze"
parent = "root"
bw_share = 3

[[flow]]
name = "cbr"
count = 2
leaf = "gold"
size = 512
rate = "20Mbps"

[[flow]]
name = "bulk"
leaf = "bronze"
size = 1518
rate = "saturate"
outstanding = 16
)";

TEST(DpdkEngine, FlowWorkerDrivesTheRingPortEndToEnd) {
  auto suite = suite::load_suite_string(kSuite, "dpdk_loopback.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto compiled = suite::compile_scenario(suite->scenarios[0], warnings);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  const suite::Scenario& scenario = suite->scenarios[0];

  auto driver = make_dpdk_driver(test::test_config("net_ring0", ""));
  Topology topology;
  topology.port_rate_bps = scenario.port.rate_bps;
  topology.wire = scenario.port.wire;
  topology.flow_count = static_cast<uint32_t>(compiled->plan.flows.size());
  topology.workers = 1;
  ASSERT_TRUE(driver->open(topology).ok());
  ASSERT_TRUE(driver->apply(compiled->plan).ok());

  engine::WorkerWindow window;
  window.warmup_ns = 2'000'000;
  window.duration_ns = 40'000'000;
  window.bin_ns = 10'000'000;
  window.max_outstanding = driver->capabilities().max_outstanding_per_flow;
  engine::FlowWorker worker(*compiled, 7, window);
  std::vector<engine::FlowCounters> counters(compiled->plan.flows.size());
  std::vector<engine::FlowLatency> latency(compiled->plan.flows.size());
  ASSERT_TRUE(driver->start().ok());
  const bool complete =
      worker.run(driver->queue(0), driver->clock(0), nullptr, counters, latency).complete;
  EXPECT_TRUE(complete);
  EXPECT_EQ(driver->clock(0).name(), "tsc");
  ASSERT_TRUE(driver->stop().ok());
  const DriverStats stats = driver->stats();
  driver->close();

  EXPECT_EQ(stat(stats, "rx_seq_gaps"), 0);
  EXPECT_EQ(stat(stats, "rx_late"), 0);
  EXPECT_EQ(stat(stats, "rx_foreign"), 0);
  EXPECT_EQ(stat(stats, "mbuf_alloc_failures"), 0);
  EXPECT_GT(stat(stats, "rx_packets"), 0);
  EXPECT_LE(stat(stats, "rx_packets"), stat(stats, "tx_packets"));
  uint64_t window_wire_bytes = 0;
  for (size_t f = 0; f < counters.size(); ++f) {
    const engine::Counters& c = counters[f].counts;
    EXPECT_GT(c.packets, 0u) << "flow " << f;
    EXPECT_EQ(c.packets, c.messages) << "flow " << f;  // one frame per message on Ethernet
    EXPECT_EQ(latency[f].from_sent_ns.count(), c.messages) << "flow " << f;
    EXPECT_GE(c.posted_messages, c.messages) << "flow " << f;
    window_wire_bytes += c.wire_bytes;
    std::printf("flow %zu: %.1f Mbit/s on the wire, p50 from sent %lld ns\n", f,
                static_cast<double>(c.wire_bytes) * 8 / 40e-3 / 1e6,
                static_cast<long long>(latency[f].from_sent_ns.value_at_percentile(50)));
    // Frame sizes come back as sent: 512 B CBR frames, 1518 B bulk frames (+20 L1 bytes).
    EXPECT_EQ(c.wire_bytes, c.packets * (f < 2 ? 532u : 1538u)) << "flow " << f;
  }
  // The shaper paces the total at the 1 Gbit/s port rate (plus at most a burst of slack).
  const double window_s = 40e-3;
  EXPECT_LE(static_cast<double>(window_wire_bytes) * 8.0, 1e9 * window_s * 1.05);
}

policy::QosPlan two_leaf_plan(double bronze_cap_bps) {
  policy::QosPlan plan;
  plan.tree = policy::SchedTree::with_root();
  const uint32_t gold = plan.tree.add_child(0, "gold", true, 7);
  const uint32_t bronze = plan.tree.add_child(0, "bronze", true, 3, bronze_cap_bps);
  plan.wire = policy::WireModel{policy::Transport::eth, 1500};
  plan.port_rate_bps = 100e9;
  for (const auto& [name, leaf] : {std::pair{"gold", gold}, std::pair{"bronze", bronze}}) {
    policy::FlowPlan flow;
    flow.name = flow.group = name;
    flow.leaf = leaf;
    flow.op = policy::RdmaOp::send;
    plan.flows.push_back(flow);
  }
  return plan;
}

// Keeps both flows' send queues full and counts which flow each tx_done belongs to. Full means
// deeper than the link time the shaper makes up after a late service (a Tx ring of 256
// frames): with less queued a slow loop lets it drain both queues, and the split follows the
// refills instead of the weights.
constexpr uint64_t kBacklogFrames = 400;
std::array<uint64_t, 2> run_backlogged(Driver& driver, size_t completions, int64_t until_ns) {
  std::array<uint64_t, 2> done{0, 0};
  std::array<uint64_t, 2> next_seq{0, 0};
  std::array<Completion, 64> batch;
  Queue& queue = driver.queue(0);
  Clock& clock = driver.clock(0);
  size_t total = 0;
  while (total < completions && clock.now_ns() < until_ns) {
    for (uint32_t f = 0; f < 2; ++f) {
      std::vector<Message> refill;
      const uint64_t in_flight = next_seq[f] - done[f];
      for (uint64_t i = in_flight; i < kBacklogFrames; ++i) {
        refill.push_back(Message{f, 1518, clock.now_ns(), next_seq[f] + refill.size()});
      }
      next_seq[f] += queue.tx_burst(refill);
    }
    const uint32_t n = queue.poll(batch);
    for (uint32_t i = 0; i < n && total < completions; ++i) {
      if (batch[i].kind != Completion::Kind::tx_done) continue;
      done[batch[i].flow] += batch[i].messages;  // a tx_done may cover several frames
      total += batch[i].messages;
    }
  }
  return done;
}

TEST(DpdkShaper, BacklogedLeavesShareByWeight) {
  auto config = test::test_config("net_null0", "none");
  auto driver = make_dpdk_driver(config);
  const auto plan = two_leaf_plan(0.0);
  ASSERT_TRUE(driver->open(test::eth_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  const auto done = run_backlogged(*driver, 10000, INT64_MAX);
  const uint64_t total = done[0] + done[1];
  ASSERT_GE(total, 10000u);
  // DWRR with equal frames: 7 gold for 3 bronze each round. The shaper keeps link time in real
  // time: after the thread was descheduled it catches up in a burst larger than gold's queue
  // (kBacklogFrames), and bronze, still backlogged, takes the rest (work conserving). So the
  // ratio sinks with the machine's load: 0.6973 at a load average of 7 on 2 cores, 0.64-0.69
  // with a sanitizer build on both cores. The band catches a weight wrongly applied (0.5 equal,
  // 0.75 for 3:1, 0.3 inverted); the exact 7:3 is the simulator's test (virtual time).
  EXPECT_NEAR(static_cast<double>(done[0]) / static_cast<double>(total), 0.7, 0.03);
  driver->close();
}

TEST(DpdkShaper, CapHoldsABackloggedLeafBelowItsRate) {
  auto config = test::test_config("net_null0", "none");
  auto driver = make_dpdk_driver(config);
  constexpr double kCapBps = 200e6;
  const auto plan = two_leaf_plan(kCapBps);
  ASSERT_TRUE(driver->open(test::eth_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  const auto wall_start = std::chrono::steady_clock::now();
  const auto done = run_backlogged(*driver, SIZE_MAX, 50'000'000);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // Upper bound only (a slow machine sends less, never more): the cap over the elapsed time
  // plus the software shaper's token bucket depth (1 ms of the cap) and one frame.
  const double bronze_bits = static_cast<double>(done[1]) * 1538 * 8;
  EXPECT_LE(bronze_bits, kCapBps * (elapsed_s + 1e-3) + 1538 * 8);
  EXPECT_GT(done[0], done[1]);  // gold is uncapped: it takes what bronze may not
  driver->close();
}

// An empty shaper sends an uncapped flow's frames at once (no per-frame pick: the tree has
// nothing to arbitrate), but a flow under a cap always goes through its token bucket, and once
// something is queued every frame waits its turn in the tree.
TEST(DpdkShaper, UncappedFramesGoPastAnEmptyShaperCappedOnesNever) {
  auto config = test::test_config("net_null0", "none");
  auto driver = make_dpdk_driver(config);
  const auto plan = two_leaf_plan(200e6);  // bronze (flow 1) capped
  ASSERT_TRUE(driver->open(test::eth_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  Queue& queue = driver->queue(0);
  std::vector<Message> gold;
  for (uint64_t i = 0; i < 8; ++i) gold.push_back(Message{0, 1518, 0, i});
  EXPECT_EQ(queue.tx_burst(gold), 8u);
  EXPECT_EQ(stat(driver->stats(), "shaper_bypassed"), 8.0);
  EXPECT_EQ(stat(driver->stats(), "tx_packets"), 8.0);
  // Bronze's frames go through its bucket (1 ms of 200 Mbit/s holds ~16 of them): some are
  // held back, and gold's next frames queue behind them in the tree instead of passing.
  std::vector<Message> bronze;
  for (uint64_t i = 0; i < 64; ++i) bronze.push_back(Message{1, 1518, 0, i});
  EXPECT_EQ(queue.tx_burst(bronze), 64u);
  for (uint64_t i = 0; i < 8; ++i) gold[i].sequence = 8 + i;
  EXPECT_EQ(queue.tx_burst(gold), 8u);
  EXPECT_EQ(stat(driver->stats(), "shaper_bypassed"), 8.0);
  EXPECT_LT(stat(driver->stats(), "tx_packets"), 8.0 + 64.0 + 8.0);
  driver->close();
}

}  // namespace
}  // namespace qb::drv
