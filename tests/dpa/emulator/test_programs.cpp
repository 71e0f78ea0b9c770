// The emulator tests' programs (test_programs.hpp).
#include "test_programs.hpp"

#include <cstring>

namespace qb::dpa::test {

std::vector<HandlerCall>& handler_calls() {
  static std::vector<HandlerCall> calls;
  return calls;
}

namespace {

constexpr uint32_t kEveryKind = (UINT32_C(1) << QB_DPA_EV_KINDS) - 1;

// The counter program's context: the flow that owns it, its event count, and a fill that
// another flow's bytes would overwrite.
struct FlowCounter {
  uint32_t owner_plus_one;  // 0 until the flow's first event
  uint32_t padding;
  uint64_t events;
  unsigned char fill[QB_DPA_FLOW_CONTEXT_BYTES - 16];
};
static_assert(sizeof(FlowCounter) == QB_DPA_FLOW_CONTEXT_BYTES);

bool context_is_zero(const void* context) {
  const unsigned char zero[QB_DPA_FLOW_CONTEXT_BYTES] = {};
  return std::memcmp(context, zero, QB_DPA_FLOW_CONTEXT_BYTES) == 0;
}

const qb_dpa_param_spec kTwoParams[] = {
    {"gain", QB_DPA_PARAM_INTEGER, 7, 1, 100, "test: a gain"},
    {"floor", QB_DPA_PARAM_INTEGER, -2, -5, 5, "test: a signed floor"},
};

}  // namespace

extern "C" {

static void log_call(const qb_dpa_event* event, qb_dpa_flow flow, qb_dpa_actions*) {
  handler_calls().push_back({*event, flow.context, flow.params, flow.line_rate_mbps});
}

static void rate_from_bytes(const qb_dpa_event* event, qb_dpa_flow flow, qb_dpa_actions* actions) {
  log_call(event, flow, actions);
  if (event->kind == QB_DPA_EV_ACK) return;
  actions->flags = QB_DPA_ACT_SET_RATE;
  actions->rate = event->bytes;
}

static void count_flow_events(const qb_dpa_event* event, qb_dpa_flow flow,
                              qb_dpa_actions* actions) {
  log_call(event, flow, actions);
  auto* counter = static_cast<FlowCounter*>(flow.context);
  const bool first = counter->owner_plus_one == 0;
  bool intact = first ? context_is_zero(counter) : counter->owner_plus_one == event->flow + 1;
  for (unsigned char byte : counter->fill) {
    if (!first && byte != static_cast<unsigned char>(event->flow)) intact = false;
  }
  counter->owner_plus_one = event->flow + 1;
  std::memset(counter->fill, static_cast<unsigned char>(event->flow), sizeof counter->fill);
  ++counter->events;
  actions->flags = QB_DPA_ACT_SET_TIMER;
  actions->timer_delay_ns = intact ? counter->events : UINT64_MAX;
}

}  // extern "C"

const qb_dpa_program recording_program = {
    "recording", "test: logs its calls", kEveryKind, 0, nullptr, 0, log_call, QB_DPA_ROLE_SENDER};
const qb_dpa_program rate_from_bytes_program = {
    "rate_from_bytes", "test: rate = bytes", kEveryKind, 0, nullptr, 0,
    rate_from_bytes,   QB_DPA_ROLE_SENDER};
const qb_dpa_program flow_counter_program = {
    "flow_counter",    "test: counts per flow", kEveryKind, QB_DPA_FLOW_CONTEXT_BYTES, nullptr, 0,
    count_flow_events, QB_DPA_ROLE_SENDER};
const qb_dpa_program cnp_only_program = {
    "cnp_only", "test: CNPs only", QB_DPA_EVENT_BIT(QB_DPA_EV_CNP), 0, nullptr, 0,
    log_call,   QB_DPA_ROLE_SENDER};
const qb_dpa_program two_params_program = {
    "two_params", "test: two params", kEveryKind, 0, kTwoParams, 2, log_call, QB_DPA_ROLE_SENDER};

}  // namespace qb::dpa::test
