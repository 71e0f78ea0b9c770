// dcqcn replayed on hand-written traces; every expected rate is worked out in the comment beside
// it from the rules in docs/dpa.md ("dcqcn"). Common values (100 Gbit/s port):
//   LINE = 2^20 = 1048576; AI 5 Mbit/s = floor(5*2^20/100000) = 52; HAI 50 Mbit/s = 524;
//   initial alpha 1023/1024 = 1023 << 10 = 1047552; default g = 5/1024 = 5120 (keep 1043456).
// A cut is rate - floor(rate * (alpha >> (rpg_gd-10)) / 2^20), at least rpg_min_dec_fac % of the
// rate and the min rate; an increase is rate <- (rate + target + 1) / 2 (halfway, rounded up).
#include <gtest/gtest.h>

#include "program_harness.hpp"
#include "qb_dpa/programs.h"

namespace qb::dpa::test {
namespace {

constexpr std::uint32_t kRate = QB_DPA_ACT_SET_RATE;
constexpr std::uint32_t kTimer = QB_DPA_ACT_SET_TIMER;
// Keeps the alpha timer out of traces about the rate increase (the largest dce_tcp_rtt).
constexpr std::int64_t kNoAlphaTimerNs = 131071000;

void expect_actions(const qb_dpa_actions& actions, std::uint32_t flags,
                    std::uint64_t timer_delay_ns = 0) {
  EXPECT_EQ(actions.flags, flags);
  if ((flags & kTimer) != 0) {
    EXPECT_EQ(actions.timer_delay_ns, timer_delay_ns);
  }
}

TEST(DcqcnTrace, FirstCnpThenFastRecoveryThenAdditiveIncreaseByTimer) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_byte_reset", 0));  // timer only
  ASSERT_TRUE(flow.set_param("rpg_threshold", 2));
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", kNoAlphaTimerNs));

  // Start: line rate, not limited, no timer.
  expect_actions(flow.step(make_event(QB_DPA_EV_FLOW_START, 0)), kRate);
  EXPECT_EQ(flow.rate(), 1048576u);

  // First CNP: alpha = 1047552, target = rate = LINE, cut by alpha/2 = 523776:
  // 1048576 - floor(1048576*523776/2^20) = 1048576 - 523776 = 524800 (>= 50 % = 524288).
  // Increase timer due at 1000 + 300000 (before the alpha timer): set for 300 us.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 1000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 524800u);

  // Timer stage T=1 <= 2: fast recovery, (524800 + 1048576 + 1) / 2 = 786688.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 301000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 786688u);

  // T=2 <= 2: fast recovery, (786688 + 1048576 + 1) / 2 = 917632.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 601000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 917632u);

  // CNP, 699 us after the last cut (>= 4 us): the timer raised the rate (T=2 > 0), so
  // target <- 917632. Alpha is still 1047552 (the first CNP sets it, does not raise it):
  // 917632 - floor(917632*523776/2^20) = 917632 - 458367 = 459265. Increase timer restarts:
  // due 700000 + 300000, set for 300 us.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 700000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 459265u);

  // T=1: fast recovery toward 917632, (459265 + 917632 + 1) / 2 = 688449.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 1000000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 688449u);

  // T=2: (688449 + 917632 + 1) / 2 = 803041.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 1300000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 803041u);

  // T=3 > 2, byte counter off (never past the threshold): additive increase,
  // target 917632 + 52 = 917684, rate (803041 + 917684 + 1) / 2 = 860363.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 1600000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 860363u);

  // T=4: additive again, target 917736, rate (860363 + 917736 + 1) / 2 = 889050.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 1900000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 889050u);
}

TEST(DcqcnTrace, ByteCounterDrivesIncreaseAdditiveThenHyper) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_byte_reset", 10000));
  ASSERT_TRUE(flow.set_param("clamp_tgt_rate", 1));  // every cut sets target <- rate
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", kNoAlphaTimerNs));
  // rpg_threshold stays at its default, 1.

  expect_actions(flow.step(make_event(QB_DPA_EV_FLOW_START, 0)), kRate);
  // Not limited yet: bytes sent do not count.
  expect_actions(flow.step(tx_event(500, 50000)), 0);

  // First CNP: 524800 (as in the trace above); increase timer due 301000.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 1000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 524800u);

  // CNP 9 us later: target <- 524800, alpha still 1047552:
  // 524800 - floor(524800*523776/2^20) = 524800 - 262143 = 262657. Timer now due 310000.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 10000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 262657u);

  // 6000 bytes < 10000: nothing.
  expect_actions(flow.step(tx_event(11000, 6000)), 0);
  EXPECT_EQ(flow.rate(), 262657u);

  // 12000 bytes >= 10000: byte stage B=1 (2000 carried). max(T=0, B=1) <= 1: fast recovery,
  // (262657 + 524800 + 1) / 2 = 393729.
  expect_actions(flow.step(tx_event(12000, 6000)), kRate);
  EXPECT_EQ(flow.rate(), 393729u);

  // 2000 + 9000 = 11000: B=2 (1000 carried). B passed 1, T=0 has not: additive increase,
  // target 524800 + 52 = 524852, rate (393729 + 524852 + 1) / 2 = 459291.
  expect_actions(flow.step(tx_event(13000, 9000)), kRate);
  EXPECT_EQ(flow.rate(), 459291u);

  // Timer: T=1, min(T, B) = 1 not past 1: additive, target 524904,
  // rate (459291 + 524904 + 1) / 2 = 492098.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 310000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 492098u);

  // Timer: T=2, both stages past 1: hyper increase, target 524904 + 524 = 525428,
  // rate (492098 + 525428 + 1) / 2 = 508763.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 610000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 508763u);

  // 1000 + 10000 = 11000: B=3 (1000 carried), hyper: target 525952,
  // rate (508763 + 525952 + 1) / 2 = 517358.
  expect_actions(flow.step(tx_event(611000, 10000)), kRate);
  EXPECT_EQ(flow.rate(), 517358u);

  // 1000 + 25000 = 26000: one stage per packet, B=4, 26000 mod 10000 = 6000 carried. Hyper:
  // target 526476, rate (517358 + 526476 + 1) / 2 = 521917.
  expect_actions(flow.step(tx_event(612000, 25000)), kRate);
  EXPECT_EQ(flow.rate(), 521917u);

  // 6000 + 3000 = 9000 < 10000: nothing.
  expect_actions(flow.step(tx_event(613000, 3000)), 0);
  // 9000 + 1000 = 10000: B=5, hyper: target 527000, rate (521917 + 527000 + 1) / 2 = 524459.
  expect_actions(flow.step(tx_event(614000, 1000)), kRate);
  EXPECT_EQ(flow.rate(), 524459u);
}

TEST(DcqcnTrace, AlphaDecaysOnItsTimerAndCnpsInsideTheMonitorPeriodOnlyRaiseIt) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("dce_tcp_g", 768));              // g = 256/1024 = 1/4 = 262144
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", 100000));         // alpha period 100 us
  ASSERT_TRUE(flow.set_param("rpg_time_reset", 1000000000));  // no increase in this trace

  expect_actions(flow.step(make_event(QB_DPA_EV_FLOW_START, 0)), kRate);

  // First CNP: 524800; alpha timer due 200000 (before the increase timer): set for 100 us.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 100000)), kRate | kTimer, 100000);
  EXPECT_EQ(flow.rate(), 524800u);

  // No CNP for 100 us: alpha = floor(1047552 * 786432 / 2^20) = 785664 (x 3/4). Rate untouched.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 200000)), kTimer, 100000);
  EXPECT_EQ(flow.rate(), 524800u);

  // Again: alpha = floor(785664 * 3/4) = 589248.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 300000)), kTimer, 100000);
  EXPECT_EQ(flow.rate(), 524800u);

  // CNP: the decayed alpha cuts less, 589248 >> 1 = 294624:
  // 524800 - floor(524800*294624/2^20) = 524800 - 147455 = 377345.
  // Then alpha = floor(589248 * 3/4) + 262144 = 441936 + 262144 = 704080; its timer restarts,
  // due 450000 (was 400000): set for 100 us.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 350000)), kRate | kTimer, 100000);
  EXPECT_EQ(flow.rate(), 377345u);

  // CNP 2 us after the cut (< 4 us monitor period): no cut, alpha only,
  // floor(704080 * 3/4) + 262144 = 528060 + 262144 = 790204; alpha timer due 452000.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 352000)), kTimer, 100000);
  EXPECT_EQ(flow.rate(), 377345u);

  // CNP 10 us after the cut: cut by 790204 >> 1 = 395102,
  // 377345 - floor(377345*395102/2^20) = 377345 - 142183 = 235162.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 360000)), kRate | kTimer, 100000);
  EXPECT_EQ(flow.rate(), 235162u);
}

TEST(DcqcnTrace, AlphaAtZeroStopsItsTimerAndCutsNothing) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("dce_tcp_g", 0));  // g = 1024/1024 = 1
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", 100000));
  ASSERT_TRUE(flow.set_param("rpg_time_reset", 1000000000));

  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 100000)), kRate | kTimer, 100000);
  EXPECT_EQ(flow.rate(), 524800u);
  // alpha = 1047552 * (1 - 1) = 0: its timer stops; the increase timer is next, due
  // 100000 + 10^9: set for 10^9 + 100000 - 200000 = 999900000.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 200000)), kTimer, 999900000);
  // A cut with alpha 0 keeps the rate, 524800; alpha becomes 0 + g = 1048576, its timer due
  // 400000.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 300000)), kRate | kTimer, 100000);
  EXPECT_EQ(flow.rate(), 524800u);
}

TEST(DcqcnTrace, CnpWithoutATimerIncreaseKeepsTheTarget) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_byte_reset", 0));
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", kNoAlphaTimerNs));
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  flow.step(make_event(QB_DPA_EV_CNP, 1000));
  EXPECT_EQ(flow.rate(), 524800u);  // target stays LINE
  // No timer increase since the cut (T=0), clamp_tgt_rate 0: the target stays 1048576.
  // 524800 - floor(524800*523776/2^20) = 262657.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 10000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 262657u);
  // T=1 <= 1: fast recovery toward LINE, not 524800: (262657 + 1048576 + 1) / 2 = 655617.
  expect_actions(flow.step(make_event(QB_DPA_EV_TIMER, 310000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 655617u);
}

TEST(DcqcnTrace, RecoversToLineRateAndStopsTheIncreaseTimer) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_threshold", 2));
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", kNoAlphaTimerNs));
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  flow.step(make_event(QB_DPA_EV_CNP, 1000));  // 524800, target LINE
  // Each timer: rate <- (rate + 1048576 + 1) / 2 (T=1,2 fast recovery; from T=3 additive, the
  // target capped at LINE): 786688, 917632, 983104, 1015840, 1032208, 1040392, 1044484,
  // 1046530, 1047553, 1048065, 1048321, 1048449, 1048513, 1048545, 1048561, 1048569, 1048573,
  // 1048575, 1048576.
  const std::uint32_t expected[] = {786688,  917632,  983104,  1015840, 1032208, 1040392, 1044484,
                                    1046530, 1047553, 1048065, 1048321, 1048449, 1048513, 1048545,
                                    1048561, 1048569, 1048573, 1048575, 1048576};
  std::uint64_t now_ns = 1000;
  for (std::size_t step = 0; step < std::size(expected); ++step) {
    now_ns += 300000;
    const qb_dpa_actions actions = flow.step(make_event(QB_DPA_EV_TIMER, now_ns));
    EXPECT_EQ(flow.rate(), expected[step]) << "timer " << step + 1;
    if (step + 1 < std::size(expected)) {
      expect_actions(actions, kRate | kTimer, 300000);
    } else {
      // At LINE with target LINE: the increase timer stops; the alpha timer (due
      // 1000 + 131071000 = 131072000) is what is left: 131072000 - 5701000 = 125371000.
      expect_actions(actions, kRate | kTimer, 125371000);
    }
  }
  // No longer limited: bytes sent start nothing.
  expect_actions(flow.step(tx_event(now_ns + 1000, 1000000)), 0);
  EXPECT_EQ(flow.rate(), 1048576u);
}

TEST(DcqcnTrace, MinRateBoundsTheCut) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_min_rate", 20000));  // floor(20000*2^20/100000) = 209715
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", kNoAlphaTimerNs));
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  flow.step(make_event(QB_DPA_EV_CNP, 1000));
  EXPECT_EQ(flow.rate(), 524800u);
  flow.step(make_event(QB_DPA_EV_CNP, 10000));
  EXPECT_EQ(flow.rate(), 262657u);  // as above; alpha then floor(1047552*1043456/2^20) + 5120
                                    // = 1042437 + 5120 = 1047557
  // Cut by 1047557 >> 1 = 523778: 262657 - floor(262657*523778/2^20) = 262657 - 131200 =
  // 131457, above 50 % (131328) but below the min 209715: 209715.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 20000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 209715u);
}

TEST(DcqcnTrace, DefaultMinRateIsTheDeviceMinimum) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_min_dec_fac", 0));  // no bound per cut
  ASSERT_TRUE(flow.set_param("rpg_gd", 10));          // cut by alpha itself
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  // 1048576 - floor(1048576*1047552/2^20) = 1024.
  flow.step(make_event(QB_DPA_EV_CNP, 1000));
  EXPECT_EQ(flow.rate(), 1024u);
  // Alpha is still 1047552 (a cut uses alpha from before its CNP):
  // 1024 - floor(1024*1047552/2^20) = 1024 - 1023 = 1, below 1 Mbit/s
  // (floor(2^20/100000) = 10) and the device minimum 64: 64.
  flow.step(make_event(QB_DPA_EV_CNP, 10000));
  EXPECT_EQ(flow.rate(), 64u);
}

TEST(DcqcnTrace, MinDecreaseFactorBoundsOneCut) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rpg_gd", 10));
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  // Cut by alpha: 1048576 - 1047552 = 1024, but at least 50 %: 1048576 * 50 / 100 = 524288.
  flow.step(make_event(QB_DPA_EV_CNP, 1000));
  EXPECT_EQ(flow.rate(), 524288u);

  FlowReplay no_cut(qb_dpa_program_dcqcn);
  ASSERT_TRUE(no_cut.set_param("rpg_min_dec_fac", 100));  // 100 %: no cut at all
  no_cut.step(make_event(QB_DPA_EV_FLOW_START, 0));
  no_cut.step(make_event(QB_DPA_EV_CNP, 1000));
  EXPECT_EQ(no_cut.rate(), 1048576u);
}

TEST(DcqcnTrace, RateToSetOnFirstCnp) {
  FlowReplay flow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(flow.set_param("rate_to_set_on_first_cnp", 10000));  // 10 Gbit/s
  ASSERT_TRUE(flow.set_param("dce_tcp_rtt", kNoAlphaTimerNs));
  flow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  // Rate and target floor(10000*2^20/100000) = 104857, no cut.
  expect_actions(flow.step(make_event(QB_DPA_EV_CNP, 1000)), kRate | kTimer, 300000);
  EXPECT_EQ(flow.rate(), 104857u);
  // Fast recovery toward the target 104857: (104857 + 104857 + 1) / 2 = 104857.
  flow.step(make_event(QB_DPA_EV_TIMER, 301000));
  EXPECT_EQ(flow.rate(), 104857u);

  // 1 Mbit/s is floor(2^20/100000) = 10, below the device minimum: 64.
  FlowReplay slow(qb_dpa_program_dcqcn);
  ASSERT_TRUE(slow.set_param("rate_to_set_on_first_cnp", 1));
  slow.step(make_event(QB_DPA_EV_FLOW_START, 0));
  slow.step(make_event(QB_DPA_EV_CNP, 1000));
  EXPECT_EQ(slow.rate(), 64u);
}

}  // namespace
}  // namespace qb::dpa::test
