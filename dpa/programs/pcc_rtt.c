/* pcc_rtt: NVIDIA DOCA PCC's reference RTT algorithm, with DOCA PCC's default parameters
 * (docs/dpa.md, "pcc_rtt": the rules, the parameters and their defaults).
 *
 * One rate update per RTT sample. A new flow starts at line rate and asks for a probe. CNPs and
 * NACKs only raise flags; the next RTT sample reads and clears them:
 *   NACK and rtt >= max_delay   -> rate x (1 - 5 UF)
 *   CNP  or  rtt >= max_delay   -> rate x (1 - 2 UF)
 *   rtt > base_rtt              -> rate x (1 - UF)
 *   otherwise                   -> rate + AI (a fraction of line rate)
 * Under high port utilisation (latest Tx sample > high_utilisation) each decrease doubles. The
 * rate is clamped to [min_rate, line rate] and the next probe is requested. A probe unanswered
 * for probe_timeout is asked for again from the flow's timer, the timeout doubling per abort and
 * going back to probe_timeout on an answer.
 *
 * Plain C11: no floating point, no library calls, no dynamic memory; all state in the context.
 */
#include "qb_dpa/device_api.h"

enum pcc_rtt_param {
  PCC_RTT_UPDATE_FACTOR = 0,
  PCC_RTT_ADDITIVE_INCREASE = 1,
  PCC_RTT_BASE_RTT = 2,
  PCC_RTT_MAX_DELAY = 3,
  PCC_RTT_MIN_RATE = 4,
  PCC_RTT_HIGH_UTILISATION = 5,
  PCC_RTT_PROBE_TIMEOUT = 6,
  PCC_RTT_PARAM_COUNT = 7
};

/* A probe's timeout stops doubling after this many aborts, at 1024 x probe_timeout (a lost
 * fabric keeps being asked, slowly, and the arithmetic stays far from overflow: 1 s << 10 <
 * 2^40 ns). */
#define PCC_RTT_MAX_BACKOFF_SHIFT 10u
#define PCC_RTT_MAX_TIME_NS INT64_C(1000000000)

static const struct qb_dpa_param_spec pcc_rtt_params[PCC_RTT_PARAM_COUNT] = {
    {"update_factor", QB_DPA_PARAM_FRACTION, 104858 /* 0.1 x 2^20, rounded */, 1,
     QB_DPA_FRACTION_ONE,
     "UF, the multiplicative-decrease step (x(1-UF), x(1-2UF), x(1-5UF)); 0.1 is DOCA PCC's "
     "reference RTT algorithm default (qos-semantics.md s6)"},
    {"additive_increase", QB_DPA_PARAM_FRACTION, 52429 /* 0.05 x 2^20, rounded */, 0,
     QB_DPA_FRACTION_ONE,
     "AI, added to the rate per uncongested RTT sample, a fraction of line rate; 0.05 is DOCA "
     "PCC's default (qos-semantics.md s6)"},
    {"base_rtt", QB_DPA_PARAM_TIME_NS, 13000, 0, PCC_RTT_MAX_TIME_NS,
     "an RTT above this is mild congestion (x(1-UF)); 13us is DOCA PCC's default "
     "(qos-semantics.md s6)"},
    {"max_delay", QB_DPA_PARAM_TIME_NS, 150000, 1, PCC_RTT_MAX_TIME_NS,
     "an RTT at or above this is heavy congestion (x(1-2UF), x(1-5UF) with a NACK); 150us is "
     "DOCA PCC's default (qos-semantics.md s6)"},
    {"min_rate", QB_DPA_PARAM_FRACTION, QB_DPA_RATE_MIN, QB_DPA_RATE_MIN, QB_DPA_FRACTION_ONE,
     "the lowest rate, a fraction of line rate; 2^-14 (1 << 6 in 20-bit fixed point) is DOCA "
     "PCC's minimum (qos-semantics.md s6)"},
    {"high_utilisation", QB_DPA_PARAM_FRACTION, 891290 /* 0.85 x 2^20, rounded */, 0,
     QB_DPA_FRACTION_ONE,
     "port utilisation (latest Tx byte-counter sample) above which decreases double; 0.85 is "
     "DOCA PCC's high-utilisation variant (qos-semantics.md s6)"},
    {"probe_timeout", QB_DPA_PARAM_TIME_NS, 300000, 1000, PCC_RTT_MAX_TIME_NS,
     "an RTT probe unanswered this long is asked for again, the wait doubling per abort (up to "
     "1024x); 300us is DOCA PCC's default (qos-semantics.md s6)"},
};

struct pcc_rtt_context {
  uint64_t probe_requested_ns; /* when the outstanding probe was asked for */
  uint64_t probe_timeout_ns;   /* the current wait, doubled per abort; 0 before the first probe */
  uint32_t rate;               /* 20-bit fixed point of line rate */
  uint32_t port_utilisation;   /* latest Tx sample, 20-bit fixed point */
  uint32_t probe_aborts;       /* aborts since the last answer */
  uint8_t cnp_seen;            /* a CNP since the last RTT sample */
  uint8_t nack_seen;           /* a NACK since the last RTT sample */
  uint8_t probe_outstanding;
  uint8_t reserved;
};

_Static_assert(sizeof(struct pcc_rtt_context) <= QB_DPA_FLOW_CONTEXT_BYTES,
               "pcc_rtt's state must fit the flow context");

static uint32_t pcc_rtt_clamp_rate(int64_t rate, int64_t min_rate) {
  if (rate < min_rate) {
    rate = min_rate;
  }
  if (rate > (int64_t)QB_DPA_RATE_LINE) {
    rate = (int64_t)QB_DPA_RATE_LINE;
  }
  return (uint32_t)rate;
}

static void pcc_rtt_request_probe(struct pcc_rtt_context* context, uint64_t now_ns,
                                  struct qb_dpa_actions* actions) {
  context->probe_outstanding = 1;
  context->probe_requested_ns = now_ns;
  actions->flags |= QB_DPA_ACT_REQUEST_RTT | QB_DPA_ACT_SET_TIMER;
  actions->timer_delay_ns = context->probe_timeout_ns;
}

/* The multiplicative step, 20-bit fixed point, for this sample (0: no decrease). */
static int64_t pcc_rtt_decrease_fraction(const struct pcc_rtt_context* context, uint64_t rtt_ns,
                                         const int64_t* params) {
  const int64_t update_factor = params[PCC_RTT_UPDATE_FACTOR];
  const int64_t rtt = (int64_t)rtt_ns;
  int64_t fraction = 0;
  if (context->nack_seen && rtt >= params[PCC_RTT_MAX_DELAY]) {
    fraction = 5 * update_factor;
  } else if (context->cnp_seen || rtt >= params[PCC_RTT_MAX_DELAY]) {
    fraction = 2 * update_factor;
  } else if (rtt > params[PCC_RTT_BASE_RTT]) {
    fraction = update_factor;
  }
  if ((int64_t)context->port_utilisation > params[PCC_RTT_HIGH_UTILISATION]) {
    fraction *= 2; /* the high-utilisation variant: the port is busy, back off harder */
  }
  /* A large update_factor cannot take the rate below zero: the clamp then holds it at min. */
  return fraction > QB_DPA_FRACTION_ONE ? QB_DPA_FRACTION_ONE : fraction;
}

static void pcc_rtt_on_rtt_sample(struct pcc_rtt_context* context, const struct qb_dpa_event* event,
                                  const int64_t* params, struct qb_dpa_actions* actions) {
  const int64_t rate = context->rate;
  const int64_t fraction = pcc_rtt_decrease_fraction(context, event->rtt_ns, params);
  int64_t next_rate;
  if (fraction > 0) {
    next_rate = rate - ((rate * fraction) >> 20); /* rate x (1 - fraction), rounded up */
  } else {
    next_rate = rate + params[PCC_RTT_ADDITIVE_INCREASE];
  }
  context->rate = pcc_rtt_clamp_rate(next_rate, params[PCC_RTT_MIN_RATE]);
  context->cnp_seen = 0;
  context->nack_seen = 0;
  /* A good answer: the back-off starts over. */
  context->probe_aborts = 0;
  context->probe_timeout_ns = (uint64_t)params[PCC_RTT_PROBE_TIMEOUT];
  actions->flags |= QB_DPA_ACT_SET_RATE;
  actions->rate = context->rate;
  pcc_rtt_request_probe(context, event->now_ns, actions);
}

static void pcc_rtt_on_timer(struct pcc_rtt_context* context, const struct qb_dpa_event* event,
                             const int64_t* params, struct qb_dpa_actions* actions) {
  if (!context->probe_outstanding) {
    return; /* the answer came first; its handler set a new timer already */
  }
  if (context->probe_aborts < PCC_RTT_MAX_BACKOFF_SHIFT) {
    context->probe_aborts += 1;
  }
  context->probe_timeout_ns = (uint64_t)params[PCC_RTT_PROBE_TIMEOUT] << context->probe_aborts;
  pcc_rtt_request_probe(context, event->now_ns, actions);
}

static void pcc_rtt_handle(const struct qb_dpa_event* event, struct qb_dpa_flow flow,
                           struct qb_dpa_actions* actions) {
  struct pcc_rtt_context* context = (struct pcc_rtt_context*)flow.context;
  const int64_t* params = flow.params;
  /* A Tx sample is the utilisation, idle included; other events carry the latest (0: none). */
  if (event->kind == QB_DPA_EV_TX_SAMPLE || event->port_utilisation != 0) {
    context->port_utilisation = event->port_utilisation;
  }
  switch (event->kind) {
    case QB_DPA_EV_FLOW_START:
      context->rate = QB_DPA_RATE_LINE;
      context->probe_aborts = 0;
      context->probe_timeout_ns = (uint64_t)params[PCC_RTT_PROBE_TIMEOUT];
      actions->flags |= QB_DPA_ACT_SET_RATE;
      actions->rate = context->rate;
      pcc_rtt_request_probe(context, event->now_ns, actions);
      break;
    case QB_DPA_EV_CNP:
      context->cnp_seen = 1;
      break;
    case QB_DPA_EV_NACK:
      context->nack_seen = 1;
      break;
    case QB_DPA_EV_RTT:
      context->probe_outstanding = 0;
      pcc_rtt_on_rtt_sample(context, event, params, actions);
      break;
    case QB_DPA_EV_TIMER:
      pcc_rtt_on_timer(context, event, params, actions);
      break;
    default:
      break; /* QB_DPA_EV_TX_SAMPLE: its utilisation is all, kept above */
  }
}

const struct qb_dpa_program qb_dpa_program_pcc_rtt = {
    "pcc_rtt",
    "DOCA PCC reference RTT algorithm: rate by RTT band, CNP and NACK, additive increase, probe "
    "back-off, high-utilisation variant",
    QB_DPA_EVENT_BIT(QB_DPA_EV_FLOW_START) | QB_DPA_EVENT_BIT(QB_DPA_EV_CNP) |
        QB_DPA_EVENT_BIT(QB_DPA_EV_NACK) | QB_DPA_EVENT_BIT(QB_DPA_EV_RTT) |
        QB_DPA_EVENT_BIT(QB_DPA_EV_TX_SAMPLE) | QB_DPA_EVENT_BIT(QB_DPA_EV_TIMER),
    (uint32_t)sizeof(struct pcc_rtt_context),
    pcc_rtt_params,
    PCC_RTT_PARAM_COUNT,
    pcc_rtt_handle,
    QB_DPA_ROLE_SENDER,
};
