// The simulator's rate-control seam (drivers/sim/rate_control.hpp, private to the drivers): a
// test program attached to the simulated port sets flow rates and sees its events.
#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "rate_control.hpp"
#include "sim_driver.hpp"
#include "sim_port.hpp"

namespace qb::drv::sim {
namespace {

using policy::QosPlan;
using Kind = RateEvent::Kind;

constexpr double kLinkBps = 100e9;
constexpr int64_t kPropagationNs = 1000;

// Flat tree (the root is the only leaf); flows on `hosts` / `classes` as given.
QosPlan flat_plan(uint32_t flows) {
  QosPlan plan;
  plan.tree.elements.emplace_back();
  plan.tree.elements[0].name = "default";
  plan.tree.elements[0].is_leaf = true;
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = kLinkBps;
  for (uint32_t f = 0; f < flows; ++f) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    plan.flows.push_back(flow);
  }
  return plan;
}

// The man page's tree: g1 (7) and g2 (3, capped at 4096 Mbit/s), 4 QPs on each.
QosPlan man_page_plan() {
  QosPlan plan = flat_plan(0);
  plan.tree = policy::SchedTree::with_root();
  const uint32_t g1 = plan.tree.add_child(0, "g1", true, 7);
  const uint32_t g2 = plan.tree.add_child(0, "g2", true, 3, 4096e6);
  for (uint32_t f = 0; f < 8; ++f) {
    policy::FlowPlan flow;
    flow.name = "qp#" + std::to_string(f);
    flow.leaf = f < 4 ? g1 : g2;
    plan.flows.push_back(flow);
  }
  return plan;
}

QosPlan incast_plan() {
  QosPlan plan = flat_plan(2);
  plan.flows[1].host = 1;
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_rate_bps = kLinkBps;
  return plan;
}

QosPlan ets_plan() {
  QosPlan plan = flat_plan(2);
  plan.flows[1].arb_class = 1;
  plan.nic_qos.kind = policy::PortQos::Kind::ets;
  plan.nic_qos.eth = policy::default_eth_port_qos();
  plan.nic_qos.eth.tsa.fill(policy::TcSelect::vendor);
  plan.nic_qos.eth.tsa[0] = policy::TcSelect::ets;
  plan.nic_qos.eth.tsa[1] = policy::TcSelect::ets;
  plan.nic_qos.eth.ets_percent = {60, 40, 0, 0, 0, 0, 0, 0};
  return plan;
}

// A program that records its events; what it does is up to the test's hooks.
class TestProgram final : public RateControl {
 public:
  // Every event but probe (a program that asks for probes must answer them).
  uint32_t mask = kAllRateEvents & ~rate_event_bit(Kind::probe);
  std::function<void(RateActions&)> start;
  std::function<void(const RateEvent&, RateActions&)> react;
  std::vector<RateEvent> events;
  uint32_t starts = 0;

  uint32_t event_mask() const noexcept override { return mask; }
  void on_start(const RateStart& /*start*/, RateActions& actions) noexcept override {
    ++starts;
    if (start) start(actions);
  }
  void on_event(const RateEvent& event, RateActions& actions) noexcept override {
    events.push_back(event);
    if (react) react(event, actions);
  }
  std::vector<RateEvent> of(Kind kind) const {
    std::vector<RateEvent> out;
    for (const RateEvent& event : events) {
      if (event.kind == kind) out.push_back(event);
    }
    return out;
  }
};

void start_port(SimPort& port, const QosPlan& plan, RateControl* program) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = kPropagationNs;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  port.attach(program);
  port.configure(topology, plan);
  port.start();
}

// Every flow keeps `window` messages of `bytes` outstanding until `end_ns`; the whole
// completion stream is kept.
std::vector<Completion> saturate(Queue& queue, Clock& clock, uint32_t flows, uint32_t bytes,
                                 int64_t end_ns, uint32_t window = 8) {
  std::vector<uint64_t> sequence(flows, 0);
  std::vector<Message> burst;
  auto post = [&](uint32_t flow) {
    burst.push_back(Message{flow, bytes, clock.now_ns(), sequence[flow]++});
  };
  for (uint32_t f = 0; f < flows; ++f) {
    for (uint32_t i = 0; i < window; ++i) post(f);
  }
  std::vector<Completion> stream;
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
        stream.push_back(batch[i]);
        if (batch[i].kind == Completion::Kind::tx_done) post(batch[i].flow);
      }
    } while (n == batch.size());
    if (burst.empty()) clock.wait_until(end_ns);
  }
  return stream;
}

std::vector<Completion> saturate(SimPort& port, uint32_t flows, uint32_t bytes, int64_t end_ns) {
  return saturate(port.queue(), port.clock(), flows, bytes, end_ns);
}

// Wire bit/s of `flow` arriving in [from_ns, to_ns).
double wire_bps(const std::vector<Completion>& stream, uint32_t flow, int64_t from_ns,
                int64_t to_ns) {
  uint64_t bytes = 0;
  for (const Completion& c : stream) {
    if (c.kind == Completion::Kind::rx_packet && c.flow == flow && c.time_ns >= from_ns &&
        c.time_ns < to_ns) {
      bytes += c.wire_bytes;
    }
  }
  return static_cast<double>(bytes) * 8.0 / (static_cast<double>(to_ns - from_ns) * 1e-9);
}

bool same(const Completion& a, const Completion& b) {
  return a.kind == b.kind && a.last_of_message == b.last_of_message && a.messages == b.messages &&
         a.flow == b.flow && a.payload_bytes == b.payload_bytes && a.wire_bytes == b.wire_bytes &&
         a.sequence == b.sequence && a.scheduled_ns == b.scheduled_ns && a.sent_ns == b.sent_ns &&
         a.time_ns == b.time_ns;
}

void expect_same_stream(const std::vector<Completion>& a, const std::vector<Completion>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(same(a[i], b[i])) << "completion " << i << " differs";
  }
}

void expect_same_stats(const PortStats& a, const PortStats& b) {
  EXPECT_EQ(a.packets, b.packets);
  EXPECT_EQ(a.messages, b.messages);
  EXPECT_EQ(a.wire_bytes, b.wire_bytes);
  EXPECT_EQ(a.steps, b.steps);  // "events" in the results
  EXPECT_EQ(a.busy_ps, b.busy_ps);
  EXPECT_EQ(a.ring_stalls, b.ring_stalls);
  EXPECT_EQ(a.completions, b.completions);
  EXPECT_EQ(a.credit_pauses, b.credit_pauses);
  EXPECT_EQ(a.switch_busy_ps, b.switch_busy_ps);
}

// ---- (a) set_rate limits a saturating flow -------------------------------------------------

TEST(SimRateControl, SetRateLimitsASaturatingFlowAndTheOtherTakesTheRest) {
  TestProgram program;
  program.mask = 0;
  program.start = [](RateActions& actions) { actions.set_rate(0, 10e9); };
  SimPort port;
  start_port(port, flat_plan(2), &program);
  const auto stream = saturate(port, 2, 16384, 5'200'000);
  EXPECT_NEAR(wire_bps(stream, 0, 200'000, 5'200'000) / 10e9, 1.0, 0.01);
  // The limiter sits in front of the tree: the link stays busy with the other flow.
  EXPECT_NEAR(wire_bps(stream, 1, 200'000, 5'200'000) / 90e9, 1.0, 0.01);
}

TEST(SimRateControl, SetRateHoldsForMultiPacketMessagesAndSmallRates) {
  TestProgram program;
  program.mask = 0;
  program.start = [](RateActions& actions) {
    actions.set_rate(0, 37.5e9);
    actions.set_rate(1, 1e9);
  };
  SimPort port;
  start_port(port, flat_plan(3), &program);
  const auto stream = saturate(port, 3, 65536, 20'500'000);
  EXPECT_NEAR(wire_bps(stream, 0, 500'000, 20'500'000) / 37.5e9, 1.0, 0.01);
  EXPECT_NEAR(wire_bps(stream, 1, 500'000, 20'500'000) / 1e9, 1.0, 0.01);
  EXPECT_NEAR(wire_bps(stream, 2, 500'000, 20'500'000) / (100e9 - 38.5e9), 1.0, 0.01);
}

TEST(SimRateControl, ANewRateAppliesFromThenOnAndZeroRemovesTheLimit) {
  TestProgram program;
  program.mask = rate_event_bit(Kind::timer);
  program.start = [](RateActions& actions) {
    actions.set_rate(0, 20e9);
    actions.set_timer(0, 2'000'000);
  };
  program.react = [](const RateEvent& event, RateActions& actions) {
    if (event.time_ns == 2'000'000) {
      actions.set_rate(0, 60e9);
      actions.set_timer(0, 2'000'000);
    } else {
      actions.set_rate(0, 0);
    }
  };
  SimPort port;
  start_port(port, flat_plan(1), &program);
  const auto stream = saturate(port, 1, 16384, 6'000'000);
  EXPECT_NEAR(wire_bps(stream, 0, 200'000, 2'000'000) / 20e9, 1.0, 0.01);
  EXPECT_NEAR(wire_bps(stream, 0, 2'100'000, 4'000'000) / 60e9, 1.0, 0.01);
  EXPECT_NEAR(wire_bps(stream, 0, 4'100'000, 6'000'000) / kLinkBps, 1.0, 0.01);
}

TEST(SimRateControl, TheLimiterSitsInFrontOfTheClassTree) {
  // ETS 60/40 at the NIC; TC0's flow limited to 20 Gbit/s: TC1 takes the rest (ETS is
  // work-conserving), TC0 gets its limit.
  TestProgram program;
  program.mask = 0;
  program.start = [](RateActions& actions) { actions.set_rate(0, 20e9); };
  SimPort port;
  start_port(port, ets_plan(), &program);
  const auto stream = saturate(port, 2, 16384, 5'200'000);
  EXPECT_NEAR(wire_bps(stream, 0, 200'000, 5'200'000) / 20e9, 1.0, 0.01);
  EXPECT_NEAR(wire_bps(stream, 1, 200'000, 5'200'000) / 80e9, 1.0, 0.01);
}

// ---- (b) the events arrive with their values -----------------------------------------------

TEST(SimRateControl, SentAckRttAndTimerEventsCarryTheirValues) {
  TestProgram program;
  program.start = [](RateActions& actions) {
    actions.request_rtt_probe(0);
    actions.request_rtt_probe(0);  // one out at a time: ignored
    actions.set_timer(0, 5000);
    actions.set_timer(1, 100);
    actions.set_timer(1, -1);  // cancelled
    actions.set_rate(7, 1e9);  // no such flow: nothing happens
  };
  SimPort port;
  start_port(port, flat_plan(2), &program);
  // Three one-packet messages of 3952 B: 4050 wire bytes, 324 ns each at 100 Gbit/s.
  const std::array<Message, 3> messages{{{0, 3952, 0, 0}, {0, 3952, 0, 1}, {0, 3952, 0, 2}}};
  ASSERT_EQ(port.queue().tx_burst(messages), 3u);
  std::vector<Completion> done;
  std::array<Completion, 16> batch;
  while (port.clock().now_ns() < 1'000'000) {
    port.clock().wait_until(1'000'000);
    const uint32_t n = port.queue().poll(batch);
    for (uint32_t i = 0; i < n; ++i) {
      if (batch[i].kind == Completion::Kind::tx_done) done.push_back(batch[i]);
    }
  }
  EXPECT_EQ(program.starts, 1u);

  const auto sent = program.of(Kind::sent);
  ASSERT_EQ(sent.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(sent[i].flow, 0u);
    EXPECT_EQ(sent[i].bytes, 4050u);
    EXPECT_EQ(sent[i].time_ns, 324 * i);
  }
  const auto acks = program.of(Kind::ack);
  ASSERT_EQ(acks.size(), 3u);
  ASSERT_EQ(done.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(acks[i].flow, 0u);
    EXPECT_EQ(acks[i].sequence, i);
    EXPECT_EQ(acks[i].bytes, 3952u);
    EXPECT_EQ(acks[i].time_ns, done[i].time_ns);  // the ACK is the tx_done
    EXPECT_EQ(acks[i].time_ns, 324 * static_cast<int64_t>(i + 1) + 2 * kPropagationNs);
    EXPECT_EQ(acks[i].rtt_ns, 324 + 2 * kPropagationNs);
  }
  const auto rtts = program.of(Kind::rtt);
  ASSERT_EQ(rtts.size(), 1u);
  EXPECT_EQ(rtts[0].flow, 0u);
  EXPECT_EQ(rtts[0].rtt_ns, 2 * kPropagationNs);  // no switch: propagation there and back
  EXPECT_EQ(rtts[0].time_ns, 2 * kPropagationNs);
  const auto timers = program.of(Kind::timer);
  ASSERT_EQ(timers.size(), 1u);
  EXPECT_EQ(timers[0].flow, 0u);
  EXPECT_EQ(timers[0].time_ns, 5000);
  EXPECT_TRUE(program.of(Kind::cnp).empty());  // no switch: nothing marks ECN
  for (size_t i = 1; i < program.events.size(); ++i) {
    EXPECT_LE(program.events[i - 1].time_ns, program.events[i].time_ns) << i;
  }
}

TEST(SimRateControl, OnlyTheEventsAskedForArrive) {
  TestProgram program;
  program.mask = rate_event_bit(Kind::ack);
  SimPort port;
  start_port(port, flat_plan(2), &program);
  saturate(port, 2, 16384, 100'000);
  ASSERT_FALSE(program.events.empty());
  for (const RateEvent& event : program.events) EXPECT_EQ(event.kind, Kind::ack);
}

TEST(SimRateControl, ProbesThroughACongestedSwitchSeeItsQueue) {
  // Two hosts into one switch port: the buffers fill up, and a probe waits behind its
  // buffer's bytes. Probes every 100 us from 1 ms on.
  TestProgram program;
  program.mask = rate_event_bit(Kind::rtt) | rate_event_bit(Kind::timer);
  program.start = [](RateActions& actions) { actions.set_timer(0, 1'000'000); };
  program.react = [](const RateEvent& event, RateActions& actions) {
    if (event.kind == Kind::timer) {
      actions.request_rtt_probe(0);
      actions.set_timer(0, 100'000);
    }
  };
  SimPort port;
  start_port(port, incast_plan(), &program);
  saturate(port, 2, 16384, 3'000'000);
  const auto rtts = program.of(Kind::rtt);
  ASSERT_GE(rtts.size(), 15u);
  // At most its full buffer (plus a packet in flight) and as much of the other host's, which
  // the egress serves round robin with it, at the switch rate.
  const auto buffer_ns = static_cast<int64_t>(
      2.0 * static_cast<double>(port.switch_buffer_bytes() + 4200) * 8.0 / kLinkBps * 1e9);
  for (const RateEvent& rtt : rtts) {
    EXPECT_GT(rtt.rtt_ns, 2 * kPropagationNs + buffer_ns / 4) << rtt.time_ns;
    EXPECT_LE(rtt.rtt_ns, 2 * kPropagationNs + buffer_ns) << rtt.time_ns;
  }
}

// ---- (c) without a program nothing changes -------------------------------------------------

// The same run without a program (SimModel<SingleLink> for a plain plan) and with one that
// asks for every event and does nothing (SimModel<Fabric>): the same completions and counters.
void expect_program_changes_nothing(const QosPlan& plan, uint32_t bytes, int64_t end_ns) {
  const auto flows = static_cast<uint32_t>(plan.flows.size());
  SimPort bare;
  start_port(bare, plan, nullptr);
  const auto bare_stream = saturate(bare, flows, bytes, end_ns);

  TestProgram idle;
  SimPort watched;
  start_port(watched, plan, &idle);
  const auto watched_stream = saturate(watched, flows, bytes, end_ns);
  EXPECT_FALSE(idle.events.empty());
  expect_same_stream(bare_stream, watched_stream);
  expect_same_stats(bare.stats(), watched.stats());
  EXPECT_EQ(bare.now_ps(), watched.now_ps());
  EXPECT_EQ(bare.fabric(), watched.fabric());  // the reported stats keep their fields

  // Explicitly unlimited rates are no limit either.
  TestProgram unlimited;
  unlimited.mask = 0;
  unlimited.start = [flows](RateActions& actions) {
    for (uint32_t f = 0; f < flows; ++f) actions.set_rate(f, 0);
  };
  SimPort unlimited_port;
  start_port(unlimited_port, plan, &unlimited);
  expect_same_stream(bare_stream, saturate(unlimited_port, flows, bytes, end_ns));
}

TEST(SimRateControl, WithoutAProgramAPlainPlanRunsAsBefore) {
  expect_program_changes_nothing(man_page_plan(), 16384, 2'000'000);
  expect_program_changes_nothing(man_page_plan(), 4096, 1'000'000);
}

TEST(SimRateControl, WithoutAProgramAFabricPlanRunsAsBefore) {
  expect_program_changes_nothing(ets_plan(), 16384, 1'000'000);
  expect_program_changes_nothing(incast_plan(), 16384, 2'000'000);
}

TEST(SimRateControl, TheSimDriverRunsTheSameModelAsABarePort) {
  // The driver's port has no program: its completions are a bare port's.
  const QosPlan plan = man_page_plan();
  SimPort bare;
  start_port(bare, plan, nullptr);
  const auto bare_stream = saturate(bare, 8, 16384, 1'000'000);

  auto driver = make_sim_driver();
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = kPropagationNs;
  topology.flow_count = 8;
  ASSERT_TRUE(driver->open(topology).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  const auto stream = saturate(driver->queue(0), driver->clock(0), 8, 16384, 1'000'000);
  expect_same_stream(bare_stream, stream);
}

TEST(SimRateControl, EveryRunStartsUnlimitedAndTellsTheProgram) {
  TestProgram program;
  program.mask = 0;
  bool limit = true;
  program.start = [&limit](RateActions& actions) {
    if (limit) actions.set_rate(0, 10e9);
  };
  SimPort port;
  start_port(port, flat_plan(1), &program);
  const auto limited = saturate(port, 1, 16384, 1'000'000);
  EXPECT_NEAR(wire_bps(limited, 0, 200'000, 1'000'000) / 10e9, 1.0, 0.01);
  limit = false;
  port.start();
  const auto free = saturate(port, 1, 16384, 1'000'000);
  EXPECT_EQ(program.starts, 2u);
  EXPECT_NEAR(wire_bps(free, 0, 200'000, 1'000'000) / kLinkBps, 1.0, 0.01);
}

// ---- (d) probes answered by the program, start events, wake-ups, CNPs ----------------------

TEST(SimRateControl, AProbeWaitsAtTheReceiverForTheProgramsAnswer) {
  // The probe reaches the receiver after one propagation delay (1000 ns); the program answers
  // 500 ns later (from a timer); the answer takes one more propagation delay back.
  TestProgram program;
  program.mask =
      rate_event_bit(Kind::probe) | rate_event_bit(Kind::rtt) | rate_event_bit(Kind::timer);
  program.start = [](RateActions& actions) {
    actions.request_rtt_probe(0);
    actions.request_rtt_probe(0);  // ignored: one out per flow
  };
  program.react = [](const RateEvent& event, RateActions& actions) {
    if (event.kind == Kind::probe) actions.set_timer(event.flow, 500);
    if (event.kind == Kind::timer) actions.answer_probe(event.flow);
  };
  SimPort port;
  start_port(port, flat_plan(1), &program);
  saturate(port, 1, 4096, 100'000);
  const auto probes = program.of(Kind::probe);
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(probes[0].time_ns, kPropagationNs);
  EXPECT_EQ(probes[0].probe_sent_ns, 0);
  const auto rtts = program.of(Kind::rtt);
  ASSERT_EQ(rtts.size(), 1u);
  EXPECT_EQ(rtts[0].time_ns, kPropagationNs + 500 + kPropagationNs);
  EXPECT_EQ(rtts[0].rtt_ns, 2500);
  EXPECT_EQ(rtts[0].probe_sent_ns, 0);
  EXPECT_EQ(rtts[0].probe_answered_ns, kPropagationNs + 500);
}

TEST(SimRateControl, AnUnansweredProbeIsReplacedByTheNextRequest) {
  TestProgram program;
  program.mask =
      rate_event_bit(Kind::probe) | rate_event_bit(Kind::rtt) | rate_event_bit(Kind::timer);
  program.start = [](RateActions& actions) {
    actions.request_rtt_probe(0);
    actions.set_timer(0, 5000);
  };
  int probes_seen = 0;
  program.react = [&probes_seen](const RateEvent& event, RateActions& actions) {
    if (event.kind == Kind::timer) actions.request_rtt_probe(0);  // the first one is lost
    if (event.kind == Kind::probe && ++probes_seen == 2) actions.answer_probe(0);
  };
  SimPort port;
  start_port(port, flat_plan(1), &program);
  saturate(port, 1, 4096, 100'000);
  ASSERT_EQ(program.of(Kind::probe).size(), 2u);
  const auto rtts = program.of(Kind::rtt);
  ASSERT_EQ(rtts.size(), 1u);
  EXPECT_EQ(rtts[0].probe_sent_ns, 5000);
  EXPECT_EQ(rtts[0].rtt_ns, 2 * kPropagationNs);
}

TEST(SimRateControl, EachFlowStartsOnceAtItsFirstPost) {
  TestProgram program;
  program.mask = rate_event_bit(Kind::start);
  SimPort port;
  start_port(port, flat_plan(3), &program);
  saturate(port, 2, 16384, 100'000);  // flow 2 never posts
  const auto starts = program.of(Kind::start);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0].flow, 0u);
  EXPECT_EQ(starts[1].flow, 1u);
  EXPECT_EQ(starts[0].time_ns, 0);
}

TEST(SimRateControl, TheWakeupSeesTheHostsTxCounter) {
  // One saturating flow of 4050-byte packets (324 ns each at 100 Gbit/s): by 10 us, 31 packets
  // have started (at 0, 324, ..., 9720 ns).
  TestProgram program;
  program.mask = rate_event_bit(Kind::wakeup);
  uint64_t counted = 0;
  uint32_t flows_seen = 0;
  int64_t line_bps = 0;
  program.start = [](RateActions& actions) { actions.set_wakeup(10'000); };
  program.react = [&counted](const RateEvent&, RateActions& actions) {
    counted = actions.tx_wire_bytes(0);
    EXPECT_EQ(actions.tx_wire_bytes(7), 0u);  // no such host
  };
  struct Recorder final : RateControl {
    TestProgram* inner = nullptr;
    uint32_t* flows = nullptr;
    int64_t* line = nullptr;
    uint32_t event_mask() const noexcept override { return inner->event_mask(); }
    void on_start(const RateStart& start, RateActions& actions) noexcept override {
      *flows = start.flows;
      *line = start.line_rate_bps;
      inner->on_start(start, actions);
    }
    void on_event(const RateEvent& event, RateActions& actions) noexcept override {
      inner->on_event(event, actions);
    }
  } recorder;
  recorder.inner = &program;
  recorder.flows = &flows_seen;
  recorder.line = &line_bps;
  SimPort port;
  start_port(port, flat_plan(1), &recorder);
  saturate(port, 1, 3952, 50'000);
  ASSERT_EQ(program.of(Kind::wakeup).size(), 1u);
  EXPECT_EQ(program.of(Kind::wakeup)[0].time_ns, 10'000);
  EXPECT_EQ(counted, 31u * 4050u);
  EXPECT_EQ(flows_seen, 1u);
  EXPECT_EQ(line_bps, static_cast<int64_t>(kLinkBps));
}

QosPlan marking_incast_plan(int64_t threshold_bytes, int64_t cnp_interval_ns) {
  QosPlan plan = incast_plan();
  plan.congestion.ecn[0].enabled = true;
  plan.congestion.ecn[0].min_bytes = threshold_bytes;
  plan.congestion.ecn[0].max_bytes = threshold_bytes;
  plan.congestion.cnp_interval_ns = cnp_interval_ns;
  return plan;
}

TEST(SimRateControl, EcnMarksAtTheSwitchComeBackAsCnpsAtMostOnePerInterval) {
  TestProgram program;
  program.mask = rate_event_bit(Kind::cnp);
  SimPort port;
  start_port(port, marking_incast_plan(20'000, 4'000), &program);
  saturate(port, 2, 16384, 2'000'000);
  const PortStats& stats = port.stats();
  EXPECT_GT(stats.ecn_marks, 100u);
  EXPECT_GT(stats.cnps, 100u);
  EXPECT_LT(stats.cnps, stats.ecn_marks);  // the interval merges marks
  const auto cnps = program.of(Kind::cnp);
  // Every CNP the receiver sent arrived, but those still on their way at the end.
  EXPECT_LE(cnps.size(), stats.cnps);
  EXPECT_GE(cnps.size() + 4, stats.cnps);
  std::array<int64_t, 2> last{INT64_MIN, INT64_MIN};
  for (const RateEvent& cnp : cnps) {
    ASSERT_LT(cnp.flow, 2u);
    if (last[cnp.flow] != INT64_MIN) {
      EXPECT_GE(cnp.time_ns - last[cnp.flow], 4'000);
    }
    last[cnp.flow] = cnp.time_ns;
  }
  EXPECT_EQ(stats.cnp_ring_overflows, 0u);
}

TEST(SimRateControl, NoMarksBelowTheThresholdOrWithoutEcn) {
  SimPort unmarked;
  start_port(unmarked, incast_plan(), nullptr);
  saturate(unmarked, 2, 16384, 1'000'000);
  EXPECT_EQ(unmarked.stats().ecn_marks, 0u);
  EXPECT_EQ(unmarked.stats().cnps, 0u);
  // A threshold above anything the switch can hold: never reached.
  SimPort high;
  start_port(high, marking_incast_plan(1'000'000'000, 0), nullptr);
  saturate(high, 2, 16384, 1'000'000);
  EXPECT_EQ(high.stats().ecn_marks, 0u);
  // Without a program the marks and CNPs are still counted (interval 0: a CNP per mark).
  SimPort counted;
  start_port(counted, marking_incast_plan(20'000, 0), nullptr);
  saturate(counted, 2, 16384, 1'000'000);
  EXPECT_GT(counted.stats().ecn_marks, 0u);
  // Marked packets still in the two switch buffers at the end have not reached the receiver.
  const auto in_switch = static_cast<uint64_t>(2 * counted.switch_buffer_bytes() / 4096 + 2);
  EXPECT_GE(counted.stats().cnps + in_switch, counted.stats().ecn_marks);
  EXPECT_LE(counted.stats().cnps, counted.stats().ecn_marks);
}

}  // namespace
}  // namespace qb::drv::sim
