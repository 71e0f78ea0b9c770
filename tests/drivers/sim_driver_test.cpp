#include "sim_driver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "qb/drivers/registry.hpp"

namespace qb::drv {
namespace {

using policy::QosPlan;
using policy::RdmaOp;
using policy::SchedTree;

constexpr double kLinkBps = 100e9;
constexpr int64_t kPropagationNs = 1000;

// The man page's tree: g1 (bw_share 7) and g2 (bw_share 3, max_avg_bw 4096 Mbit/s) under the
// root; `per_group` QPs on each.
QosPlan man_page_plan(uint32_t per_group, RdmaOp op = RdmaOp::write) {
  QosPlan plan;
  plan.tree = SchedTree::with_root();
  const uint32_t g1 = plan.tree.add_child(0, "g1", true, 7);
  const uint32_t g2 = plan.tree.add_child(0, "g2", true, 3, 4096e6);
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = kLinkBps;
  for (uint32_t g = 0; g < 2; ++g) {
    for (uint32_t i = 0; i < per_group; ++i) {
      policy::FlowPlan flow;
      flow.name = (g == 0 ? "g1-qp#" : "g2-qp#") + std::to_string(i);
      flow.group = g == 0 ? "g1-qp" : "g2-qp";
      flow.leaf = g == 0 ? g1 : g2;
      flow.op = op;
      plan.flows.push_back(flow);
    }
  }
  return plan;
}

// The implicit tree of a suite without [sched]: the root is the only leaf.
QosPlan flat_plan(uint32_t flows, RdmaOp op = RdmaOp::write) {
  QosPlan plan;
  plan.tree.elements.emplace_back();
  plan.tree.elements[0].name = "default";
  plan.tree.elements[0].is_leaf = true;
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = kLinkBps;
  for (uint32_t f = 0; f < flows; ++f) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    flow.leaf = 0;
    flow.op = op;
    plan.flows.push_back(flow);
  }
  return plan;
}

Topology topology_for(const QosPlan& plan, int64_t propagation_ns = kPropagationNs) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = propagation_ns;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  topology.workers = 1;
  return topology;
}

std::unique_ptr<Driver> started_driver(const QosPlan& plan,
                                       int64_t propagation_ns = kPropagationNs) {
  auto driver = make_sim_driver();
  EXPECT_TRUE(driver->open(topology_for(plan, propagation_ns)).ok());
  EXPECT_TRUE(driver->apply(plan).ok());
  EXPECT_TRUE(driver->start().ok());
  return driver;
}

std::vector<Completion> drain(Queue& queue) {
  std::vector<Completion> all;
  std::array<Completion, 16> batch;
  uint32_t n = 0;
  do {
    n = queue.poll(batch);
    all.insert(all.end(), batch.begin(), batch.begin() + n);
  } while (n == batch.size());
  return all;
}

double stat(const Driver& driver, const std::string& name) {
  for (const auto& [key, value] : driver.stats()) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1;
}

// An engine-like loop: every flow keeps `window` messages of `bytes` outstanding; rx wire
// bytes are counted per flow when they arrive in [warmup_ns, end_ns). Optionally records the
// whole completion stream.
struct LoopResult {
  std::vector<double> wire_bps;
  std::vector<Completion> stream;
};

LoopResult run_saturating(Driver& driver, uint32_t flows, uint32_t window, uint32_t bytes,
                          int64_t warmup_ns, int64_t end_ns, bool record = false) {
  Queue& queue = driver.queue(0);
  Clock& clock = driver.clock(0);
  std::vector<uint64_t> sequence(flows, 0);
  std::vector<uint64_t> wire(flows, 0);
  LoopResult result;
  std::vector<Message> burst;
  auto post = [&](uint32_t flow) {
    burst.push_back(Message{flow, bytes, clock.now_ns(), sequence[flow]++});
  };
  for (uint32_t f = 0; f < flows; ++f) {
    for (uint32_t i = 0; i < window; ++i) post(f);
  }
  std::array<Completion, 64> batch;
  while (clock.now_ns() < end_ns) {
    if (!burst.empty()) {
      const uint32_t accepted = queue.tx_burst(burst);
      EXPECT_EQ(accepted, burst.size());
      burst.clear();
    }
    uint32_t n = 0;
    do {
      n = queue.poll(batch);
      for (uint32_t i = 0; i < n; ++i) {
        const Completion& c = batch[i];
        if (record) result.stream.push_back(c);
        if (c.kind == Completion::Kind::tx_done) {
          post(c.flow);
        } else if (c.time_ns >= warmup_ns && c.time_ns < end_ns) {
          wire[c.flow] += c.wire_bytes;
        }
      }
    } while (n == batch.size());
    if (burst.empty()) clock.wait_until(end_ns);
  }
  const double seconds = static_cast<double>(end_ns - warmup_ns) * 1e-9;
  for (uint32_t f = 0; f < flows; ++f)
    result.wire_bps.push_back(static_cast<double>(wire[f]) * 8 / seconds);
  return result;
}

TEST(SimDriver, ManPageTreeGivesTheCapToG2AndTheRestToG1) {
  const QosPlan plan = man_page_plan(4);
  auto driver = started_driver(plan);
  const LoopResult r = run_saturating(*driver, 8, 8, 16384, 200'000, 10'200'000);
  double g1 = 0;
  double g2 = 0;
  for (uint32_t f = 0; f < 4; ++f) g1 += r.wire_bps[f];
  for (uint32_t f = 4; f < 8; ++f) g2 += r.wire_bps[f];
  EXPECT_NEAR(g2 / 4.096e9, 1.0, 5e-3) << g2;
  EXPECT_NEAR(g1 / 95.904e9, 1.0, 5e-3) << g1;
  // QPs of one leaf share it equally.
  for (uint32_t f = 0; f < 4; ++f) EXPECT_NEAR(r.wire_bps[f] / (g1 / 4), 1.0, 5e-3) << f;
  for (uint32_t f = 4; f < 8; ++f) EXPECT_NEAR(r.wire_bps[f] / (g2 / 4), 1.0, 5e-3) << f;
  EXPECT_EQ(stat(*driver, "ring_stalls"), 0.0);
  EXPECT_EQ(stat(*driver, "rejected_posts"), 0.0);
  EXPECT_LE(stat(*driver, "max_send_queue_depth"), 8.0);
  EXPECT_GT(stat(*driver, "link_utilisation"), 0.99);
}

TEST(SimDriver, ManPageTreeWithoutContentionFromG2IsSevenToThree) {
  // Same tree, g2 uncapped: a 70/30 split of the wire rate.
  QosPlan plan = man_page_plan(2);
  plan.tree.elements[2].max_avg_bw_bps = 0.0;
  auto driver = started_driver(plan);
  const LoopResult r = run_saturating(*driver, 4, 8, 4096, 100'000, 5'100'000);
  EXPECT_NEAR((r.wire_bps[0] + r.wire_bps[1]) / 70e9, 1.0, 5e-3);
  EXPECT_NEAR((r.wire_bps[2] + r.wire_bps[3]) / 30e9, 1.0, 5e-3);
}

TEST(SimDriver, SingleMessageTimesAreExact) {
  const QosPlan plan = flat_plan(1);
  auto driver = started_driver(plan);
  // 3952 B write: 3952 + 82 + 16 (RETH) = 4050 wire bytes = 324 ns at 100 Gbit/s.
  const Message m{0, 3952, 0, 0};
  ASSERT_EQ(driver->queue(0).tx_burst({&m, 1}), 1u);
  driver->clock(0).wait_until(1'000'000);
  const auto completions = drain(driver->queue(0));
  ASSERT_EQ(completions.size(), 2u);
  const Completion& rx = completions[0];
  EXPECT_EQ(rx.kind, Completion::Kind::rx_packet);
  EXPECT_TRUE(rx.last_of_message);
  EXPECT_EQ(rx.payload_bytes, 3952u);
  EXPECT_EQ(rx.wire_bytes, 4050u);
  EXPECT_EQ(rx.sent_ns, 0);
  EXPECT_EQ(rx.time_ns, 324 + kPropagationNs);
  const Completion& done = completions[1];
  EXPECT_EQ(done.kind, Completion::Kind::tx_done);
  EXPECT_EQ(done.payload_bytes, 3952u);
  EXPECT_EQ(done.time_ns, rx.time_ns + kPropagationNs);
}

TEST(SimDriver, SerialisationIsCarriedInPicoseconds) {
  // 4096 B writes: 4194 wire bytes = 335.52 ns each. Back to back, the tenth arrives at
  // 10 * 335.52 ns + propagation, not 10 * 335 or 10 * 336.
  const QosPlan plan = flat_plan(1);
  auto driver = started_driver(plan);
  std::vector<Message> messages;
  for (uint64_t i = 0; i < 10; ++i) messages.push_back(Message{0, 4096, 0, i});
  ASSERT_EQ(driver->queue(0).tx_burst(messages), 10u);
  std::vector<Completion> rx;
  while (rx.size() < 10) {
    driver->clock(0).wait_until(1'000'000);
    for (const Completion& c : drain(driver->queue(0))) {
      if (c.kind == Completion::Kind::rx_packet) rx.push_back(c);
    }
  }
  for (uint32_t i = 0; i < 10; ++i) {
    EXPECT_EQ(rx[i].sequence, i);
    EXPECT_EQ(rx[i].time_ns, (335'520 * (i + 1)) / 1000 + kPropagationNs) << i;
    EXPECT_EQ(rx[i].sent_ns, (335'520 * i) / 1000) << i;
  }
}

TEST(SimDriver, MultiPacketWriteHasRethOnTheFirstPacketAndLastFlagOnTheThird) {
  const QosPlan plan = flat_plan(1, RdmaOp::write);
  auto driver = started_driver(plan);
  const Message m{0, 2 * 4096 + 3996, 0, 7};
  ASSERT_EQ(driver->queue(0).tx_burst({&m, 1}), 1u);
  driver->clock(0).wait_until(1'000'000);
  const auto completions = drain(driver->queue(0));
  ASSERT_EQ(completions.size(), 4u);
  const std::array<uint32_t, 3> payload{4096, 4096, 3996};
  const std::array<uint32_t, 3> wire{4096 + 82 + 16, 4096 + 82, 3996 + 82};
  int64_t end_ps = 0;
  for (uint32_t i = 0; i < 3; ++i) {
    const Completion& c = completions[i];
    end_ps += int64_t{wire[i]} * 80;  // 80 ps per byte at 100 Gbit/s
    EXPECT_EQ(c.kind, Completion::Kind::rx_packet);
    EXPECT_EQ(c.payload_bytes, payload[i]);
    EXPECT_EQ(c.wire_bytes, wire[i]);
    EXPECT_EQ(c.last_of_message, i == 2);
    EXPECT_EQ(c.sequence, 7u);
    EXPECT_EQ(c.sent_ns, 0);
    EXPECT_EQ(c.time_ns, end_ps / 1000 + kPropagationNs);
  }
  EXPECT_EQ(completions[3].kind, Completion::Kind::tx_done);
  EXPECT_EQ(completions[3].time_ns, end_ps / 1000 + 2 * kPropagationNs);
  EXPECT_EQ(stat(*driver, "packets"), 3.0);
}

TEST(SimDriver, SendHasNoReth) {
  const QosPlan plan = flat_plan(1, RdmaOp::send);
  auto driver = started_driver(plan);
  const Message m{0, 4096, 0, 0};
  ASSERT_EQ(driver->queue(0).tx_burst({&m, 1}), 1u);
  driver->clock(0).wait_until(1'000'000);
  const auto completions = drain(driver->queue(0));
  ASSERT_FALSE(completions.empty());
  EXPECT_EQ(completions[0].wire_bytes, 4096u + 82u);
}

TEST(SimDriver, EthernetFramesCountL1BytesAndTheMinimumFrame) {
  QosPlan plan = flat_plan(2);
  plan.wire = policy::WireModel{policy::Transport::eth, 1500};
  auto driver = started_driver(plan, 0);
  // A 40-byte frame is padded to 64 B; + 20 B of preamble/SFD/IFG = 84 B = 6.72 ns.
  // A 1518-byte frame: 1538 B on the wire = 123.04 ns.
  const std::array<Message, 2> m{Message{0, 40, 0, 0}, Message{1, 1518, 0, 0}};
  ASSERT_EQ(driver->queue(0).tx_burst(m), 2u);
  std::vector<Completion> completions;
  for (int i = 0; i < 2; ++i) {  // wait_until hands back at each tx_done
    driver->clock(0).wait_until(1'000'000);
    const auto more = drain(driver->queue(0));
    completions.insert(completions.end(), more.begin(), more.end());
  }
  ASSERT_EQ(completions.size(), 4u);  // with no propagation, each rx comes with its tx_done
  EXPECT_EQ(completions[0].wire_bytes, 84u);
  EXPECT_EQ(completions[0].payload_bytes, 40u);
  EXPECT_EQ(completions[0].time_ns, 6);  // 6.72 ns, truncated
  EXPECT_EQ(completions[1].kind, Completion::Kind::tx_done);
  EXPECT_EQ(completions[2].wire_bytes, 1538u);
  EXPECT_EQ(completions[2].sent_ns, 6);
  EXPECT_EQ(completions[2].time_ns, (6720 + 123'040) / 1000);
}

TEST(SimDriver, WaitUntilReturnsAtATxDone) {
  const QosPlan plan = flat_plan(1);
  auto driver = started_driver(plan);
  const Message m{0, 3952, 0, 0};
  ASSERT_EQ(driver->queue(0).tx_burst({&m, 1}), 1u);
  Clock& clock = driver->clock(0);
  clock.wait_until(1'000'000'000);
  EXPECT_EQ(clock.now_ns(), 324 + 2 * kPropagationNs);  // the tx_done, not the deadline
  // Nothing left to do: the next wait runs to its deadline.
  drain(driver->queue(0));
  clock.wait_until(50'000);
  EXPECT_EQ(clock.now_ns(), 50'000);
}

TEST(SimDriver, WaitUntilReturnsWhenTheDueBufferFillsUp) {
  // Many small single-packet messages on a long link: wait_until hands back to poll before
  // the receiver side overflows, and nothing is lost.
  const QosPlan plan = flat_plan(1, RdmaOp::send);
  auto driver = started_driver(plan, 100'000);
  std::vector<Message> messages;
  for (uint64_t i = 0; i < kSimSendQueueDepth; ++i) messages.push_back(Message{0, 64, 0, i});
  ASSERT_EQ(driver->queue(0).tx_burst(messages), kSimSendQueueDepth);
  uint64_t rx = 0;
  uint64_t done = 0;
  while (done < kSimSendQueueDepth) {
    driver->clock(0).wait_until(10'000'000);
    for (const Completion& c : drain(driver->queue(0))) {
      (c.kind == Completion::Kind::rx_packet ? rx : done) += 1;
    }
  }
  EXPECT_EQ(rx, kSimSendQueueDepth);
  EXPECT_EQ(stat(*driver, "ring_stalls"), 0.0);
}

TEST(SimDriver, SendQueueDepthBoundsOutstandingMessages) {
  const QosPlan plan = flat_plan(2);
  auto driver = started_driver(plan);
  EXPECT_EQ(driver->capabilities().max_outstanding_per_flow, kSimSendQueueDepth);
  std::vector<Message> messages;
  for (uint64_t i = 0; i < kSimSendQueueDepth + 5; ++i) messages.push_back(Message{0, 64, 0, i});
  EXPECT_EQ(driver->queue(0).tx_burst(messages), kSimSendQueueDepth);
  // A message for an unknown flow is refused.
  const Message bad{9, 64, 0, 0};
  EXPECT_EQ(driver->queue(0).tx_burst({&bad, 1}), 0u);
  // Slots come back only with tx_done.
  driver->clock(0).wait_until(1'000'000'000);
  uint32_t done = 0;
  for (const Completion& c : drain(driver->queue(0))) done += c.kind == Completion::Kind::tx_done;
  EXPECT_GE(done, 1u);
  EXPECT_EQ(driver->queue(0).tx_burst(std::span<const Message>(messages).first(done)), done);
}

TEST(SimDriver, CompletionStreamIsTimeOrderedAndDeterministic) {
  auto run = [] {
    const QosPlan plan = man_page_plan(3);
    auto driver = started_driver(plan);
    return run_saturating(*driver, 6, 4, 9000, 0, 300'000, true).stream;
  };
  const auto a = run();
  const auto b = run();
  ASSERT_GT(a.size(), 1000u);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const auto key = [](const Completion& c) {
      return std::tuple(c.kind, c.last_of_message, c.flow, c.payload_bytes, c.wire_bytes,
                        c.sequence, c.scheduled_ns, c.sent_ns, c.time_ns);
    };
    ASSERT_EQ(key(a[i]), key(b[i])) << i;
    if (i > 0) {
      EXPECT_GE(a[i].time_ns, a[i - 1].time_ns) << i;
    }
  }
}

TEST(SimDriver, PerFlowOrderAndTxDoneAfterItsPackets) {
  const QosPlan plan = man_page_plan(2);
  auto driver = started_driver(plan);
  const auto stream = run_saturating(*driver, 4, 4, 10000, 0, 200'000, true).stream;
  std::map<uint32_t, uint64_t> next_rx_seq;
  std::map<uint32_t, uint64_t> next_done_seq;
  std::map<std::pair<uint32_t, uint64_t>, int64_t> last_rx_ns;
  for (const Completion& c : stream) {
    if (c.kind == Completion::Kind::rx_packet) {
      EXPECT_GE(c.sequence, next_rx_seq[c.flow]);
      if (c.last_of_message) {
        EXPECT_EQ(c.sequence, next_rx_seq[c.flow]);
        next_rx_seq[c.flow] = c.sequence + 1;
        last_rx_ns[{c.flow, c.sequence}] = c.time_ns;
      }
      EXPECT_LE(c.sent_ns, c.time_ns);
    } else {
      EXPECT_EQ(c.sequence, next_done_seq[c.flow]++);
      const auto it = last_rx_ns.find({c.flow, c.sequence});
      ASSERT_NE(it, last_rx_ns.end()) << "tx_done before its last packet";
      EXPECT_GE(c.time_ns - it->second, kPropagationNs - 1);
    }
  }
}

TEST(SimDriver, IdleLinkRunsToTheDeadline) {
  const QosPlan plan = flat_plan(1);
  auto driver = started_driver(plan);
  driver->clock(0).wait_until(123'456);
  EXPECT_EQ(driver->clock(0).now_ns(), 123'456);
  EXPECT_EQ(driver->clock(0).name(), "virtual");
}

TEST(SimDriver, ControlPathValidation) {
  auto driver = make_sim_driver();
  QosPlan plan = man_page_plan(1);
  Topology topology = topology_for(plan);
  EXPECT_EQ(driver->apply(plan).error().code, Errc::runtime);  // before open
  Topology bad = topology;
  bad.port_rate_bps = 0;
  EXPECT_EQ(driver->open(bad).error().code, Errc::invalid_config);
  bad = topology;
  bad.workers = 2;
  EXPECT_EQ(driver->open(bad).error().code, Errc::not_supported);
  ASSERT_TRUE(driver->open(topology).ok());
  EXPECT_EQ(driver->open(topology).error().code, Errc::runtime);  // twice
  EXPECT_EQ(driver->start().error().code, Errc::runtime);         // before apply
  QosPlan wrong = plan;
  wrong.flows[0].leaf = 42;
  const auto applied = driver->apply(wrong);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().code, Errc::invalid_config);
  EXPECT_EQ(applied.error().where, "flows[0]");
  wrong = plan;
  wrong.flows.pop_back();
  EXPECT_EQ(driver->apply(wrong).error().code, Errc::invalid_config);
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  EXPECT_EQ(driver->apply(plan).error().code, Errc::runtime);  // after start
  ASSERT_TRUE(driver->stop().ok());
  const Message m{0, 64, 0, 0};
  EXPECT_EQ(driver->queue(0).tx_burst({&m, 1}), 0u);  // stopped
  driver->close();
  driver->close();
  EXPECT_TRUE(driver->open(topology).ok());  // reusable after close
}

TEST(Registry, ListsSimAvailableAndDpdkVerbsWithTheirReason) {
  const auto& registry = driver_registry();
  ASSERT_EQ(registry.size(), 3u);
  EXPECT_EQ(registry[0].name, "sim");
  EXPECT_TRUE(registry[0].available);
  EXPECT_TRUE(registry[0].unavailable_reason.empty());
  EXPECT_FALSE(registry[0].description.empty());
  EXPECT_EQ(registry[1].name, "dpdk");
  // dpdk is available exactly when it is built (QB_WITH_DPDK); unavailable says why.
  EXPECT_EQ(registry[1].available, registry[1].unavailable_reason.empty());
  EXPECT_EQ(registry[1].available, static_cast<bool>(registry[1].create));
  EXPECT_EQ(registry[1].available, static_cast<bool>(registry[1].parse_options));
  if (!registry[1].available) {
    EXPECT_EQ(registry[1].unavailable_reason.rfind("not built: ", 0), 0u);
  }
  // verbs likewise (QB_WITH_VERBS); built, it is available without a device (its fake runs).
  EXPECT_EQ(registry[2].name, "verbs");
  EXPECT_EQ(registry[2].available, registry[2].unavailable_reason.empty());
  EXPECT_EQ(registry[2].available, static_cast<bool>(registry[2].create));
  if (!registry[2].available) {
    EXPECT_EQ(registry[2].unavailable_reason.rfind("not built: ", 0), 0u);
  }
}

TEST(Registry, CreateDriver) {
  auto sim = create_driver("sim");
  ASSERT_TRUE(sim.ok());
  EXPECT_EQ((*sim)->name(), "sim");
  auto dpdk = create_driver("dpdk");
  if (driver_registry()[1].available) {
    ASSERT_TRUE(dpdk.ok()) << dpdk.error().to_string();
    EXPECT_EQ((*dpdk)->name(), "dpdk");
  } else {
    ASSERT_FALSE(dpdk.ok());
    EXPECT_EQ(dpdk.error().code, Errc::unavailable);
    EXPECT_NE(dpdk.error().message.find("not built"), std::string::npos);
  }
  auto verbs = create_driver("verbs");
  if (driver_registry()[2].available) {
    ASSERT_TRUE(verbs.ok()) << verbs.error().to_string();  // no device: open() says so
    EXPECT_EQ((*verbs)->name(), "verbs");
  } else {
    ASSERT_FALSE(verbs.ok());
    EXPECT_EQ(verbs.error().code, Errc::unavailable);
  }
  auto unknown = create_driver("nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, Errc::usage);
  EXPECT_NE(unknown.error().message.find("sim, dpdk, verbs"), std::string::npos)
      << unknown.error().message;
}

}  // namespace
}  // namespace qb::drv
