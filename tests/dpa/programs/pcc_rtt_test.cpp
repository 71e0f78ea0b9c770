// pcc_rtt replayed on hand-written traces; every expected rate is worked out in the comment
// beside it from the rules in docs/dpa.md ("pcc_rtt"), with the default parameters:
//   LINE = 2^20 = 1048576, UF = 104858 (0.1), AI = 52429 (0.05), base_rtt 13 us,
//   max_delay 150 us, min_rate 64, high_utilisation 891290 (0.85), probe_timeout 300 us.
// A decrease by a fraction f (20-bit) is rate - floor(rate * f / 2^20).
#include <gtest/gtest.h>

#include "program_harness.hpp"
#include "qb_dpa/programs.h"

namespace qb::dpa::test {
namespace {

constexpr std::uint32_t kProbe = QB_DPA_ACT_REQUEST_RTT | QB_DPA_ACT_SET_TIMER;
constexpr std::uint32_t kRateAndProbe = QB_DPA_ACT_SET_RATE | kProbe;

// The rate action and the next probe with the reset 300 us timeout: what every RTT sample does.
void expect_rate_and_next_probe(const qb_dpa_actions& actions) {
  EXPECT_EQ(actions.flags, kRateAndProbe);
  EXPECT_EQ(actions.timer_delay_ns, 300000u);
}

TEST(PccRttTrace, BandsAdditiveIncreaseClampsAndHighUtilisation) {
  FlowReplay flow(qb_dpa_program_pcc_rtt);

  // New flow: line rate, first probe, its timeout armed.
  qb_dpa_actions actions = flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  EXPECT_EQ(flow.rate(), 1048576u);  // 1 << 20
  expect_rate_and_next_probe(actions);

  // rtt 10 us <= base 13 us: + AI, 1048576 + 52429 = 1101005, clamped to line 1048576.
  actions = flow.step(rtt_event(10000, 10000));
  EXPECT_EQ(flow.rate(), 1048576u);
  expect_rate_and_next_probe(actions);

  // rtt 20 us > base: x(1-UF), 1048576 - floor(1048576*104858/2^20) = 1048576 - 104858 = 943718.
  actions = flow.step(rtt_event(30000, 20000));
  EXPECT_EQ(flow.rate(), 943718u);
  expect_rate_and_next_probe(actions);

  // A CNP only raises a flag: no action, rate unchanged.
  actions = flow.step(make_event(QB_DPA_EV_CNP, 60000));
  EXPECT_EQ(actions.flags, 0u);
  EXPECT_EQ(flow.rate(), 943718u);

  // CNP seen, rtt 20 us: x(1-2UF), 943718 - floor(943718*209716/2^20) = 943718 - 188744 = 754974.
  actions = flow.step(rtt_event(70000, 20000));
  EXPECT_EQ(flow.rate(), 754974u);
  expect_rate_and_next_probe(actions);

  // The CNP flag was cleared: rtt 20 us is x(1-UF) again,
  // 754974 - floor(754974*104858/2^20) = 754974 - 75497 = 679477.
  actions = flow.step(rtt_event(100000, 20000));
  EXPECT_EQ(flow.rate(), 679477u);
  expect_rate_and_next_probe(actions);

  // A NACK only raises a flag.
  actions = flow.step(make_event(QB_DPA_EV_NACK, 110000));
  EXPECT_EQ(actions.flags, 0u);
  EXPECT_EQ(flow.rate(), 679477u);

  // NACK and rtt 160 us >= max 150 us: x(1-5UF), 5UF = 524290,
  // 679477 - floor(679477*524290/2^20) = 679477 - 339739 = 339738.
  actions = flow.step(rtt_event(270000, 160000));
  EXPECT_EQ(flow.rate(), 339738u);
  expect_rate_and_next_probe(actions);

  // rtt exactly 150 us = max, no flag: x(1-2UF),
  // 339738 - floor(339738*209716/2^20) = 339738 - 67947 = 271791.
  actions = flow.step(rtt_event(420000, 150000));
  EXPECT_EQ(flow.rate(), 271791u);
  expect_rate_and_next_probe(actions);

  // rtt exactly 13 us = base (not above): + AI, 271791 + 52429 = 324220.
  actions = flow.step(rtt_event(433000, 13000));
  EXPECT_EQ(flow.rate(), 324220u);
  expect_rate_and_next_probe(actions);

  // A NACK with rtt 20 us < max is not the NACK band: x(1-UF),
  // 324220 - floor(324220*104858/2^20) = 324220 - 32422 = 291798.
  flow.step(make_event(QB_DPA_EV_NACK, 440000));
  actions = flow.step(rtt_event(453000, 20000));
  EXPECT_EQ(flow.rate(), 291798u);
  expect_rate_and_next_probe(actions);

  // Tx sample: utilisation 943718 (0.9) > 0.85. No action of its own.
  actions = flow.step(tx_sample_event(460000, 943718));
  EXPECT_EQ(actions.flags, 0u);
  EXPECT_EQ(flow.rate(), 291798u);

  // High utilisation doubles x(1-UF) to x(1-2UF),
  // 291798 - floor(291798*209716/2^20) = 291798 - 58359 = 233439.
  actions = flow.step(rtt_event(480000, 20000));
  EXPECT_EQ(flow.rate(), 233439u);
  expect_rate_and_next_probe(actions);

  // CNP under high utilisation: 2UF doubled to 4UF = 419432,
  // 233439 - floor(233439*419432/2^20) = 233439 - 93375 = 140064.
  flow.step(make_event(QB_DPA_EV_CNP, 490000));
  actions = flow.step(rtt_event(500000, 20000));
  EXPECT_EQ(flow.rate(), 140064u);
  expect_rate_and_next_probe(actions);

  // NACK, rtt >= max, high utilisation: 5UF doubled = 1048580 > 1, capped at 1: the rate would
  // be 0 and is clamped to min_rate 64.
  flow.step(make_event(QB_DPA_EV_NACK, 510000));
  actions = flow.step(rtt_event(700000, 190000));
  EXPECT_EQ(flow.rate(), 64u);
  expect_rate_and_next_probe(actions);

  // Utilisation back to 0.5 (524288): uncongested rtt 10 us, + AI, 64 + 52429 = 52493.
  flow.step(tx_sample_event(705000, 524288));
  actions = flow.step(rtt_event(710000, 10000));
  EXPECT_EQ(flow.rate(), 52493u);
  expect_rate_and_next_probe(actions);
}

TEST(PccRttTrace, UnansweredProbeIsAskedForAgainWithDoublingTimeout) {
  FlowReplay flow(qb_dpa_program_pcc_rtt);
  qb_dpa_actions actions = flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  EXPECT_EQ(actions.flags, kRateAndProbe);
  EXPECT_EQ(actions.timer_delay_ns, 300000u);  // probe_timeout

  // No answer within 300 us: abort 1, asked again, the wait doubles to 600 us. Rate untouched.
  actions = flow.step(make_event(QB_DPA_EV_TIMER, 300000));
  EXPECT_EQ(actions.flags, kProbe);
  EXPECT_EQ(actions.timer_delay_ns, 600000u);  // 300 us << 1
  EXPECT_EQ(flow.rate(), 1048576u);

  // Abort 2: 1200 us.
  actions = flow.step(make_event(QB_DPA_EV_TIMER, 900000));
  EXPECT_EQ(actions.flags, kProbe);
  EXPECT_EQ(actions.timer_delay_ns, 1200000u);  // 300 us << 2

  // Abort 3: 2400 us.
  actions = flow.step(make_event(QB_DPA_EV_TIMER, 2100000));
  EXPECT_EQ(actions.flags, kProbe);
  EXPECT_EQ(actions.timer_delay_ns, 2400000u);  // 300 us << 3

  // An answer (rtt 20 us > base): x(1-UF) = 943718 (as above); the wait is back to 300 us.
  actions = flow.step(rtt_event(2120000, 20000));
  EXPECT_EQ(flow.rate(), 943718u);
  expect_rate_and_next_probe(actions);

  // The next loss starts the back-off over: 600 us.
  actions = flow.step(make_event(QB_DPA_EV_TIMER, 2420000));
  EXPECT_EQ(actions.flags, kProbe);
  EXPECT_EQ(actions.timer_delay_ns, 600000u);
  EXPECT_EQ(flow.rate(), 943718u);
}

TEST(PccRttTrace, BackOffStopsDoublingAt1024TimesTheTimeout) {
  FlowReplay flow(qb_dpa_program_pcc_rtt);
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  qb_dpa_actions actions{};
  for (int abort = 1; abort <= 12; ++abort) {
    actions =
        flow.step(make_event(QB_DPA_EV_TIMER, static_cast<std::uint64_t>(abort) * 1000000000));
  }
  // Aborts 11 and 12 stay at 300 us << 10 = 307.2 ms.
  EXPECT_EQ(actions.flags, kProbe);
  EXPECT_EQ(actions.timer_delay_ns, 307200000u);
}

TEST(PccRttTrace, TimerWithoutOutstandingProbeDoesNothing) {
  FlowReplay flow(qb_dpa_program_pcc_rtt);
  const qb_dpa_actions actions = flow.step(make_event(QB_DPA_EV_TIMER, 1000));
  EXPECT_EQ(actions.flags, 0u);
}

TEST(PccRttTrace, ParametersChangeTheBands) {
  FlowReplay flow(qb_dpa_program_pcc_rtt);
  ASSERT_TRUE(flow.set_param("update_factor", 262144));  // 0.25
  ASSERT_TRUE(flow.set_param("base_rtt", 50000));
  ASSERT_TRUE(flow.set_param("min_rate", 500000));
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  // rtt 40 us <= base 50 us: + AI, clamped at line 1048576.
  flow.step(rtt_event(40000, 40000));
  EXPECT_EQ(flow.rate(), 1048576u);
  // rtt 60 us > base: x(1-0.25), 1048576 - 262144 = 786432.
  flow.step(rtt_event(100000, 60000));
  EXPECT_EQ(flow.rate(), 786432u);
  // CNP: x(1-0.5), 786432 - 393216 = 393216, below min 500000: clamped to 500000.
  flow.step(make_event(QB_DPA_EV_CNP, 110000));
  flow.step(rtt_event(160000, 60000));
  EXPECT_EQ(flow.rate(), 500000u);
}

}  // namespace
}  // namespace qb::dpa::test
