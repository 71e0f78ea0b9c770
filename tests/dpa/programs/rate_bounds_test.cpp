// Whatever in-range parameters and events a program gets, the rate it sets stays in
// [QB_DPA_RATE_MIN, QB_DPA_RATE_LINE] and its timer delays are sane (no wrapped subtraction): the
// programs need no clamping by the runtime (which clamps and counts anyway, docs/dpa.md). A delay
// of 0 is allowed: a handler delayed past a due time asks for the timer at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "program_harness.hpp"
#include "qb_dpa/programs.h"

namespace qb::dpa::test {
namespace {

// Each parameter at its minimum, maximum, default, just above its minimum or anywhere in its range.
void pick_params(const qb_dpa_program& program, std::mt19937_64& random, FlowReplay& flow) {
  for (std::uint32_t index = 0; index < program.param_count; ++index) {
    const qb_dpa_param_spec& spec = program.params[index];
    std::int64_t value = spec.default_value;
    switch (random() % 5) {
      case 0:
        value = spec.min_value;
        break;
      case 1:
        value = spec.max_value;
        break;
      case 2:
        value = std::uniform_int_distribution<std::int64_t>(spec.min_value, spec.max_value)(random);
        break;
      case 3:  // just above the minimum, where small rates and periods are
        value = std::min(spec.max_value, spec.min_value + static_cast<std::int64_t>(random() % 64));
        break;
      default:
        break;
    }
    ASSERT_TRUE(flow.set_param(spec.name, value));
  }
}

qb_dpa_event random_event(const qb_dpa_program& program, std::mt19937_64& random,
                          std::uint64_t now_ns) {
  std::uint32_t kind = 0;
  do {
    kind = static_cast<std::uint32_t>(random() % QB_DPA_EV_KINDS);
  } while ((program.event_mask & QB_DPA_EVENT_BIT(kind)) == 0);
  qb_dpa_event event = make_event(kind, now_ns);
  event.bytes = static_cast<std::uint32_t>(random() % 70000);
  event.rtt_ns = random() % 2000000;
  event.probe_sent_ns = now_ns > event.rtt_ns ? now_ns - event.rtt_ns : 0;
  event.probe_answered_ns = event.probe_sent_ns;
  event.port_utilisation = static_cast<std::uint32_t>(random() % (QB_DPA_RATE_LINE + 1));
  event.tx_bytes = random();
  return event;
}

void check_rate_bounds(const qb_dpa_program& program) {
  std::mt19937_64 random(20261125);
  for (int trial = 0; trial < 300; ++trial) {
    FlowReplay flow(program);
    pick_params(program, random, flow);
    const std::uint64_t line_rates_mbps[] = {1000, 25000, 100000, 400000, 800000};
    flow.set_line_rate_mbps(line_rates_mbps[random() % std::size(line_rates_mbps)]);
    std::uint64_t now_ns = 0;
    flow.step(make_event(QB_DPA_EV_FLOW_START, now_ns));
    for (int step = 0; step < 400; ++step) {
      // Mostly close together (bursts of CNPs, packets), sometimes long gaps.
      now_ns += random() % 8 == 0 ? random() % 5000000 : random() % 5000;
      const qb_dpa_actions actions = flow.step(random_event(program, random, now_ns));
      if ((actions.flags & QB_DPA_ACT_SET_RATE) != 0) {
        ASSERT_GE(actions.rate, QB_DPA_RATE_MIN) << "trial " << trial << " step " << step;
        ASSERT_LE(actions.rate, QB_DPA_RATE_LINE) << "trial " << trial << " step " << step;
      }
      if ((actions.flags & QB_DPA_ACT_SET_TIMER) != 0) {
        // The longest: probe_timeout 1 s << 10, under 2^40 ns.
        ASSERT_LT(actions.timer_delay_ns, std::uint64_t{1} << 40)
            << "trial " << trial << " step " << step;
      }
    }
  }
}

TEST(DpaProgramRateBounds, PccRtt) {
  check_rate_bounds(qb_dpa_program_pcc_rtt);
}

TEST(DpaProgramRateBounds, Dcqcn) {
  check_rate_bounds(qb_dpa_program_dcqcn);
}

}  // namespace
}  // namespace qb::dpa::test
