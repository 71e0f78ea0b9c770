// Small DPA programs for the emulator's tests, written against the device API as C-linkage
// handlers the way a shipped program is. Each one shows what the emulator handed it, through
// its actions or the call log.
#pragma once

#include <cstdint>
#include <vector>

#include "qb_dpa/device_api.h"

namespace qb::dpa::test {

/// One handler call as the program saw it.
struct HandlerCall {
  qb_dpa_event event;
  const void* context;
  const int64_t* params;
  uint64_t line_rate_mbps;
};

/// Every call of the programs below since the last clear (the tests run one at a time).
std::vector<HandlerCall>& handler_calls();

/// Every kind, no context, no params, no actions: logs its calls.
extern const qb_dpa_program recording_program;
/// SET_RATE to event.bytes, except on ACK (no action, rate left 0): shows the clamp.
extern const qb_dpa_program rate_from_bytes_program;
/// Counts its flow's events in the context and answers the count as SET_TIMER's delay; the
/// delay is UINT64_MAX when the context was not what this flow left there (not zero on its
/// first event, or holding another flow's mark).
extern const qb_dpa_program flow_counter_program;
/// Only CNPs: every other kind is outside its event_mask.
extern const qb_dpa_program cnp_only_program;
/// Two params ("gain": 1..100, default 7; "floor": -5..5, default -2): logs its calls.
extern const qb_dpa_program two_params_program;

}  // namespace qb::dpa::test
