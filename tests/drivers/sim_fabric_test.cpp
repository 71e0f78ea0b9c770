// The simulator with a fabric (SimModel<Fabric>): port arbitration classes, several hosts,
// the switch with credit back-pressure, VL15 drops. Shares are hand-computed from the
// arbitration rules.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "sim_driver.hpp"

namespace qb::drv {
namespace {

using policy::FlowPlan;
using policy::PortQos;
using policy::QosPlan;
using policy::RdmaOp;
using policy::TcSelect;

constexpr double kLinkBps = 100e9;
constexpr int64_t kPropagationNs = 1000;

struct FlowSpec {
  uint8_t arb_class = 0;
  uint32_t host = 0;
  uint8_t switch_arb_class = 0;
  bool dropped = false;
};

// Flat tree (the root is the only leaf), equal weights inside every class.
QosPlan plan_with(const std::vector<FlowSpec>& specs, policy::Transport transport,
                  RdmaOp op = RdmaOp::write) {
  QosPlan plan;
  plan.tree.elements.emplace_back();
  plan.tree.elements[0].name = "default";
  plan.tree.elements[0].is_leaf = true;
  plan.wire = policy::WireModel{transport, 4096};
  plan.port_rate_bps = kLinkBps;
  for (size_t f = 0; f < specs.size(); ++f) {
    FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    flow.op = op;
    flow.arb_class = specs[f].arb_class;
    flow.host = specs[f].host;
    flow.switch_arb_class = specs[f].switch_arb_class;
    flow.dropped = specs[f].dropped;
    plan.flows.push_back(flow);
  }
  return plan;
}

PortQos ets_qos(std::array<TcSelect, 8> tsa, std::array<uint8_t, 8> percent) {
  PortQos qos;
  qos.kind = PortQos::Kind::ets;
  qos.eth = policy::default_eth_port_qos();
  qos.eth.tsa = tsa;
  qos.eth.ets_percent = percent;
  return qos;
}

PortQos vlarb_qos(std::vector<policy::VlArbEntry> high, std::vector<policy::VlArbEntry> low,
                  uint8_t high_limit) {
  PortQos qos;
  qos.kind = PortQos::Kind::vlarb;
  qos.ib.tables.vlarb_high = std::move(high);
  qos.ib.tables.vlarb_low = std::move(low);
  qos.ib.tables.high_limit = high_limit;
  return qos;
}

constexpr auto V = TcSelect::vendor;
constexpr auto S = TcSelect::strict;
constexpr auto E = TcSelect::ets;

std::unique_ptr<Driver> started(const QosPlan& plan, int64_t propagation_ns = kPropagationNs,
                                int64_t window_start_ns = 0, int64_t window_end_ns = INT64_MAX) {
  Topology topology;
  topology.window_start_ns = window_start_ns;
  topology.window_end_ns = window_end_ns;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = propagation_ns;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  auto driver = make_sim_driver();
  EXPECT_TRUE(driver->open(topology).ok());
  const Status applied = driver->apply(plan);
  EXPECT_TRUE(applied.ok()) << (applied ? "" : applied.error().to_string());
  EXPECT_TRUE(driver->start().ok());
  return driver;
}

bool has_stat(const Driver& driver, const std::string& name) {
  for (const auto& [key, value] : driver.stats()) {
    if (key == name) return true;
  }
  return false;
}

double stat(const Driver& driver, const std::string& name) {
  for (const auto& [key, value] : driver.stats()) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no stat " << name;
  return -1;
}

struct Loop {
  std::vector<double> wire_bps;     // rx wire bit/s per flow in the window
  std::vector<uint64_t> tx_done;    // messages completed per flow (whole run)
  std::vector<int64_t> last_times;  // time of every completion, for determinism checks
};

// Every flow keeps `window` messages of `bytes` outstanding; rx wire bytes count in
// [warmup_ns, end_ns).
Loop saturate(Driver& driver, uint32_t flows, uint32_t bytes, int64_t warmup_ns, int64_t end_ns,
              uint32_t window = 8) {
  Queue& queue = driver.queue(0);
  Clock& clock = driver.clock(0);
  std::vector<uint64_t> sequence(flows, 0);
  std::vector<uint64_t> wire(flows, 0);
  Loop loop;
  loop.tx_done.assign(flows, 0);
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
      EXPECT_EQ(queue.tx_burst(burst), burst.size());
      burst.clear();
    }
    uint32_t n = 0;
    do {
      n = queue.poll(batch);
      for (uint32_t i = 0; i < n; ++i) {
        const Completion& c = batch[i];
        loop.last_times.push_back(c.time_ns);
        if (c.kind == Completion::Kind::tx_done) {
          ++loop.tx_done[c.flow];
          post(c.flow);
        } else if (c.time_ns >= warmup_ns && c.time_ns < end_ns) {
          wire[c.flow] += c.wire_bytes;
        }
      }
    } while (n == batch.size());
    if (burst.empty()) clock.wait_until(end_ns);
  }
  const double seconds = static_cast<double>(end_ns - warmup_ns) * 1e-9;
  for (uint32_t f = 0; f < flows; ++f) {
    loop.wire_bps.push_back(static_cast<double>(wire[f]) * 8 / seconds);
  }
  return loop;
}

TEST(SimFabric, EtsSixtyFortySaturating) {
  QosPlan plan = plan_with({{0}, {1}}, policy::Transport::rocev2);
  plan.nic_qos = ets_qos({E, E, V, V, V, V, V, V}, {60, 40, 0, 0, 0, 0, 0, 0});
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 16384, 200'000, 10'200'000);
  EXPECT_NEAR(r.wire_bps[0] / 60e9, 1.0, 0.01) << r.wire_bps[0];
  EXPECT_NEAR(r.wire_bps[1] / 40e9, 1.0, 0.01) << r.wire_bps[1];
  EXPECT_GT(stat(*driver, "link_utilisation"), 0.99);
  const double tc0 = stat(*driver, "class_wire_bytes.TC0");
  const double tc1 = stat(*driver, "class_wire_bytes.TC1");
  EXPECT_NEAR(tc0 / (tc0 + tc1), 0.6, 0.002);
  EXPECT_EQ(stat(*driver, "drops"), 0.0);
}

TEST(SimFabric, TheTreeAppliesInsideEachClass) {
  // TC0 (60 %) holds two flows, TC1 (40 %) one: TC0's share splits equally (flat tree).
  QosPlan plan = plan_with({{0}, {0}, {1}}, policy::Transport::rocev2);
  plan.nic_qos = ets_qos({E, E, V, V, V, V, V, V}, {60, 40, 0, 0, 0, 0, 0, 0});
  auto driver = started(plan);
  const Loop r = saturate(*driver, 3, 16384, 200'000, 10'200'000);
  EXPECT_NEAR(r.wire_bps[0] / 30e9, 1.0, 0.01);
  EXPECT_NEAR(r.wire_bps[1] / 30e9, 1.0, 0.01);
  EXPECT_NEAR(r.wire_bps[2] / 40e9, 1.0, 0.01);
}

TEST(SimFabric, StrictTcStarvesTheLower) {
  QosPlan plan = plan_with({{0}, {2}}, policy::Transport::rocev2);
  plan.nic_qos = ets_qos({E, V, S, V, V, V, V, V}, {100, 0, 0, 0, 0, 0, 0, 0});
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 16384, 200'000, 5'200'000);
  EXPECT_LT(r.wire_bps[0], 0.001 * kLinkBps);
  EXPECT_NEAR(r.wire_bps[1] / kLinkBps, 1.0, 0.01);
}

TEST(SimFabric, CappedStrictTcLeavesTheRest) {
  // The strict TC capped at 10 Gbit/s (wire): the ETS TC gets the other 90.
  QosPlan plan = plan_with({{0}, {2}}, policy::Transport::rocev2);
  plan.nic_qos = ets_qos({E, V, S, V, V, V, V, V}, {100, 0, 0, 0, 0, 0, 0, 0});
  plan.nic_qos.eth.tc_max_rate_bps[2] = policy::hw_tc_max_rate_bps(10'000'000);
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 16384, 200'000, 10'200'000);
  EXPECT_NEAR(r.wire_bps[1] / 10e9, 1.0, 0.01) << r.wire_bps[1];
  EXPECT_NEAR(r.wire_bps[0] / 90e9, 1.0, 0.01) << r.wire_bps[0];
}

TEST(SimFabric, VlArb64_128_192With4KiBPackets) {
  // IB SEND, 4096 B payload: 4122 wire bytes = 65 credits, so weights 64/128/192 send 1/2/3
  // packets per turn: shares 1/6, 2/6, 3/6.
  QosPlan plan = plan_with({{1}, {2}, {3}}, policy::Transport::ib, RdmaOp::send);
  plan.nic_qos = vlarb_qos({}, {{1, 64}, {2, 128}, {3, 192}}, 0);
  auto driver = started(plan);
  const Loop r = saturate(*driver, 3, 4096, 200'000, 10'200'000);
  EXPECT_NEAR(r.wire_bps[0] / (kLinkBps / 6), 1.0, 0.01) << r.wire_bps[0];
  EXPECT_NEAR(r.wire_bps[1] / (kLinkBps * 2 / 6), 1.0, 0.01) << r.wire_bps[1];
  EXPECT_NEAR(r.wire_bps[2] / (kLinkBps * 3 / 6), 1.0, 0.01) << r.wire_bps[2];
  EXPECT_GT(stat(*driver, "class_packets.VL3"), 0.0);
}

TEST(SimFabric, VlArbWeightsBelowAPacketGiveEqualShares) {
  // Weights 1 and 64 with 65-credit packets: one packet each per turn, 50/50 not 1:64.
  QosPlan plan = plan_with({{1}, {2}}, policy::Transport::ib, RdmaOp::send);
  plan.nic_qos = vlarb_qos({}, {{1, 1}, {2, 64}}, 0);
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 4096, 200'000, 5'200'000);
  EXPECT_NEAR(r.wire_bps[0] / r.wire_bps[1], 1.0, 0.01);
}

TEST(SimFabric, HighLimitShares) {
  struct Case {
    uint8_t high_limit;
    double high_share;
  };
  // 4122 B packets: limit 0 alternates (1:1); limit 6 lets six high packets (6 x 4122 crosses
  // 24576) per low one (6:1); 255 starves low.
  for (const Case& c : {Case{0, 0.5}, Case{6, 6.0 / 7.0}, Case{255, 1.0}}) {
    QosPlan plan = plan_with({{0}, {1}}, policy::Transport::ib, RdmaOp::send);
    plan.nic_qos = vlarb_qos({{0, 255}}, {{1, 255}}, c.high_limit);
    auto driver = started(plan);
    const Loop r = saturate(*driver, 2, 4096, 200'000, 5'200'000);
    const double total = r.wire_bps[0] + r.wire_bps[1];
    EXPECT_NEAR(r.wire_bps[0] / total, c.high_share, 0.005) << int{c.high_limit};
    EXPECT_NEAR(total / kLinkBps, 1.0, 0.01);
  }
}

TEST(SimFabric, VlInNoTableNeverSends) {
  QosPlan plan = plan_with({{1}, {5}}, policy::Transport::ib, RdmaOp::send);
  plan.nic_qos = vlarb_qos({}, {{1, 4}}, 0);
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 4096, 100'000, 2'100'000);
  EXPECT_EQ(r.wire_bps[1], 0.0);
  EXPECT_NEAR(r.wire_bps[0] / kLinkBps, 1.0, 0.01);
}

TEST(SimFabric, SingleMessageThroughTheSwitchTimesAreExact) {
  QosPlan plan = plan_with({{0, 0}}, policy::Transport::rocev2);
  plan.switched = true;
  auto driver = started(plan);
  // 3952 B write = 4050 wire bytes = 324 ns at 100 Gbit/s, on the NIC link and again on the
  // switch egress; 500 ns each hop; the ACK takes the whole 1000 ns back.
  const Message m{0, 3952, 0, 0};
  ASSERT_EQ(driver->queue(0).tx_burst({&m, 1}), 1u);
  driver->clock(0).wait_until(1'000'000);
  std::array<Completion, 8> out;
  ASSERT_EQ(driver->queue(0).poll(out), 2u);
  EXPECT_EQ(out[0].kind, Completion::Kind::rx_packet);
  EXPECT_EQ(out[0].time_ns, 324 + 500 + 324 + 500);
  EXPECT_EQ(out[1].kind, Completion::Kind::tx_done);
  EXPECT_EQ(out[1].time_ns, 1648 + 1000);
}

TEST(SimFabric, TwoHostIncastGetsEqualShares) {
  QosPlan plan = plan_with({{0, 0}, {0, 1}}, policy::Transport::rocev2);
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_rate_bps = kLinkBps;
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 16384, 500'000, 10'500'000);
  EXPECT_NEAR(r.wire_bps[0] / 50e9, 1.0, 0.01) << r.wire_bps[0];
  EXPECT_NEAR(r.wire_bps[1] / 50e9, 1.0, 0.01) << r.wire_bps[1];
  EXPECT_GT(stat(*driver, "link_utilisation"), 0.99);
  // Lossless: the buffers filled up to (and never beyond) their size, and NICs were held.
  EXPECT_LE(stat(*driver, "switch_buffer_high_water_bytes"), stat(*driver, "switch_buffer_bytes"));
  EXPECT_GT(stat(*driver, "switch_buffer_high_water_bytes"),
            stat(*driver, "switch_buffer_bytes") - 4200);
  EXPECT_GT(stat(*driver, "credit_pauses"), 0.0);
  EXPECT_EQ(stat(*driver, "hosts"), 2.0);
  // Each NIC gets half the egress: it waits for credit about half the time.
  const double run_ns = stat(*driver, "virtual_time_ns");
  EXPECT_NEAR(stat(*driver, "backpressure_paused_ns.h0.port") / run_ns, 0.5, 0.02);
  EXPECT_NEAR(stat(*driver, "backpressure_paused_ns.h1.port") / run_ns, 0.5, 0.02);
}

TEST(SimFabric, BackPressureMakesTheHostTreeRedistribute) {
  // Host 0: f0 (switch TC0) and f1 (switch TC1), equal weights in one NIC tree. Host 1: f2 on
  // switch TC0. Switch egress ETS 50/50: TC0's 50 splits over the two ingress ports (25 + 25),
  // TC1 gives f1 50. Host 0's tree would split 50/50; back-pressure on f0 moves the rest to f1.
  QosPlan plan = plan_with({{0, 0, 0}, {0, 0, 1}, {0, 1, 0}}, policy::Transport::rocev2);
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_rate_bps = kLinkBps;
  plan.switch_qos = ets_qos({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  auto driver = started(plan);
  const Loop r = saturate(*driver, 3, 16384, 500'000, 10'500'000);
  EXPECT_NEAR(r.wire_bps[0] / 25e9, 1.0, 0.01) << r.wire_bps[0];
  EXPECT_NEAR(r.wire_bps[1] / 50e9, 1.0, 0.01) << r.wire_bps[1];
  EXPECT_NEAR(r.wire_bps[2] / 25e9, 1.0, 0.01) << r.wire_bps[2];
  EXPECT_GT(stat(*driver, "switch_class_packets.TC1"), 0.0);
}

TEST(SimFabric, TwoHostsWithoutSwitchDoNotContend) {
  QosPlan plan = plan_with({{0, 0}, {0, 1}}, policy::Transport::rocev2);
  plan.hosts = 2;
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 16384, 200'000, 5'200'000);
  EXPECT_NEAR(r.wire_bps[0] / kLinkBps, 1.0, 0.01);
  EXPECT_NEAR(r.wire_bps[1] / kLinkBps, 1.0, 0.01);
}

TEST(SimFabric, DroppedFlowIsCountedAndStillCompletes) {
  QosPlan plan = plan_with({{0}, {0, 0, 0, true}}, policy::Transport::ib, RdmaOp::send);
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 8192, 100'000, 2'100'000);
  EXPECT_EQ(r.wire_bps[1], 0.0);
  EXPECT_NEAR(r.wire_bps[0] / kLinkBps, 1.0, 0.01);  // the drops take no link time
  EXPECT_GT(r.tx_done[1], 100u);
  // Each 8 KiB message is two packets, discarded at the port rate.
  EXPECT_EQ(stat(*driver, "drops"), 2.0 * stat(*driver, "dropped_messages"));
  EXPECT_GE(stat(*driver, "dropped_messages"), static_cast<double>(r.tx_done[1]));
}

TEST(SimFabric, DroppedPacketsAreTheirFlowsDropsInsideTheWindow) {
  // The engine's per-flow drops come from flow_drops(): every VL15 discard of the run when the
  // window is the whole run, and only those inside [100 us, 1.1 ms) when it is that.
  QosPlan plan = plan_with({{0}, {0, 0, 0, true}}, policy::Transport::ib, RdmaOp::send);
  auto whole = started(plan);
  saturate(*whole, 2, 8192, 0, 2'100'000);
  const std::vector<uint64_t> all = whole->flow_drops();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], 0u);
  EXPECT_EQ(static_cast<double>(all[1]), stat(*whole, "drops"));

  auto windowed = started(plan, kPropagationNs, 100'000, 1'100'000);
  saturate(*windowed, 2, 8192, 0, 2'100'000);
  const std::vector<uint64_t> inside = windowed->flow_drops();
  ASSERT_EQ(inside.size(), 2u);
  EXPECT_EQ(stat(*windowed, "drops"), stat(*whole, "drops"));  // the window changes nothing else
  // Half the run's time, at a steady discard rate: about half its drops (two packets a message).
  EXPECT_NEAR(static_cast<double>(inside[1]) / static_cast<double>(all[1]), 1.0 / 2.1, 0.01);
  EXPECT_EQ(inside[1] % 2, 0u);
}

TEST(SimFabric, BackPressureTimeIsReportedPerHostAndClass) {
  // One NIC at 100 Gbit/s into a 50 Gbit/s egress: once the buffer is full the NIC sends one
  // packet per credit back, half the time, and waits for credit the other half.
  QosPlan plan = plan_with({{0, 0}}, policy::Transport::rocev2);
  plan.switched = true;
  plan.switch_rate_bps = 50e9;
  plan.congestion.series_start_ns = 0;  // ten 1 ms bins
  plan.congestion.series_bin_ns = 1'000'000;
  plan.congestion.series_bins = 10;
  auto driver = started(plan);
  saturate(*driver, 1, 16384, 0, 10'000'000);
  const double run_ns = stat(*driver, "virtual_time_ns");
  const double paused_ns = stat(*driver, "backpressure_paused_ns.h0.port");
  EXPECT_NEAR(paused_ns / run_ns, 0.5, 0.01) << paused_ns;
  EXPECT_EQ(stat(*driver, "backpressure_paused_ns"), paused_ns);
  EXPECT_GT(stat(*driver, "credit_pauses"), 1000.0);
  // Over time: half of every bin, and the bins add up to the total.
  const std::vector<BackpressureSeries> series = driver->backpressure_series();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].name, "port");
  ASSERT_EQ(series[0].paused_fraction.size(), 10u);
  double binned_ns = 0;
  for (const double fraction : series[0].paused_fraction) {
    EXPECT_NEAR(fraction, 0.5, 0.01);
    binned_ns += fraction * 1e6;
  }
  EXPECT_NEAR(binned_ns, paused_ns, 1000.0);  // the run may end a step past the last bin

  // The same NIC into a 100 Gbit/s egress never waits.
  plan.switch_rate_bps = kLinkBps;
  auto fast = started(plan);
  saturate(*fast, 1, 16384, 0, 2'000'000);
  EXPECT_EQ(stat(*fast, "backpressure_paused_ns.h0.port"), 0.0);
  EXPECT_EQ(stat(*fast, "backpressure_paused_ns"), 0.0);
  const std::vector<BackpressureSeries> never = fast->backpressure_series();
  ASSERT_EQ(never.size(), 1u);
  for (const double fraction : never[0].paused_fraction) {
    EXPECT_EQ(fraction, 0.0);
  }
}

TEST(SimFabric, BackPressureTimeIsNeverTimeSpentSending) {
  // One host, NIC ETS 50/50 between TC0 and TC1, each into its own switch class, a 95 Gbit/s
  // egress ETS 90/10: TC1 gets 9.5 Gbit/s and waits for credit the rest of the time, but for
  // the moments its credit is back while TC0's packet is on the link.
  QosPlan plan = plan_with({{0, 0, 0}, {1, 0, 1}}, policy::Transport::rocev2);
  plan.nic_qos = ets_qos({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  plan.switched = true;
  plan.switch_rate_bps = 95e9;
  plan.switch_qos = ets_qos({E, E, V, V, V, V, V, V}, {90, 10, 0, 0, 0, 0, 0, 0});
  auto driver = started(plan);
  const Loop r = saturate(*driver, 2, 16384, 0, 5'000'000);
  const double run_ns = stat(*driver, "virtual_time_ns");
  const double paused = stat(*driver, "backpressure_paused_ns.h0.TC1") / run_ns;
  const double sending = r.wire_bps[1] / kLinkBps;  // of the NIC's link
  EXPECT_NEAR(sending, 0.1, 0.005);
  EXPECT_LE(paused + sending, 1.0);
  EXPECT_GT(paused + sending, 0.97);
}

TEST(SimFabric, BackPressureTimeOfFlowsHeldOneByOne) {
  // Host 0's NIC class feeds two switch buffers (TC0 and TC1), so its flows wait for credit
  // one by one; host 1 feeds TC0. Every (host, switch class) with flows has its figure, and the
  // total is their sum; host 0's TC1 flow gets 50 of its 75 Gbit/s NIC share at the switch.
  QosPlan plan = plan_with({{0, 0, 0}, {0, 0, 1}, {0, 1, 0}}, policy::Transport::rocev2);
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_rate_bps = kLinkBps;
  plan.switch_qos = ets_qos({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  auto driver = started(plan);
  saturate(*driver, 3, 16384, 0, 5'000'000);
  const double run_ns = stat(*driver, "virtual_time_ns");
  const double h0_tc0 = stat(*driver, "backpressure_paused_ns.h0.TC0");
  const double h0_tc1 = stat(*driver, "backpressure_paused_ns.h0.TC1");
  const double h1_tc0 = stat(*driver, "backpressure_paused_ns.h1.TC0");
  EXPECT_FALSE(has_stat(*driver, "backpressure_paused_ns.h1.TC1"));  // no flow there
  for (const double paused : {h0_tc0, h0_tc1, h1_tc0}) {
    EXPECT_GT(paused, 0.1 * run_ns);
    EXPECT_LE(paused, run_ns);
  }
  EXPECT_NEAR(stat(*driver, "backpressure_paused_ns"), h0_tc0 + h0_tc1 + h1_tc0, 1e-3);

  // One host, a flow on each of two switch classes ETS 50/50 at a 50 Gbit/s egress: each flow
  // gets 25 Gbit/s, a packet per credit back, sent in a quarter of that time at 100 Gbit/s;
  // the other three quarters it waits for credit.
  QosPlan one = plan_with({{0, 0, 0}, {0, 0, 1}}, policy::Transport::rocev2);
  one.switched = true;
  one.switch_rate_bps = 50e9;
  one.switch_qos = ets_qos({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  auto alone = started(one);
  saturate(*alone, 2, 16384, 0, 5'000'000);
  const double alone_ns = stat(*alone, "virtual_time_ns");
  EXPECT_NEAR(stat(*alone, "backpressure_paused_ns.h0.TC0") / alone_ns, 0.75, 0.02);
  EXPECT_NEAR(stat(*alone, "backpressure_paused_ns.h0.TC1") / alone_ns, 0.75, 0.02);
}

TEST(SimFabric, DeterministicAcrossRuns) {
  QosPlan plan = plan_with({{0, 0, 0}, {0, 0, 1}, {0, 1, 0}}, policy::Transport::rocev2);
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_qos = ets_qos({E, E, V, V, V, V, V, V}, {70, 30, 0, 0, 0, 0, 0, 0});
  auto a = started(plan);
  auto b = started(plan);
  const Loop ra = saturate(*a, 3, 10000, 0, 1'000'000);
  const Loop rb = saturate(*b, 3, 10000, 0, 1'000'000);
  EXPECT_EQ(ra.last_times, rb.last_times);
  EXPECT_EQ(ra.wire_bps, rb.wire_bps);
}

TEST(SimFabric, RejectsAFlowOnAMissingHost) {
  QosPlan plan = plan_with({{0, 3}}, policy::Transport::rocev2);
  plan.hosts = 2;
  Topology topology;
  topology.port_rate_bps = kLinkBps;
  topology.wire = plan.wire;
  topology.flow_count = 1;
  auto driver = make_sim_driver();
  ASSERT_TRUE(driver->open(topology).ok());
  const Status status = driver->apply(plan);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, Errc::invalid_config);
  EXPECT_EQ(status.error().where, "flows[0]");
}

TEST(SimFabric, RejectsAClassBeyondThePort) {
  QosPlan plan = plan_with({{9}}, policy::Transport::rocev2);
  plan.nic_qos = ets_qos({E, V, V, V, V, V, V, V}, {100, 0, 0, 0, 0, 0, 0, 0});
  Topology topology;
  topology.port_rate_bps = kLinkBps;
  topology.wire = plan.wire;
  topology.flow_count = 1;
  auto driver = make_sim_driver();
  ASSERT_TRUE(driver->open(topology).ok());
  EXPECT_FALSE(driver->apply(plan).ok());
}

}  // namespace
}  // namespace qb::drv
