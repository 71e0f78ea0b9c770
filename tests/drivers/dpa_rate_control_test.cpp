// The DPA emulator behind the simulator's rate-control seam (drivers/sim/dpa_rate_control.hpp):
// a SimPort runs a shipped program (pcc_rtt, the reflector on the receiver) and a recorder
// between the port and DpaRateControl sees every event and every action with its time.
#include "dpa_rate_control.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "idle_backend.hpp"
#include "qb/drivers/driver.hpp"
#include "qb_dpa/programs.h"
#include "sim_driver.hpp"
#include "sim_port.hpp"

namespace qb::drv::sim {
namespace {

using policy::QosPlan;
using Kind = RateEvent::Kind;

constexpr double kLinkBps = 100e9;
constexpr int64_t kPropagationNs = 1000;

// Two hosts into one receiver through a switch at the link rate (an incast), one flow each.
QosPlan incast_plan() {
  QosPlan plan;
  plan.tree.elements.emplace_back();
  plan.tree.elements[0].name = "default";
  plan.tree.elements[0].is_leaf = true;
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = kLinkBps;
  for (uint32_t f = 0; f < 2; ++f) {
    policy::FlowPlan flow;
    flow.name = "h" + std::to_string(f);
    flow.host = f;
    plan.flows.push_back(flow);
  }
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_rate_bps = kLinkBps;
  return plan;
}

// The program's defaults, as the suite loader fills them in.
std::vector<int64_t> defaults(const char* name) {
  const qb_dpa_program* program = qb_dpa_find_program(name);
  std::vector<int64_t> values;
  if (program == nullptr) return values;
  for (uint32_t i = 0; i < program->param_count; ++i) {
    values.push_back(program->params[i].default_value);
  }
  return values;
}

constexpr uint32_t kPccHighUtilisation = 5;  // pcc_rtt's parameter index

policy::DpaPlan pcc_plan(int64_t handler_cost_ns = 0, uint32_t threads = 1) {
  policy::DpaPlan plan;
  plan.program = "pcc_rtt";
  plan.params = defaults("pcc_rtt");
  plan.threads = threads;
  plan.handler_cost_ns = handler_cost_ns;
  return plan;
}

struct RateCall {
  int64_t time_ns;
  uint32_t flow;
  double rate_bps;
};

struct Log {
  std::vector<RateEvent> events;
  std::vector<RateCall> rates;
  std::vector<std::pair<int64_t, uint32_t>> answers;   // answer_probe(flow) at time
  std::vector<std::pair<int64_t, uint32_t>> requests;  // request_rtt_probe(flow) at time

  std::vector<RateEvent> of(Kind kind) const {
    std::vector<RateEvent> out;
    for (const RateEvent& event : events) {
      if (event.kind == kind) out.push_back(event);
    }
    return out;
  }
  std::vector<RateCall> rates_of(uint32_t flow) const {
    std::vector<RateCall> out;
    for (const RateCall& call : rates) {
      if (call.flow == flow) out.push_back(call);
    }
    return out;
  }
};

// The port's actions, recorded with the time of the call on their way through.
class RecordingActions final : public RateActions {
 public:
  RecordingActions(RateActions& inner, int64_t now_ns, Log& log)
      : inner_(inner), now_ns_(now_ns), log_(log) {}
  void set_rate(uint32_t flow, double rate_bps) noexcept override {
    log_.rates.push_back(RateCall{now_ns_, flow, rate_bps});
    inner_.set_rate(flow, rate_bps);
  }
  void request_rtt_probe(uint32_t flow) noexcept override {
    log_.requests.emplace_back(now_ns_, flow);
    inner_.request_rtt_probe(flow);
  }
  void set_timer(uint32_t flow, int64_t delay_ns) noexcept override {
    inner_.set_timer(flow, delay_ns);
  }
  void answer_probe(uint32_t flow) noexcept override {
    log_.answers.emplace_back(now_ns_, flow);
    inner_.answer_probe(flow);
  }
  void set_wakeup(int64_t delay_ns) noexcept override { inner_.set_wakeup(delay_ns); }
  uint64_t tx_wire_bytes(uint32_t host) const noexcept override {
    return inner_.tx_wire_bytes(host);
  }

 private:
  RateActions& inner_;
  int64_t now_ns_;
  Log& log_;
};

class Recorder final : public RateControl {
 public:
  explicit Recorder(DpaRateControl& inner) : inner_(inner) {}
  uint32_t event_mask() const noexcept override { return inner_.event_mask(); }
  void on_start(const RateStart& start, RateActions& actions) noexcept override {
    RecordingActions recording(actions, 0, log);
    inner_.on_start(start, recording);
  }
  void on_event(const RateEvent& event, RateActions& actions) noexcept override {
    log.events.push_back(event);
    RecordingActions recording(actions, event.time_ns, log);
    inner_.on_event(event, recording);
  }
  Log log;

 private:
  DpaRateControl& inner_;
};

// Every flow keeps 8 messages of `bytes` outstanding until `end_ns`.
void saturate(SimPort& port, uint32_t flows, uint32_t bytes, int64_t end_ns) {
  Queue& queue = port.queue();
  Clock& clock = port.clock();
  std::vector<uint64_t> sequence(flows, 0);
  std::vector<Message> burst;
  auto post = [&](uint32_t flow) {
    burst.push_back(Message{flow, bytes, clock.now_ns(), sequence[flow]++});
  };
  for (uint32_t f = 0; f < flows; ++f) {
    for (uint32_t i = 0; i < 8; ++i) post(f);
  }
  std::array<Completion, 64> batch;
  while (clock.now_ns() < end_ns) {
    if (!burst.empty()) {
      EXPECT_EQ(port.queue().tx_burst(burst), burst.size());
      burst.clear();
    }
    uint32_t n = 0;
    do {
      n = queue.poll(batch);
      for (uint32_t i = 0; i < n; ++i) {
        if (batch[i].kind == Completion::Kind::tx_done) post(batch[i].flow);
      }
    } while (n == batch.size());
    if (burst.empty()) clock.wait_until(end_ns);
  }
}

struct IncastRun {
  Log log;
  DriverStats stats;
  int64_t end_ns = 0;
  uint32_t mask = 0;
};

// The plan's DPA program on the 2-host incast, both flows saturating until `end_ns`.
IncastRun run_incast(const policy::DpaPlan& dpa, int64_t end_ns,
                     const QosPlan& plan = incast_plan()) {
  IncastRun out;
  DpaRateControl control(dpa, 2, kLinkBps);
  out.mask = control.event_mask();
  Recorder recorder(control);
  SimPort port;
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = kPropagationNs;
  topology.flow_count = 2;
  port.attach(&recorder);
  port.configure(topology, plan);
  port.start();
  saturate(port, 2, 65536, end_ns);
  out.end_ns = port.now_ps() / 1000;
  control.add_stats(out.stats, out.end_ns);
  out.log = std::move(recorder.log);
  return out;
}

double stat(const DriverStats& stats, const std::string& name) {
  for (const auto& [key, value] : stats) {
    if (key == name) return value;
  }
  ADD_FAILURE() << "no driver stat " << name;
  return -1.0;
}

bool has_stat(const DriverStats& stats, const std::string& name) {
  return std::any_of(stats.begin(), stats.end(),
                     [&name](const auto& entry) { return entry.first == name; });
}

// ---- construction ------------------------------------------------------------------------------

TEST(DpaRateControl, UnknownProgramThrowsInvalidArgument) {
  policy::DpaPlan plan = pcc_plan();
  plan.program = "timely";
  plan.params.clear();
  try {
    DpaRateControl control(plan, 2, kLinkBps);
    FAIL() << "constructed";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("no DPA program called \"timely\""), std::string::npos)
        << error.what();
  }
  policy::DpaPlan receiver = pcc_plan();
  receiver.receiver_program = "echo";
  EXPECT_THROW(DpaRateControl(receiver, 2, kLinkBps), std::invalid_argument);
}

TEST(DpaRateControl, BadParametersThrowInvalidArgument) {
  policy::DpaPlan plan = pcc_plan();
  plan.params[0] = 0;  // update_factor: at least 1 (2^-20)
  EXPECT_THROW(DpaRateControl(plan, 2, kLinkBps), std::invalid_argument);
  plan = pcc_plan();
  plan.params.pop_back();  // one short
  EXPECT_THROW(DpaRateControl(plan, 2, kLinkBps), std::invalid_argument);
  plan = pcc_plan();
  plan.params.clear();  // every default
  EXPECT_NO_THROW(DpaRateControl(plan, 2, kLinkBps));
}

TEST(DpaRateControl, EventMaskIsTheProgramsKindsPlusItsWakeup) {
  const uint32_t pcc = rate_event_bit(Kind::start) | rate_event_bit(Kind::cnp) |
                       rate_event_bit(Kind::nack) | rate_event_bit(Kind::rtt) |
                       rate_event_bit(Kind::timer) | rate_event_bit(Kind::wakeup);
  EXPECT_EQ(DpaRateControl(pcc_plan(), 2, kLinkBps).event_mask(), pcc);
  policy::DpaPlan reflected = pcc_plan();
  reflected.receiver_program = "reflector";
  EXPECT_EQ(DpaRateControl(reflected, 2, kLinkBps).event_mask(), pcc | rate_event_bit(Kind::probe));
  // The reflector as the sender's program: probes are the receiver's kind, never the sender's.
  policy::DpaPlan reflector;
  reflector.program = "reflector";
  EXPECT_EQ(DpaRateControl(reflector, 2, kLinkBps).event_mask(), rate_event_bit(Kind::wakeup));
}

// ---- handler cost ------------------------------------------------------------------------------

TEST(DpaRateControl, HandlerCostDelaysEveryActionByTheCost) {
  const IncastRun cheap = run_incast(pcc_plan(0), 300'000);
  const IncastRun costly = run_incast(pcc_plan(1000), 300'000);
  const IncastRun two_threads = run_incast(pcc_plan(1000, 2), 300'000);

  // FLOW_START sets line rate: at once without cost.
  for (uint32_t f = 0; f < 2; ++f) {
    const auto rates = cheap.log.rates_of(f);
    ASSERT_FALSE(rates.empty()) << "flow " << f;
    EXPECT_EQ(rates.front().time_ns, 0) << "flow " << f;
    EXPECT_DOUBLE_EQ(rates.front().rate_bps, kLinkBps) << "flow " << f;
  }
  // With 1 us per handler on one thread: flow 0's start ends at 1 us, flow 1's waits for it.
  ASSERT_FALSE(costly.log.rates_of(0).empty());
  ASSERT_FALSE(costly.log.rates_of(1).empty());
  EXPECT_EQ(costly.log.rates_of(0).front().time_ns, 1000);
  EXPECT_EQ(costly.log.rates_of(1).front().time_ns, 2000);
  EXPECT_DOUBLE_EQ(costly.log.rates_of(1).front().rate_bps, kLinkBps);
  // Two threads: each flow's own thread, both at 1 us.
  ASSERT_FALSE(two_threads.log.rates_of(1).empty());
  EXPECT_EQ(two_threads.log.rates_of(0).front().time_ns, 1000);
  EXPECT_EQ(two_threads.log.rates_of(1).front().time_ns, 1000);

  // The first probe is asked for with the start's actions.
  ASSERT_FALSE(costly.log.requests.empty());
  EXPECT_EQ(costly.log.requests.front(), (std::pair<int64_t, uint32_t>{1000, 0}));

  // Every RTT sample's rate change: at the sample without cost, at least 1 us later with it.
  const auto free_rtts = cheap.log.of(Kind::rtt);
  ASSERT_FALSE(free_rtts.empty());
  ASSERT_GE(cheap.log.rates_of(free_rtts.front().flow).size(), 2u);
  const auto first_free_change = cheap.log.rates_of(free_rtts.front().flow)[1];
  EXPECT_EQ(first_free_change.time_ns, free_rtts.front().time_ns);
  const auto costly_rtts = costly.log.of(Kind::rtt);
  ASSERT_FALSE(costly_rtts.empty());
  ASSERT_GE(costly.log.rates_of(costly_rtts.front().flow).size(), 2u);
  const auto first_costly_change = costly.log.rates_of(costly_rtts.front().flow)[1];
  EXPECT_GE(first_costly_change.time_ns, costly_rtts.front().time_ns + 1000);
  EXPECT_GT(first_costly_change.time_ns, first_free_change.time_ns);

  // Queueing delay and thread time in the stats: flow 1's start waited a whole handler.
  EXPECT_EQ(stat(cheap.stats, "dpa_queue_delay_max_ns"), 0.0);
  EXPECT_EQ(stat(cheap.stats, "dpa_queue_delay_mean_ns"), 0.0);
  EXPECT_EQ(stat(cheap.stats, "dpa_thread_utilisation"), 0.0);
  EXPECT_GE(stat(costly.stats, "dpa_queue_delay_max_ns"), 1000.0);
  EXPECT_EQ(stat(two_threads.stats, "dpa_dropped_events"), 0.0);
  // Thread time is the handlers' cost, clipped to the run: the handlers still held at its end
  // (at most a queue of 64 per thread) count only up to it.
  const double events = stat(costly.stats, "dpa_events");
  EXPECT_GT(events, 2.0);
  const double costly_end_ns = static_cast<double>(costly.end_ns);
  EXPECT_LE(stat(costly.stats, "dpa_thread_utilisation"), events * 1000.0 / costly_end_ns);
  EXPECT_GE(stat(costly.stats, "dpa_thread_utilisation"), (events - 64.0) * 1000.0 / costly_end_ns);
  const double events2 = stat(two_threads.stats, "dpa_events");
  const double two_end_ns = static_cast<double>(two_threads.end_ns) * 2.0;
  EXPECT_LE(stat(two_threads.stats, "dpa_thread_utilisation"), events2 * 1000.0 / two_end_ns);
  EXPECT_GE(stat(two_threads.stats, "dpa_thread_utilisation"),
            (events2 - 2 * 64.0) * 1000.0 / two_end_ns);
}

// ---- an overloaded DPA -------------------------------------------------------------------------

TEST(DpaRateControl, AFullThreadDropsEventsAndCountsThem) {
  // One thread holding one event, 50 us per handler: flow 1's FLOW_START arrives while flow 0's
  // runs and is dropped, so the program never sets flow 1's rate.
  policy::DpaPlan one = pcc_plan(50'000);
  one.queue_events = 1;
  const IncastRun dropped = run_incast(one, 400'000);
  EXPECT_EQ(stat(dropped.stats, "dpa_dropped_events"), 1.0);
  EXPECT_TRUE(dropped.log.rates_of(1).empty());
  ASSERT_FALSE(dropped.log.rates_of(0).empty());
  EXPECT_EQ(dropped.log.rates_of(0).front().time_ns, 50'000);

  // Room for two: nothing dropped, flow 1's start runs after flow 0's.
  policy::DpaPlan two = pcc_plan(50'000);
  two.queue_events = 2;
  const IncastRun kept = run_incast(two, 400'000);
  EXPECT_EQ(stat(kept.stats, "dpa_dropped_events"), 0.0);
  ASSERT_FALSE(kept.log.rates_of(1).empty());
  EXPECT_EQ(kept.log.rates_of(1).front().time_ns, 100'000);
  EXPECT_EQ(stat(kept.stats, "dpa_queue_delay_max_ns"), 50'000.0);
}

// ---- RTT probes and the reflector
// ----------------------------------------------------------------

TEST(DpaRateControl, WithoutAReceiverProgramTheReceiversNicAnswersProbes) {
  const IncastRun run = run_incast(pcc_plan(), 300'000);
  EXPECT_EQ(run.mask & rate_event_bit(Kind::probe), 0u);
  EXPECT_TRUE(run.log.of(Kind::probe).empty());
  EXPECT_TRUE(run.log.answers.empty());
  const auto rtts = run.log.of(Kind::rtt);
  ASSERT_FALSE(rtts.empty());
  EXPECT_EQ(stat(run.stats, "rtt_samples"), static_cast<double>(rtts.size()));
  EXPECT_FALSE(has_stat(run.stats, "receiver_dpa_events"));
  int64_t min_rtt = INT64_MAX, max_rtt = 0, total = 0;
  for (const RateEvent& rtt : rtts) {
    EXPECT_GE(rtt.rtt_ns, 2 * kPropagationNs);
    min_rtt = std::min(min_rtt, rtt.rtt_ns);
    max_rtt = std::max(max_rtt, rtt.rtt_ns);
    total += rtt.rtt_ns;
  }
  EXPECT_EQ(stat(run.stats, "rtt_min_ns"), static_cast<double>(min_rtt));
  EXPECT_EQ(stat(run.stats, "rtt_max_ns"), static_cast<double>(max_rtt));
  EXPECT_DOUBLE_EQ(stat(run.stats, "rtt_mean_ns"),
                   static_cast<double>(total) / static_cast<double>(rtts.size()));
}

TEST(DpaRateControl, TheReflectorOnTheReceiverAnswersEveryProbe) {
  policy::DpaPlan plan = pcc_plan();
  plan.receiver_program = "reflector";
  const IncastRun run = run_incast(plan, 300'000);
  EXPECT_NE(run.mask & rate_event_bit(Kind::probe), 0u);
  const auto probes = run.log.of(Kind::probe);
  const auto rtts = run.log.of(Kind::rtt);
  ASSERT_FALSE(probes.empty());
  ASSERT_FALSE(rtts.empty());
  // No cost: each probe answered at its arrival; an answer is an RTT sample a propagation
  // delay later (the run's last answers may still be on their way).
  ASSERT_EQ(run.log.answers.size(), probes.size());
  for (size_t i = 0; i < probes.size(); ++i) {
    EXPECT_EQ(run.log.answers[i].first, probes[i].time_ns) << i;
    EXPECT_EQ(run.log.answers[i].second, probes[i].flow) << i;
  }
  EXPECT_LE(rtts.size(), probes.size());
  EXPECT_GE(rtts.size() + 2, probes.size());
  for (const RateEvent& rtt : rtts) {
    EXPECT_EQ(rtt.time_ns - rtt.probe_answered_ns, kPropagationNs);
  }
  EXPECT_EQ(stat(run.stats, "receiver_dpa_events"), static_cast<double>(probes.size()));
  EXPECT_EQ(stat(run.stats, "receiver_dpa_dropped_events"), 0.0);
  EXPECT_EQ(stat(run.stats, "rtt_samples"), static_cast<double>(rtts.size()));
}

TEST(DpaRateControl, AReflectorWithACostAnswersThatMuchLater) {
  policy::DpaPlan plan = pcc_plan(1000, 2);
  plan.receiver_program = "reflector";
  const IncastRun run = run_incast(plan, 300'000);
  const auto probes = run.log.of(Kind::probe);
  ASSERT_FALSE(probes.empty());
  ASSERT_FALSE(run.log.answers.empty());
  // Two receiver threads, one per flow: every probe's answer exactly one handler later.
  for (size_t i = 0; i < std::min(probes.size(), run.log.answers.size()); ++i) {
    EXPECT_EQ(run.log.answers[i].first, probes[i].time_ns + 1000) << i;
  }
  for (const RateEvent& rtt : run.log.of(Kind::rtt)) {
    EXPECT_GE(rtt.probe_answered_ns - rtt.probe_sent_ns, kPropagationNs + 1000);
  }
  EXPECT_DOUBLE_EQ(
      stat(run.stats, "receiver_dpa_thread_utilisation"),
      stat(run.stats, "receiver_dpa_events") * 1000.0 / (static_cast<double>(run.end_ns) * 2.0));
}

// ---- Tx samples ------------------------------------------------------------------------------

TEST(DpaRateControl, TxSamplesArriveEveryIntervalForEveryStartedFlow) {
  // high_utilisation at 1.0: the utilisation never changes what pcc_rtt does, so the runs
  // differ by the samples alone.
  policy::DpaPlan plain = pcc_plan();
  plain.params[kPccHighUtilisation] = QB_DPA_FRACTION_ONE;
  policy::DpaPlan sampled = plain;
  sampled.tx_sample_interval_ns = 10'000;
  const IncastRun without = run_incast(plain, 200'000);
  const IncastRun with = run_incast(sampled, 200'000);

  EXPECT_TRUE(without.log.of(Kind::wakeup).empty());
  const auto wakeups = with.log.of(Kind::wakeup);
  ASSERT_GE(wakeups.size(), 19u);
  for (size_t i = 0; i < wakeups.size(); ++i) {
    EXPECT_EQ(wakeups[i].time_ns, static_cast<int64_t>(i + 1) * 10'000) << i;
  }
  // One TX_SAMPLE per started flow per sample.
  EXPECT_EQ(stat(with.stats, "dpa_events") - stat(without.stats, "dpa_events"),
            2.0 * static_cast<double>(wakeups.size()));
  EXPECT_EQ(with.log.rates.size(), without.log.rates.size());
}

TEST(DpaRateControl, TxSamplesCarryTheUtilisationTheProgramActsOn) {
  // base_rtt 0: every RTT sample is mild congestion, rate x (1 - UF). high_utilisation 0: once a
  // sample says the host's link is busy at all, the decrease doubles, rate x (1 - 2 UF). Both
  // runs are the same until the first sample at 10 us.
  constexpr uint32_t kBaseRtt = 2;
  policy::DpaPlan plain = pcc_plan();
  plain.params[kBaseRtt] = 0;
  plain.params[kPccHighUtilisation] = 0;
  policy::DpaPlan sampled = plain;
  sampled.tx_sample_interval_ns = 10'000;
  const IncastRun without = run_incast(plain, 60'000);
  const IncastRun with = run_incast(sampled, 60'000);
  const auto before = [](const std::vector<RateCall>& calls) {
    std::vector<double> out;
    for (const RateCall& call : calls) {
      if (call.time_ns <= 10'000) out.push_back(call.rate_bps);
    }
    return out;
  };
  const auto without_rates = without.log.rates_of(0);
  const auto with_rates = with.log.rates_of(0);
  const std::vector<double> early = before(without_rates);
  ASSERT_GE(early.size(), 2u);
  EXPECT_EQ(before(with_rates), early);
  ASSERT_GT(without_rates.size(), early.size());
  ASSERT_GT(with_rates.size(), early.size());
  const double last = early.back();
  EXPECT_NEAR(without_rates[early.size()].rate_bps / last, 0.9, 1e-4);
  EXPECT_NEAR(with_rates[early.size()].rate_bps / last, 0.8, 1e-4);
}

TEST(DpaRateControl, NoSamplesForAProgramThatDoesNotTakeThem) {
  policy::DpaPlan plan;
  plan.program = "reflector";  // PROBE only
  plan.tx_sample_interval_ns = 10'000;
  const IncastRun run = run_incast(plan, 100'000);
  EXPECT_TRUE(run.log.of(Kind::wakeup).empty());
  EXPECT_EQ(stat(run.stats, "dpa_events"), 0.0);
}

// ---- stats -------------------------------------------------------------------------------------

TEST(DpaRateControl, StatsNamesInOrder) {
  const std::vector<std::string> sender{"dpa_events",
                                        "dpa_dropped_events",
                                        "dpa_rate_clamps",
                                        "dpa_queue_delay_mean_ns",
                                        "dpa_queue_delay_max_ns",
                                        "dpa_thread_utilisation"};
  const std::vector<std::string> rtt{"rtt_samples", "rtt_mean_ns", "rtt_min_ns", "rtt_max_ns"};
  auto names = [](const DriverStats& stats) {
    std::vector<std::string> out;
    for (const auto& entry : stats) out.push_back(entry.first);
    return out;
  };
  const IncastRun alone = run_incast(pcc_plan(), 50'000);
  std::vector<std::string> expected = sender;
  expected.insert(expected.end(), rtt.begin(), rtt.end());
  EXPECT_EQ(names(alone.stats), expected);

  policy::DpaPlan plan = pcc_plan();
  plan.receiver_program = "reflector";
  const IncastRun reflected = run_incast(plan, 50'000);
  expected = sender;
  for (const std::string& name : sender) expected.push_back("receiver_" + name);
  expected.insert(expected.end(), rtt.begin(), rtt.end());
  EXPECT_EQ(names(reflected.stats), expected);
  EXPECT_EQ(stat(reflected.stats, "dpa_rate_clamps"), 0.0);
}

TEST(DpaRateControl, StatsBeforeAnyEventAreZero) {
  DpaRateControl control(pcc_plan(), 2, kLinkBps);
  DriverStats stats;
  control.add_stats(stats, 0);
  ASSERT_EQ(stats.size(), 10u);
  for (const auto& [name, value] : stats) EXPECT_EQ(value, 0.0) << name;
}

// ---- DCQCN on ECN marks -------------------------------------------------------------------------

TEST(DpaRateControl, DcqcnCutsOnTheFirstCnpByAlphaOverTwo) {
  // Every packet above 20 KB of egress queue is marked; the receiver answers with CNPs.
  QosPlan plan = incast_plan();
  for (policy::EcnMarking& ecn : plan.congestion.ecn) {
    ecn.enabled = true;
    ecn.min_bytes = 20'000;
    ecn.max_bytes = 20'000;
    ecn.max_probability = 1.0;
  }
  plan.congestion.cnp_interval_ns = 4000;
  policy::DpaPlan dcqcn;
  dcqcn.program = "dcqcn";
  const IncastRun run = run_incast(dcqcn, 200'000, plan);
  EXPECT_NE(run.mask & rate_event_bit(Kind::sent), 0u);  // DCQCN counts TX bytes
  EXPECT_NE(run.mask & rate_event_bit(Kind::cnp), 0u);
  const auto cnps = run.log.of(Kind::cnp);
  ASSERT_FALSE(cnps.empty());
  for (uint32_t f = 0; f < 2; ++f) {
    int64_t first_cnp = -1;
    for (const RateEvent& cnp : cnps) {
      if (cnp.flow == f) {
        first_cnp = cnp.time_ns;
        break;
      }
    }
    ASSERT_GE(first_cnp, 0) << "flow " << f;
    const auto rates = run.log.rates_of(f);
    ASSERT_GE(rates.size(), 2u) << "flow " << f;
    EXPECT_EQ(rates[0].time_ns, 0);
    EXPECT_DOUBLE_EQ(rates[0].rate_bps, kLinkBps);
    // alpha = initial_alpha_value 1023/1024; the cut is rate x alpha / 2 (rpg_gd 11), in 20-bit
    // fixed point: 2^20 - (1023 << 10 >> 1) = 524800 of 2^20.
    EXPECT_EQ(rates[1].time_ns, first_cnp) << "flow " << f;
    EXPECT_DOUBLE_EQ(rates[1].rate_bps, kLinkBps * 524800.0 / 1048576.0) << "flow " << f;
  }
  EXPECT_EQ(stat(run.stats, "dpa_dropped_events"), 0.0);
  // At most one CNP per flow per cnp_interval.
  for (uint32_t f = 0; f < 2; ++f) {
    int64_t last = -1;
    for (const RateEvent& cnp : cnps) {
      if (cnp.flow != f) continue;
      if (last >= 0) {
        EXPECT_GE(cnp.time_ns - last, 4000) << "flow " << f << " at " << cnp.time_ns;
      }
      last = cnp.time_ns;
    }
  }
}

// ---- repetitions
// ---------------------------------------------------------------------------------

TEST(DpaRateControl, ASecondRunStartsFromScratch) {
  // The same program object over two runs (as repetitions reuse the driver): on_start() resets
  // the emulators, the pending actions and the RTT figures, so both runs are the same.
  policy::DpaPlan dpa = pcc_plan(500);
  dpa.receiver_program = "reflector";
  dpa.tx_sample_interval_ns = 10'000;
  DpaRateControl control(dpa, 2, kLinkBps);
  const QosPlan plan = incast_plan();
  std::vector<Log> logs;
  std::vector<DriverStats> stats;
  for (int run = 0; run < 2; ++run) {
    Recorder recorder(control);
    SimPort port;
    port.attach(&recorder);
    Topology topology;
    topology.port_rate_bps = plan.port_rate_bps;
    topology.wire = plan.wire;
    topology.propagation_delay_ns = kPropagationNs;
    topology.flow_count = 2;
    port.configure(topology, plan);
    port.start();
    saturate(port, 2, 65536, 150'000);
    stats.emplace_back();
    control.add_stats(stats.back(), port.now_ps() / 1000);
    logs.push_back(std::move(recorder.log));
  }
  ASSERT_FALSE(logs[0].rates.empty());
  ASSERT_EQ(logs[0].rates.size(), logs[1].rates.size());
  for (size_t i = 0; i < logs[0].rates.size(); ++i) {
    EXPECT_EQ(logs[0].rates[i].time_ns, logs[1].rates[i].time_ns) << i;
    EXPECT_EQ(logs[0].rates[i].flow, logs[1].rates[i].flow) << i;
    EXPECT_EQ(logs[0].rates[i].rate_bps, logs[1].rates[i].rate_bps) << i;
  }
  EXPECT_EQ(logs[0].events.size(), logs[1].events.size());
  EXPECT_EQ(stats[0], stats[1]);
  EXPECT_GT(stat(stats[1], "dpa_events"), 0.0);
}

// ---- the driver: only the simulator runs a DPA program
// -------------------------------------------

Topology topology_of(const QosPlan& plan) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = kPropagationNs;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  return topology;
}

TEST(DpaDriver, TheSimulatorRefusesAnUnknownProgramAsAConfigError) {
  QosPlan plan = incast_plan();
  plan.congestion.dpa = pcc_plan();
  plan.congestion.dpa.program = "timely";
  auto driver = make_sim_driver();
  ASSERT_TRUE(driver->open(topology_of(plan)).ok());
  const Status status = driver->apply(plan);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, Errc::invalid_config);
  EXPECT_NE(status.error().message.find("no DPA program called \"timely\""), std::string::npos)
      << status.error().to_string();
  driver->close();
}

TEST(DpaDriver, TheSimulatorsStatsCarryTheProgramsAfterARun) {
  QosPlan plan = incast_plan();
  plan.congestion.dpa = pcc_plan();
  plan.congestion.dpa.receiver_program = "reflector";
  auto driver = make_sim_driver();
  ASSERT_TRUE(driver->open(topology_of(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  const DriverStats stats = driver->stats();
  for (const char* name :
       {"dpa_events", "dpa_dropped_events", "receiver_dpa_events", "rtt_samples", "rtt_max_ns"}) {
    EXPECT_TRUE(has_stat(stats, name)) << name;
  }
  ASSERT_TRUE(driver->stop().ok());
  driver->close();
}

// A backend with the default capabilities: no congestion model.
class PlainBackend final : public IdleBackend {
 public:
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.max_hosts = 16;
    return caps;
  }
  Status apply(const policy::QosPlan&) override { return {}; }
};

TEST(DpaDriver, ADriverWithoutACongestionModelRefusesDpaAndEcn) {
  {
    QosPlan plan = incast_plan();
    plan.congestion.dpa = pcc_plan();
    Driver driver("plain", std::make_unique<PlainBackend>());
    ASSERT_TRUE(driver.open(topology_of(plan)).ok());
    const Status status = driver.apply(plan);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, Errc::not_supported);
    EXPECT_EQ(status.error().where, "dpa.program");
    EXPECT_NE(status.error().message.find("cannot run a DPA program"), std::string::npos)
        << status.error().to_string();
  }
  {
    QosPlan plan = incast_plan();
    plan.congestion.ecn[0].enabled = true;
    Driver driver("plain", std::make_unique<PlainBackend>());
    ASSERT_TRUE(driver.open(topology_of(plan)).ok());
    const Status status = driver.apply(plan);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, Errc::not_supported);
    EXPECT_EQ(status.error().where, "fabric.ecn");
  }
  {
    // Neither: the plain driver takes the plan.
    const QosPlan plan = incast_plan();
    Driver driver("plain", std::make_unique<PlainBackend>());
    ASSERT_TRUE(driver.open(topology_of(plan)).ok());
    EXPECT_TRUE(driver.apply(plan).ok());
  }
}

}  // namespace
}  // namespace qb::drv::sim
