// The simulator's lossy fabric: the switch tail-drops what does not fit its egress class
// buffer, the receiver takes packets in PSN order and NACKs a gap, the sender goes back
// (go-back-N). Every message must still arrive exactly once, in order, and the counters must
// add up.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "rate_control.hpp"
#include "sim_driver.hpp"
#include "sim_port.hpp"

namespace qb::drv::sim {
namespace {

using policy::QosPlan;

constexpr double kLinkBps = 100e9;
constexpr int64_t kPropagationNs = 1000;

// `hosts` hosts, one flow each, into one switch egress at the NICs' rate.
QosPlan incast(uint32_t hosts, bool lossy, int64_t buffer_bytes) {
  QosPlan plan;
  plan.tree.elements.emplace_back();
  plan.tree.elements[0].name = "default";
  plan.tree.elements[0].is_leaf = true;
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = kLinkBps;
  plan.hosts = hosts;
  plan.switched = true;
  plan.switch_rate_bps = kLinkBps;
  plan.congestion.lossy = lossy;
  plan.congestion.buffer_bytes = buffer_bytes;
  for (uint32_t h = 0; h < hosts; ++h) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(h);
    flow.host = h;
    plan.flows.push_back(flow);
  }
  return plan;
}

// Records the NACK events a program gets.
class NackCounter final : public RateControl {
 public:
  std::vector<RateEvent> nacks;
  uint32_t event_mask() const noexcept override { return rate_event_bit(RateEvent::Kind::nack); }
  void on_start(const RateStart& /*start*/, RateActions& /*actions*/) noexcept override {}
  void on_event(const RateEvent& event, RateActions& /*actions*/) noexcept override {
    nacks.push_back(event);
  }
};

Topology topology_of(const QosPlan& plan) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = kPropagationNs;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  return topology;
}

void start_port(SimPort& port, const QosPlan& plan, RateControl* program = nullptr) {
  port.attach(program);
  port.configure(topology_of(plan), plan);
  port.start();
}

// What the receiver and sender saw, checked as it arrives: per flow the packets of each
// message in order, each message's payload exactly once, completions in message order.
struct Delivery {
  std::vector<uint64_t> next_message;     // per flow: sequence of the message being received
  std::vector<uint64_t> message_payload;  // per flow: its payload bytes so far
  std::vector<uint64_t> delivered;        // per flow: messages whose last packet arrived
  std::vector<uint64_t> completed;        // per flow: tx_done completions
  uint64_t rx_packets = 0;
  uint64_t rx_wire_bytes = 0;
};

// Flows post `window` messages of `bytes` (or `limit` messages in all per flow) and repost on
// each completion until `end_ns`.
Delivery run(SimPort& port, uint32_t flows, uint32_t bytes, int64_t end_ns, uint32_t window,
             uint64_t limit = UINT64_MAX) {
  Queue& queue = port.queue();
  Clock& clock = port.clock();
  Delivery d;
  d.next_message.assign(flows, 0);
  d.message_payload.assign(flows, 0);
  d.delivered.assign(flows, 0);
  d.completed.assign(flows, 0);
  std::vector<uint64_t> posted(flows, 0);
  std::vector<Message> burst;
  auto post = [&](uint32_t flow) {
    if (posted[flow] >= limit) return;
    burst.push_back(Message{flow, bytes, clock.now_ns(), posted[flow]++});
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
        if (c.kind == Completion::Kind::tx_done) {
          EXPECT_EQ(c.sequence, d.completed[c.flow]) << "flow " << c.flow;
          ++d.completed[c.flow];
          post(c.flow);
          continue;
        }
        ++d.rx_packets;
        d.rx_wire_bytes += c.wire_bytes;
        EXPECT_EQ(c.sequence, d.next_message[c.flow]) << "flow " << c.flow;
        d.message_payload[c.flow] += c.payload_bytes;
        if (c.last_of_message) {
          EXPECT_EQ(d.message_payload[c.flow], bytes) << "flow " << c.flow;
          d.message_payload[c.flow] = 0;
          ++d.next_message[c.flow];
          ++d.delivered[c.flow];
        }
      }
    } while (n == batch.size());
    if (burst.empty()) clock.wait_until(end_ns);
  }
  return d;
}

double stat(const PortStats& s, uint64_t PortStats::*field) {
  return static_cast<double>(s.*field);
}

TEST(SimLossy, TinyBufferIncastDropsAndDeliversEveryMessageOnceInOrder) {
  // Two NICs at 100 Gbit/s into one 100 Gbit/s egress with 16 KiB of buffer: half of what
  // they send cannot leave, so the switch drops until go-back-N and the drops pace them.
  SimPort port;
  start_port(port, incast(2, true, 16384));
  const Delivery d = run(port, 2, 65536, 5'000'000, 4);
  const PortStats& s = port.stats();
  EXPECT_GT(s.switch_drops, 100u);
  EXPECT_EQ(s.switch_class_drops[0], s.switch_drops);
  EXPECT_GT(s.nacks, 0u);
  EXPECT_GT(s.out_of_sequence_packets, 0u);
  // Every dropped packet went again (or is the last gap, still to be repaired at the end).
  EXPECT_GE(s.retransmitted_packets + 64, s.switch_drops);
  EXPECT_GT(s.retransmitted_wire_bytes, s.retransmitted_packets * 64);
  // A packet a NIC sent was dropped, discarded out of sequence, delivered, or is still on its
  // way (at most the buffer and the links' worth).
  const uint64_t accounted = s.switch_drops + s.out_of_sequence_packets + d.rx_packets;
  EXPECT_LE(accounted, s.packets);
  EXPECT_LE(s.packets - accounted, 64u);
  for (uint32_t f = 0; f < 2; ++f) {
    EXPECT_GT(d.delivered[f], 10u) << f;
    EXPECT_LE(d.completed[f], d.delivered[f]) << f;
  }
  // Goodput counts each packet once: never above the egress rate.
  EXPECT_LE(static_cast<double>(d.rx_wire_bytes) * 8 / 5e-3, kLinkBps * 1.001);
}

TEST(SimLossy, TheSameIncastLosslessDropsNothing) {
  SimPort port;
  start_port(port, incast(2, false, 0));
  const Delivery d = run(port, 2, 65536, 2'000'000, 4);
  const PortStats& s = port.stats();
  EXPECT_EQ(stat(s, &PortStats::switch_drops), 0.0);
  EXPECT_EQ(stat(s, &PortStats::nacks), 0.0);
  EXPECT_EQ(stat(s, &PortStats::retransmitted_packets), 0.0);
  EXPECT_EQ(s.packets - d.rx_packets <= 64, true);
  EXPECT_GT(s.credit_pauses, 0u);
  EXPECT_FALSE(port.lossy());
}

TEST(SimLossy, AnUncontendedFlowLosesNothing) {
  // One sender: the egress keeps up, the buffer never fills.
  SimPort port;
  start_port(port, incast(1, true, 16384));
  const Delivery d = run(port, 1, 65536, 1'000'000, 4);
  EXPECT_TRUE(port.lossy());
  EXPECT_EQ(port.stats().switch_drops, 0u);
  EXPECT_EQ(port.stats().nacks, 0u);
  EXPECT_EQ(port.stats().retransmitted_packets, 0u);
  EXPECT_GT(d.delivered[0], 100u);
}

TEST(SimLossy, NacksReachTheProgram) {
  NackCounter program;
  SimPort port;
  start_port(port, incast(2, true, 16384), &program);
  run(port, 2, 65536, 2'000'000, 4);
  const PortStats& s = port.stats();
  ASSERT_GT(s.nacks, 0u);
  // Each NACK reaches its sender one way later; only those still on their way are missing.
  EXPECT_LE(program.nacks.size(), s.nacks);
  EXPECT_GE(program.nacks.size() + 2, s.nacks);
  for (const RateEvent& nack : program.nacks) EXPECT_LT(nack.flow, 2u);
}

TEST(SimLossy, FinitePostsAllCompleteEvenWhenTheTailIsLost) {
  // Eight hosts each send two 64 KiB messages at once into 16 KiB: the last packets of some
  // flows are dropped with nothing after them to show the gap; the transport timer repairs
  // them. Every message completes exactly once.
  SimPort port;
  start_port(port, incast(8, true, 16384));
  const Delivery d = run(port, 8, 65536, 20'000'000, 2, 2);
  for (uint32_t f = 0; f < 8; ++f) {
    EXPECT_EQ(d.delivered[f], 2u) << f;
    EXPECT_EQ(d.completed[f], 2u) << f;
  }
  EXPECT_GT(port.stats().switch_drops, 0u);
  EXPECT_GT(port.stats().retransmit_timeouts, 0u);
}

TEST(SimLossy, DeterministicAcrossRuns) {
  SimPort a;
  SimPort b;
  start_port(a, incast(3, true, 20000));
  start_port(b, incast(3, true, 20000));
  const Delivery da = run(a, 3, 65536, 1'000'000, 4);
  const Delivery db = run(b, 3, 65536, 1'000'000, 4);
  EXPECT_EQ(da.delivered, db.delivered);
  EXPECT_EQ(a.stats().switch_drops, b.stats().switch_drops);
  EXPECT_EQ(a.stats().retransmitted_packets, b.stats().retransmitted_packets);
}

}  // namespace
}  // namespace qb::drv::sim

namespace qb::drv::sim {
namespace {

TEST(SimLossy, TheBufferHighWaterIsTheBytesTheEgressClassHolds) {
  // Lossy mode returns no credit: the high water is of the egress class buffer (bytes queued or
  // on their way, freed when they leave), so it stays within the buffer it overflows.
  SimPort port;
  start_port(port, incast(2, true, 16384));
  run(port, 2, 65536, 5'000'000, 4);
  const PortStats& s = port.stats();
  ASSERT_GT(s.switch_drops, 100u);
  EXPECT_LE(s.switch_buffer_high_water_bytes, 16384u);
  EXPECT_GT(s.switch_buffer_high_water_bytes, 16384u - 4200u);  // a packet more did not fit
}

TEST(SimLossy, EverySwitchDropIsADropOfItsFlow) {
  SimPort port;
  start_port(port, incast(2, true, 16384));
  run(port, 2, 65536, 5'000'000, 4);
  const std::vector<uint64_t>& drops = port.flow_drops();
  ASSERT_EQ(drops.size(), 2u);
  EXPECT_EQ(drops[0] + drops[1], port.stats().switch_drops);  // the window: the whole run

  // Only the drops inside the measured window count as the flows'.
  Topology topology = topology_of(incast(2, true, 16384));
  topology.window_start_ns = 1'000'000;
  topology.window_end_ns = 3'000'000;
  SimPort windowed;
  windowed.configure(topology, incast(2, true, 16384));
  windowed.start();
  run(windowed, 2, 65536, 5'000'000, 4);
  const std::vector<uint64_t>& inside = windowed.flow_drops();
  EXPECT_EQ(windowed.stats().switch_drops, port.stats().switch_drops);
  EXPECT_GT(inside[0] + inside[1], 0u);
  EXPECT_LT(inside[0] + inside[1], drops[0] + drops[1]);
}

TEST(SimLossy, DriverStatsNameEachCounterOnce) {
  // `drops` counts every packet the fabric dropped (here all at the switch); there is no credit
  // buffer in lossy mode, so no switch_buffer_bytes beside lossy_buffer_bytes; no back-pressure.
  const QosPlan plan = incast(2, true, 16384);
  auto driver = make_sim_driver();
  ASSERT_TRUE(driver->open(topology_of(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  std::map<std::string, double> stats;
  auto run_driver = [&] {
    Queue& queue = driver->queue(0);
    Clock& clock = driver->clock(0);
    std::vector<Message> burst;
    std::vector<uint64_t> sequence(2, 0);
    for (uint32_t f = 0; f < 2; ++f) {
      for (int i = 0; i < 4; ++i) burst.push_back(Message{f, 65536, 0, sequence[f]++});
    }
    std::array<Completion, 64> batch;
    while (clock.now_ns() < 2'000'000) {
      if (!burst.empty()) burst.erase(burst.begin(), burst.begin() + queue.tx_burst(burst));
      for (uint32_t n = queue.poll(batch); n > 0; n = queue.poll(batch)) {
        for (uint32_t i = 0; i < n; ++i) {
          const Completion& c = batch[i];
          if (c.kind == Completion::Kind::tx_done) {
            burst.push_back(Message{c.flow, 65536, clock.now_ns(), sequence[c.flow]++});
          }
        }
      }
      if (burst.empty()) clock.wait_until(2'000'000);
    }
  };
  run_driver();
  for (const auto& [name, value] : driver->stats()) stats[name] = value;
  ASSERT_GT(stats["switch_drops"], 0.0);
  EXPECT_EQ(stats["drops"], stats["switch_drops"]);
  EXPECT_FALSE(stats.contains("switch_buffer_bytes"));
  EXPECT_EQ(stats["lossy_buffer_bytes"], 16384.0);
  EXPECT_LE(stats["switch_buffer_high_water_bytes"], stats["lossy_buffer_bytes"]);
  EXPECT_EQ(stats["backpressure_paused_ns"], 0.0);
  EXPECT_EQ(stats["backpressure_paused_ns.h0.port"], 0.0);
  EXPECT_EQ(stats["credit_pauses"], 0.0);
  const std::vector<uint64_t> drops = driver->flow_drops();
  ASSERT_EQ(drops.size(), 2u);
  EXPECT_EQ(static_cast<double>(drops[0] + drops[1]), stats["switch_drops"]);
}

}  // namespace
}  // namespace qb::drv::sim
