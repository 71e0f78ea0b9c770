// The DPA emulator's model (qb/dpa/emulator.hpp): per-thread FIFO with a fixed handler cost,
// threads in parallel, drops at a full thread only, rate clamps, per-flow contexts, the
// parameter block and the config checks. Every expectation is an exact value worked out by hand
// from the model.
#include "qb/dpa/emulator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_programs.hpp"

namespace qb::dpa {
namespace {

using test::handler_calls;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

qb_dpa_event event_at(uint64_t now_ns, uint32_t flow, uint32_t kind = QB_DPA_EV_ACK) {
  qb_dpa_event event{};
  event.kind = kind;
  event.flow = flow;
  event.now_ns = now_ns;
  return event;
}

EmulatorConfig config_for(const qb_dpa_program& program, uint32_t threads, int64_t cost_ns,
                          uint32_t queue_events = 64) {
  EmulatorConfig config;
  config.program = &program;
  config.threads = threads;
  config.handler_cost_ns = cost_ns;
  config.queue_events = queue_events;
  config.line_rate_mbps = 100'000;
  return config;
}

std::vector<uint64_t> handler_start_times() {
  std::vector<uint64_t> starts;
  for (const auto& call : handler_calls()) starts.push_back(call.event.now_ns);
  return starts;
}

class EmulatorTest : public ::testing::Test {
 protected:
  void SetUp() override { handler_calls().clear(); }
  Emulator emulator;
};

TEST_F(EmulatorTest, OneThreadRunsEventsInArrivalOrderEachTakingTheHandlerCost) {
  emulator.configure(config_for(test::recording_program, 1, 100), 3);
  const Posted a = emulator.post(event_at(0, 0));
  const Posted b = emulator.post(event_at(10, 1));
  const Posted c = emulator.post(event_at(20, 0));
  const Posted d = emulator.post(event_at(500, 2));  // the thread is idle again by then

  EXPECT_TRUE(a.accepted && b.accepted && c.accepted && d.accepted);
  EXPECT_EQ(a.apply_ns, 100u);
  EXPECT_EQ(b.apply_ns, 200u);
  EXPECT_EQ(c.apply_ns, 300u);
  EXPECT_EQ(d.apply_ns, 600u);
  EXPECT_THAT(handler_start_times(), ElementsAre(0u, 100u, 200u, 500u));
  ASSERT_EQ(handler_calls().size(), 4u);
  EXPECT_EQ(handler_calls()[1].event.flow, 1u);
  EXPECT_EQ(handler_calls()[2].event.flow, 0u);

  const EmulatorStats& stats = emulator.stats();
  EXPECT_EQ(stats.events, 4u);
  EXPECT_EQ(stats.dropped_events, 0u);
  EXPECT_EQ(stats.queue_delay_total_ns, 0u + 90u + 180u + 0u);
  EXPECT_EQ(stats.queue_delay_max_ns, 180u);
  EXPECT_EQ(stats.busy_ns, 400u);
}

// Issue 26 item 4: a handler of an hour gave a thread utilisation of 5.76e7 and waits past
// 2^63 ns. Clipped to a run that ended at 60 ms: only the thread time inside the run is busy,
// and the waits of events not started by its end count up to the end only.
TEST_F(EmulatorTest, StatsUntilTheRunsEndLeaveOutWhatCameAfterIt) {
  constexpr uint64_t kHourNs = 3'600'000'000'000;
  constexpr uint64_t kEndNs = 60'000'000;
  emulator.configure(config_for(test::recording_program, 2, static_cast<int64_t>(kHourNs)), 4);
  ASSERT_TRUE(emulator.post(event_at(0, 0)).accepted);     // thread 0: runs 0 .. 1 h
  ASSERT_TRUE(emulator.post(event_at(10, 2)).accepted);    // thread 0: waits until 1 h
  ASSERT_TRUE(emulator.post(event_at(1000, 1)).accepted);  // thread 1: runs 1000 ns .. 1 h
  const EmulatorStats& all = emulator.stats();
  EXPECT_EQ(all.busy_ns, 3 * kHourNs);
  EXPECT_EQ(all.queue_delay_total_ns, kHourNs - 10);

  const EmulatorStats clipped = emulator.stats_until(kEndNs);
  EXPECT_EQ(clipped.events, 3u);
  EXPECT_EQ(clipped.busy_ns, kEndNs + (kEndNs - 1000));  // two threads, each busy to the end
  EXPECT_LE(clipped.busy_ns, 2 * kEndNs);
  EXPECT_EQ(clipped.queue_delay_total_ns, kEndNs - 10);  // the waiting one, until the end
  EXPECT_EQ(clipped.queue_delay_max_ns, kEndNs);
  // Nothing past the end: the same figures.
  const EmulatorStats later = emulator.stats_until(3 * kHourNs);
  EXPECT_EQ(later.busy_ns, all.busy_ns);
  EXPECT_EQ(later.queue_delay_total_ns, all.queue_delay_total_ns);
  EXPECT_EQ(later.queue_delay_max_ns, all.queue_delay_max_ns);
}

TEST_F(EmulatorTest, StatsUntilAHandlerRunningAtTheEndCountItsTimeInTheRunOnly) {
  emulator.configure(config_for(test::recording_program, 1, 100), 1);
  ASSERT_TRUE(emulator.post(event_at(0, 0)).accepted);   // 0 .. 100
  ASSERT_TRUE(emulator.post(event_at(50, 0)).accepted);  // 100 .. 200, waited 50
  const EmulatorStats clipped = emulator.stats_until(150);
  EXPECT_EQ(clipped.busy_ns, 150u);
  EXPECT_EQ(clipped.queue_delay_total_ns, 50u);  // it started at 100, inside the run
  EXPECT_EQ(clipped.queue_delay_max_ns, 50u);
}

TEST_F(EmulatorTest, TheHandlerSeesTheEventAtItsStartTimeWithItsOtherFieldsUnchanged) {
  emulator.configure(config_for(test::recording_program, 1, 50), 1);
  emulator.post(event_at(0, 0));
  qb_dpa_event probe{};
  probe.kind = QB_DPA_EV_RTT;
  probe.flow = 0;
  probe.now_ns = 20;
  probe.bytes = 4096;
  probe.port_utilisation = 12345;
  probe.rtt_ns = 7;
  probe.probe_sent_ns = 13;
  probe.probe_answered_ns = 17;
  probe.tx_bytes = 99;
  emulator.post(probe);

  ASSERT_EQ(handler_calls().size(), 2u);
  const qb_dpa_event& seen = handler_calls()[1].event;
  EXPECT_EQ(seen.now_ns, 50u);  // waited for the first event's handler
  EXPECT_EQ(seen.kind, static_cast<uint32_t>(QB_DPA_EV_RTT));
  EXPECT_EQ(seen.bytes, 4096u);
  EXPECT_EQ(seen.port_utilisation, 12345u);
  EXPECT_EQ(seen.rtt_ns, 7u);
  EXPECT_EQ(seen.probe_sent_ns, 13u);
  EXPECT_EQ(seen.probe_answered_ns, 17u);
  EXPECT_EQ(seen.tx_bytes, 99u);
  EXPECT_EQ(handler_calls()[1].line_rate_mbps, 100'000u);
}

TEST_F(EmulatorTest, ThreadsRunInParallelAndAFlowStaysOnItsThread) {
  emulator.configure(config_for(test::recording_program, 2, 100), 4);
  // Flows 0 and 2 share thread 0, flows 1 and 3 thread 1.
  const Posted f0 = emulator.post(event_at(0, 0));
  const Posted f1 = emulator.post(event_at(0, 1));
  const Posted f2 = emulator.post(event_at(0, 2));
  const Posted f3 = emulator.post(event_at(0, 3));
  const Posted f1_again = emulator.post(event_at(30, 1));

  EXPECT_EQ(f0.apply_ns, 100u);
  EXPECT_EQ(f1.apply_ns, 100u);
  EXPECT_EQ(f2.apply_ns, 200u);
  EXPECT_EQ(f3.apply_ns, 200u);
  EXPECT_EQ(f1_again.apply_ns, 300u);
  EXPECT_THAT(handler_start_times(), ElementsAre(0u, 0u, 100u, 100u, 200u));
  EXPECT_EQ(emulator.stats().queue_delay_total_ns, 0u + 0u + 100u + 100u + 170u);
  EXPECT_EQ(emulator.stats().queue_delay_max_ns, 170u);
  EXPECT_EQ(emulator.stats().busy_ns, 500u);
}

TEST_F(EmulatorTest, AnEventIsDroppedExactlyWhenItsThreadHoldsQueueEventsUnfinishedOnes) {
  emulator.configure(config_for(test::recording_program, 1, 100, /*queue_events=*/2), 1);
  EXPECT_TRUE(emulator.post(event_at(0, 0)).accepted);    // runs 0..100
  EXPECT_TRUE(emulator.post(event_at(0, 0)).accepted);    // waits, runs 100..200
  EXPECT_FALSE(emulator.post(event_at(0, 0)).accepted);   // two held
  EXPECT_FALSE(emulator.post(event_at(99, 0)).accepted);  // both still unfinished
  const Posted freed = emulator.post(event_at(100, 0));   // the first one ended at 100
  EXPECT_TRUE(freed.accepted);
  EXPECT_EQ(freed.apply_ns, 300u);
  EXPECT_FALSE(emulator.post(event_at(150, 0)).accepted);  // ends 200 and 300 held
  const Posted later = emulator.post(event_at(200, 0));
  EXPECT_TRUE(later.accepted);
  EXPECT_EQ(later.apply_ns, 400u);
  const Posted idle = emulator.post(event_at(1000, 0));  // everything ended: no wait
  EXPECT_TRUE(idle.accepted);
  EXPECT_EQ(idle.apply_ns, 1100u);

  EXPECT_EQ(emulator.stats().events, 5u);
  EXPECT_EQ(emulator.stats().dropped_events, 3u);
  EXPECT_EQ(handler_calls().size(), 5u);  // a dropped event never reaches the program
  EXPECT_EQ(emulator.stats().busy_ns, 500u);
  const Posted waits = emulator.post(event_at(1000, 0));  // one held: room for a second
  const Posted dropped = emulator.post(event_at(1000, 0));
  EXPECT_TRUE(waits.accepted);
  EXPECT_EQ(waits.apply_ns, 1200u);
  EXPECT_FALSE(dropped.accepted);
  EXPECT_EQ(dropped.actions.flags, 0u);
  EXPECT_EQ(emulator.stats().dropped_events, 4u);
}

TEST_F(EmulatorTest, AFullThreadDoesNotDropAnotherThreadsEvents) {
  emulator.configure(config_for(test::recording_program, 2, 100, /*queue_events=*/1), 2);
  EXPECT_TRUE(emulator.post(event_at(0, 0)).accepted);
  EXPECT_FALSE(emulator.post(event_at(10, 0)).accepted);
  EXPECT_TRUE(emulator.post(event_at(10, 1)).accepted);
  EXPECT_EQ(emulator.stats().dropped_events, 1u);
  EXPECT_EQ(emulator.stats().events, 2u);
}

TEST_F(EmulatorTest, ZeroCostHandlersNeverQueueOrDrop) {
  emulator.configure(config_for(test::recording_program, 1, 0, /*queue_events=*/1), 1);
  for (int i = 0; i < 10; ++i) {
    const Posted posted = emulator.post(event_at(5, 0));
    EXPECT_TRUE(posted.accepted);
    EXPECT_EQ(posted.apply_ns, 5u);
  }
  EXPECT_EQ(emulator.stats().events, 10u);
  EXPECT_EQ(emulator.stats().dropped_events, 0u);
  EXPECT_EQ(emulator.stats().queue_delay_max_ns, 0u);
}

TEST_F(EmulatorTest, RatesOutsideMinToLineAreClampedAndCounted) {
  emulator.configure(config_for(test::rate_from_bytes_program, 1, 0), 1);
  const auto rate_for = [&](uint32_t asked) {
    qb_dpa_event event = event_at(0, 0, QB_DPA_EV_CNP);
    event.bytes = asked;
    const Posted posted = emulator.post(event);
    EXPECT_EQ(posted.actions.flags, static_cast<uint32_t>(QB_DPA_ACT_SET_RATE));
    return posted.actions.rate;
  };
  EXPECT_EQ(rate_for(0), QB_DPA_RATE_MIN);
  EXPECT_EQ(emulator.stats().rate_clamps, 1u);
  EXPECT_EQ(rate_for(QB_DPA_RATE_LINE + 1), QB_DPA_RATE_LINE);
  EXPECT_EQ(rate_for(UINT32_MAX), QB_DPA_RATE_LINE);
  EXPECT_EQ(rate_for(QB_DPA_RATE_MIN - 1), QB_DPA_RATE_MIN);
  EXPECT_EQ(emulator.stats().rate_clamps, 4u);
  // In range, the ends included: untouched, not counted.
  EXPECT_EQ(rate_for(QB_DPA_RATE_MIN), QB_DPA_RATE_MIN);
  EXPECT_EQ(rate_for(QB_DPA_RATE_LINE), QB_DPA_RATE_LINE);
  EXPECT_EQ(rate_for(QB_DPA_RATE_LINE / 2), QB_DPA_RATE_LINE / 2);
  EXPECT_EQ(emulator.stats().rate_clamps, 4u);
  // A zero rate without SET_RATE is no rate at all.
  const Posted no_action = emulator.post(event_at(0, 0, QB_DPA_EV_ACK));
  EXPECT_EQ(no_action.actions.flags, 0u);
  EXPECT_EQ(no_action.actions.rate, 0u);
  EXPECT_EQ(emulator.stats().rate_clamps, 4u);
}

TEST_F(EmulatorTest, EachFlowKeepsItsOwnContextAcrossEvents) {
  emulator.configure(config_for(test::flow_counter_program, 2, 10), 3);
  const auto count_after = [&](uint32_t flow) {
    return emulator.post(event_at(1000, flow)).actions.timer_delay_ns;
  };
  EXPECT_EQ(count_after(0), 1u);
  EXPECT_EQ(count_after(1), 1u);
  EXPECT_EQ(count_after(0), 2u);
  EXPECT_EQ(count_after(2), 1u);  // shares thread 0 with flow 0, not its context
  EXPECT_EQ(count_after(0), 3u);
  EXPECT_EQ(count_after(2), 2u);
  EXPECT_EQ(count_after(1), 2u);

  ASSERT_EQ(handler_calls().size(), 7u);
  const void* flow0 = handler_calls()[0].context;
  const void* flow1 = handler_calls()[1].context;
  const void* flow2 = handler_calls()[3].context;
  EXPECT_EQ(handler_calls()[2].context, flow0);
  EXPECT_NE(flow0, flow1);
  EXPECT_NE(flow0, flow2);
  EXPECT_NE(flow1, flow2);
  // Whole blocks apart: no flow's QB_DPA_FLOW_CONTEXT_BYTES overlap another's.
  for (const void* a : {flow0, flow1, flow2}) {
    for (const void* b : {flow0, flow1, flow2}) {
      if (a == b) continue;
      const auto distance =
          static_cast<const unsigned char*>(a) - static_cast<const unsigned char*>(b);
      EXPECT_GE(distance < 0 ? -distance : distance, QB_DPA_FLOW_CONTEXT_BYTES);
    }
  }
}

TEST_F(EmulatorTest, StartZeroesContextsIdlesThreadsAndClearsStats) {
  emulator.configure(config_for(test::flow_counter_program, 1, 100, /*queue_events=*/1), 2);
  emulator.post(event_at(0, 0, QB_DPA_EV_CNP));
  emulator.post(event_at(0, 1));  // dropped: the thread is busy until 100
  emulator.post(event_at(100, 0));
  ASSERT_EQ(emulator.stats().events, 2u);
  ASSERT_EQ(emulator.stats().dropped_events, 1u);

  emulator.start();
  const EmulatorStats& stats = emulator.stats();
  EXPECT_EQ(stats.events, 0u);
  EXPECT_EQ(stats.dropped_events, 0u);
  EXPECT_EQ(stats.rate_clamps, 0u);
  EXPECT_EQ(stats.queue_delay_total_ns, 0u);
  EXPECT_EQ(stats.queue_delay_max_ns, 0u);
  EXPECT_EQ(stats.busy_ns, 0u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_CNP], 0u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_ACK], 0u);

  // Time zero again: the thread that was busy until 200 takes an event at 0 at once, and the
  // flow's count starts over from a zeroed context.
  const Posted again = emulator.post(event_at(0, 0));
  EXPECT_TRUE(again.accepted);
  EXPECT_EQ(again.apply_ns, 100u);
  EXPECT_EQ(again.actions.timer_delay_ns, 1u);
}

TEST_F(EmulatorTest, EventsAreCountedByKind) {
  emulator.configure(config_for(test::recording_program, 4, 0), 4);
  const uint32_t kinds[] = {QB_DPA_EV_FLOW_START, QB_DPA_EV_TX,  QB_DPA_EV_TX,
                            QB_DPA_EV_ACK,        QB_DPA_EV_CNP, QB_DPA_EV_CNP,
                            QB_DPA_EV_CNP,        QB_DPA_EV_RTT, QB_DPA_EV_PROBE};
  uint32_t flow = 0;
  for (uint32_t kind : kinds) emulator.post(event_at(0, flow++ % 4, kind));

  const EmulatorStats& stats = emulator.stats();
  EXPECT_EQ(stats.events, 9u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_FLOW_START], 1u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_TX], 2u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_ACK], 1u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_NACK], 0u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_CNP], 3u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_RTT], 1u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_TX_SAMPLE], 0u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_TIMER], 0u);
  EXPECT_EQ(stats.events_by_kind[QB_DPA_EV_PROBE], 1u);
}

TEST_F(EmulatorTest, EventsNotForTheProgramAreNotAcceptedAndCostNothing) {
  emulator.configure(config_for(test::cnp_only_program, 1, 100, /*queue_events=*/1), 2);
  EXPECT_FALSE(emulator.post(event_at(0, 0, QB_DPA_EV_TX)).accepted);   // outside its mask
  EXPECT_FALSE(emulator.post(event_at(0, 2, QB_DPA_EV_CNP)).accepted);  // no flow 2
  EXPECT_FALSE(emulator.post(event_at(0, QB_DPA_NO_FLOW, QB_DPA_EV_CNP)).accepted);
  EXPECT_FALSE(emulator.post(event_at(0, 0, QB_DPA_EV_KINDS)).accepted);  // no such kind
  EXPECT_TRUE(handler_calls().empty());
  EXPECT_EQ(emulator.stats().events, 0u);
  EXPECT_EQ(emulator.stats().dropped_events, 0u);
  EXPECT_EQ(emulator.stats().busy_ns, 0u);

  const Posted cnp = emulator.post(event_at(0, 0, QB_DPA_EV_CNP));  // the thread is still idle
  EXPECT_TRUE(cnp.accepted);
  EXPECT_EQ(cnp.apply_ns, 100u);
}

TEST(EmulatorUnconfigured, PostsAreNotAccepted) {
  Emulator emulator;
  EXPECT_FALSE(emulator.post(event_at(0, 0)).accepted);
  EXPECT_EQ(emulator.stats().events, 0u);
}

TEST_F(EmulatorTest, AnEmptyParamListGivesEveryDefault) {
  emulator.configure(config_for(test::two_params_program, 1, 0), 1);
  EXPECT_THAT(emulator.params(), ElementsAre(7, -2));
  emulator.post(event_at(0, 0));
  ASSERT_EQ(handler_calls().size(), 1u);
  EXPECT_EQ(handler_calls()[0].params[0], 7);
  EXPECT_EQ(handler_calls()[0].params[1], -2);
  EXPECT_EQ(&emulator.program(), &test::two_params_program);
}

TEST_F(EmulatorTest, GivenParamsReachTheProgramInSpecOrder) {
  EmulatorConfig config = config_for(test::two_params_program, 1, 0);
  config.params = {100, -5};  // both at an end of their range
  emulator.configure(config, 1);
  EXPECT_THAT(emulator.params(), ElementsAre(100, -5));
  emulator.post(event_at(0, 0));
  ASSERT_EQ(handler_calls().size(), 1u);
  EXPECT_EQ(handler_calls()[0].params[0], 100);
  EXPECT_EQ(handler_calls()[0].params[1], -5);
}

// The message of the std::invalid_argument configure() throws ("" when it does not throw).
std::string configure_error(const EmulatorConfig& config) {
  Emulator emulator;
  try {
    emulator.configure(config, 4);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(EmulatorConfigure, EachInvalidFieldThrowsNamingIt) {
  const EmulatorConfig valid = config_for(test::two_params_program, 2, 100);
  ASSERT_EQ(configure_error(valid), "");

  EmulatorConfig config = valid;
  config.program = nullptr;
  EXPECT_THAT(configure_error(config), HasSubstr("program"));

  qb_dpa_program no_handler = test::two_params_program;
  no_handler.handle = nullptr;
  config = valid;
  config.program = &no_handler;
  EXPECT_THAT(configure_error(config), HasSubstr("program->handle"));

  qb_dpa_program too_many_params = test::two_params_program;
  too_many_params.param_count = QB_DPA_MAX_PARAMS + 1;
  config.program = &too_many_params;
  EXPECT_THAT(configure_error(config), HasSubstr("program->param_count"));

  qb_dpa_program missing_params = test::two_params_program;
  missing_params.params = nullptr;
  config.program = &missing_params;
  EXPECT_THAT(configure_error(config), HasSubstr("program->params"));

  qb_dpa_program big_context = test::two_params_program;
  big_context.context_bytes = QB_DPA_FLOW_CONTEXT_BYTES + 1;
  config.program = &big_context;
  EXPECT_THAT(configure_error(config), HasSubstr("program->context_bytes"));

  config = valid;
  config.params = {7};
  EXPECT_THAT(configure_error(config), HasSubstr("params has 1 values"));
  config.params = {7, -2, 0};
  EXPECT_THAT(configure_error(config), HasSubstr("params has 3 values"));
  config.params = {0, -2};
  EXPECT_THAT(configure_error(config), HasSubstr("params[0] (gain)"));
  config.params = {101, -2};
  EXPECT_THAT(configure_error(config), HasSubstr("params[0] (gain)"));
  config.params = {7, 6};
  EXPECT_THAT(configure_error(config), HasSubstr("params[1] (floor)"));
  config.params = {7, -6};
  EXPECT_THAT(configure_error(config), HasSubstr("params[1] (floor)"));

  config = valid;
  config.threads = 0;
  EXPECT_THAT(configure_error(config), HasSubstr("threads"));

  config = valid;
  config.queue_events = 0;
  EXPECT_THAT(configure_error(config), HasSubstr("queue_events"));

  config = valid;
  config.handler_cost_ns = -1;
  EXPECT_THAT(configure_error(config), HasSubstr("handler_cost_ns"));

  config = valid;
  config.line_rate_mbps = 0;
  EXPECT_THAT(configure_error(config), HasSubstr("line_rate_mbps"));
}

TEST(EmulatorConfigure, ADefaultOutsideItsOwnRangeIsReportedToo) {
  qb_dpa_param_spec bad_default = {"gain", QB_DPA_PARAM_INTEGER, 0, 1, 100, "test"};
  qb_dpa_program program = test::recording_program;
  program.params = &bad_default;
  program.param_count = 1;
  EXPECT_THAT(configure_error(config_for(program, 1, 0)), HasSubstr("params[0] (gain)"));
}

TEST_F(EmulatorTest, AFailedConfigureLeavesTheEmulatorAsItWas) {
  emulator.configure(config_for(test::two_params_program, 1, 100), 1);
  emulator.post(event_at(0, 0));
  EmulatorConfig bad = config_for(test::recording_program, 1, 5);
  bad.threads = 0;
  EXPECT_THROW(emulator.configure(bad, 8), std::invalid_argument);

  EXPECT_EQ(&emulator.program(), &test::two_params_program);
  EXPECT_THAT(emulator.params(), ElementsAre(7, -2));
  EXPECT_EQ(emulator.stats().events, 1u);
  const Posted next = emulator.post(event_at(0, 0));  // still the old thread, busy until 100
  EXPECT_EQ(next.apply_ns, 200u);
  EXPECT_FALSE(emulator.post(event_at(0, 1)).accepted);  // still one flow
}

}  // namespace
}  // namespace qb::dpa
