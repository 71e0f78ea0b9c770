/* reflector: the receiver side of RTT probing on the device (docs/dpa.md, "reflector").
 *
 * Every RTT probe that reaches the receiver is answered at once, without the host, and counted
 * in the flow's context (the count is for a runtime or a test to read; the program needs none).
 *
 * Plain C11: no floating point, no library calls, no dynamic memory; all state in the context.
 */
#include "qb_dpa/device_api.h"

struct reflector_context {
  uint64_t probes_answered;
};

_Static_assert(sizeof(struct reflector_context) <= QB_DPA_FLOW_CONTEXT_BYTES,
               "reflector's state must fit the flow context");

static void reflector_handle(const struct qb_dpa_event* event, struct qb_dpa_flow flow,
                             struct qb_dpa_actions* actions) {
  struct reflector_context* context = (struct reflector_context*)flow.context;
  if (event->kind != QB_DPA_EV_PROBE) {
    return;
  }
  context->probes_answered += 1;
  actions->flags |= QB_DPA_ACT_ANSWER_PROBE;
}

const struct qb_dpa_program qb_dpa_program_reflector = {
    "reflector",
    "receiver side: answers RTT probes on the device, without the host",
    QB_DPA_EVENT_BIT(QB_DPA_EV_PROBE),
    (uint32_t)sizeof(struct reflector_context),
    0, /* no parameters */
    0,
    reflector_handle,
    QB_DPA_ROLE_RECEIVER,
};
