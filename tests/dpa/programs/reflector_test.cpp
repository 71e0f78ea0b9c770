// reflector: answers every RTT probe on the device and counts them in the flow's context.
#include <gtest/gtest.h>

#include <cstring>

#include "program_harness.hpp"
#include "qb_dpa/programs.h"

namespace qb::dpa::test {
namespace {

std::uint64_t probes_answered(const FlowReplay& flow) {
  std::uint64_t count = 0;  // the context's first field (reflector.c)
  std::memcpy(&count, flow.context(), sizeof count);
  return count;
}

TEST(Reflector, AnswersEveryProbeAndCountsIt) {
  FlowReplay flow(qb_dpa_program_reflector);
  for (std::uint64_t probe = 1; probe <= 3; ++probe) {
    qb_dpa_event event = make_event(QB_DPA_EV_PROBE, probe * 1000);
    event.probe_sent_ns = probe * 1000 - 500;
    const qb_dpa_actions actions = flow.step(event);
    EXPECT_EQ(actions.flags, static_cast<std::uint32_t>(QB_DPA_ACT_ANSWER_PROBE));
    EXPECT_EQ(probes_answered(flow), probe);
  }
}

TEST(Reflector, IgnoresEverythingElse) {
  FlowReplay flow(qb_dpa_program_reflector);
  for (std::uint32_t kind = 0; kind < QB_DPA_EV_KINDS; ++kind) {
    if (kind == QB_DPA_EV_PROBE) {
      continue;
    }
    EXPECT_EQ(flow.step(make_event(kind, 1000)).flags, 0u) << "event kind " << kind;
  }
  EXPECT_EQ(probes_answered(flow), 0u);
  EXPECT_EQ(qb_dpa_program_reflector.event_mask, QB_DPA_EVENT_BIT(QB_DPA_EV_PROBE));
}

}  // namespace
}  // namespace qb::dpa::test
