/* dcqcn: the DCQCN reaction point (Zhu et al., "Congestion Control for Large-Scale RDMA
 * Deployments", SIGCOMM 2015) with NVIDIA mlx5's parameter names and firmware defaults
 * (docs/dpa.md, "dcqcn"). The sender-side half: the switch marks, the receiver sends CNPs.
 *
 * - A CNP cuts the rate: target <- rate (always with clamp_tgt_rate; by default only if the timer
 *   raised the rate since the last cut), rate <- rate x (1 - alpha / 2^(rpg_gd-10)) (alpha/2 at
 *   rpg_gd 11), never below rpg_min_dec_fac % of the old rate nor rpg_min_rate; then
 *   alpha <- (1-g) alpha + g. At most one cut per rate_reduce_monitor_period; a CNP inside it
 *   only raises alpha. The first CNP sets alpha to initial_alpha_value instead of raising it, and
 *   rate and target to rate_to_set_on_first_cnp if that is set.
 * - No CNP for dce_tcp_rtt: alpha <- (1-g) alpha, again every dce_tcp_rtt while alpha > 0.
 * - Rate increase events, counted from the last cut: one per rpg_time_reset (the time stage T)
 *   and one per rpg_byte_reset bytes sent (the byte stage B; TX wire bytes, 0 disables). While
 *   max(T, B) <= rpg_threshold: fast recovery, rate <- (rate + target) / 2. Once one stage passes
 *   the threshold: additive increase, target += rpg_ai_rate; once both have: hyper increase,
 *   target += rpg_hai_rate; then rate <- (rate + target) / 2. Back at line rate the flow is no
 *   longer limited and the increase timer stops.
 * Both timers share the flow's one timer: their due times live in the context and the runtime's
 * timer is set for the earlier.
 *
 * Plain C11: no floating point, no library calls, no dynamic memory; all state in the context.
 */
#include "qb_dpa/device_api.h"

enum dcqcn_param {
  DCQCN_RPG_TIME_RESET = 0,
  DCQCN_RPG_BYTE_RESET = 1,
  DCQCN_RPG_THRESHOLD = 2,
  DCQCN_RPG_AI_RATE = 3,
  DCQCN_RPG_HAI_RATE = 4,
  DCQCN_RPG_GD = 5,
  DCQCN_RPG_MIN_DEC_FAC = 6,
  DCQCN_RPG_MIN_RATE = 7,
  DCQCN_RATE_TO_SET_ON_FIRST_CNP = 8,
  DCQCN_DCE_TCP_G = 9,
  DCQCN_DCE_TCP_RTT = 10,
  DCQCN_INITIAL_ALPHA_VALUE = 11,
  DCQCN_CLAMP_TGT_RATE = 12,
  DCQCN_CLAMP_TGT_RATE_AFTER_TIME_INC = 13,
  DCQCN_RATE_REDUCE_MONITOR_PERIOD = 14,
  DCQCN_PARAM_COUNT = 15
};

/* 10 Tbit/s: no port is faster, and Mbit/s x 2^20 stays below 2^44. */
#define DCQCN_MAX_RATE_MBPS INT64_C(10000000)
#define DCQCN_MAX_TIME_NS INT64_C(1000000000)
/* NVIDIA writes alpha and g as fractions of 2^10; the program keeps 20-bit fixed point. */
#define DCQCN_NVIDIA_FRACTION_BITS 10

static const struct qb_dpa_param_spec dcqcn_params[DCQCN_PARAM_COUNT] = {
    {"rpg_time_reset", QB_DPA_PARAM_TIME_NS, 300000, 1000, DCQCN_MAX_TIME_NS,
     "time between rate increases without a CNP; 300us is NVIDIA's firmware default "
     "(RPG_TIME_RESET); HPCC ns-3 uses 900us (mix/config.txt RP_TIMER)"},
    {"rpg_byte_reset", QB_DPA_PARAM_BYTES, 32767, 0, INT64_C(0x7fffffff),
     "bytes sent (TX wire bytes) between rate increases without a CNP, 0 disables; 32767 is "
     "NVIDIA's firmware default (RPG_BYTE_RESET); HPCC ns-3 has no byte counter"},
    {"rpg_threshold", QB_DPA_PARAM_INTEGER, 1, 1, 31,
     "increase events (per stage counter) of fast recovery before additive/hyper increase; 1 is "
     "NVIDIA's firmware default (RPG_THRESHOLD), as HPCC ns-3's mix/config.txt "
     "FAST_RECOVERY_TIMES"},
    {"rpg_ai_rate", QB_DPA_PARAM_RATE_MBPS, 5, 0, DCQCN_MAX_RATE_MBPS,
     "additive-increase step of the target rate; 5 Mbit/s is NVIDIA's firmware default "
     "(RPG_AI_RATE); HPCC ns-3 uses 50Mb/s (mix/config.txt RATE_AI)"},
    {"rpg_hai_rate", QB_DPA_PARAM_RATE_MBPS, 50, 0, DCQCN_MAX_RATE_MBPS,
     "hyper-increase step of the target rate; 50 Mbit/s is NVIDIA's firmware default "
     "(RPG_HAI_RATE); HPCC ns-3 uses 100Mb/s (mix/config.txt RATE_HAI)"},
    {"rpg_gd", QB_DPA_PARAM_INTEGER, 11, 10, 30,
     "a cut is rate x alpha / 2^(rpg_gd-10) (alpha in [0,1]): 11 gives DCQCN's alpha/2; 11 is "
     "NVIDIA's firmware default (RPG_GD)"},
    {"rpg_min_dec_fac", QB_DPA_PARAM_INTEGER, 50, 0, 100,
     "a cut keeps at least this percentage of the rate; 50 is NVIDIA's firmware default "
     "(RPG_MIN_DEC_FAC)"},
    {"rpg_min_rate", QB_DPA_PARAM_RATE_MBPS, 1, 0, DCQCN_MAX_RATE_MBPS,
     "the lowest rate (never below the device minimum 2^-14 of line rate); 1 Mbit/s is "
     "NVIDIA's firmware default (RPG_MIN_RATE); HPCC ns-3 uses 100Mb/s (MIN_RATE)"},
    {"rate_to_set_on_first_cnp", QB_DPA_PARAM_RATE_MBPS, 0, 0, DCQCN_MAX_RATE_MBPS,
     "rate and target on the flow's first CNP, 0: cut from the current rate; 0 is NVIDIA's "
     "firmware default (RATE_TO_SET_ON_FIRST_CNP); HPCC ns-3 keeps the rate (RateOnFirstCnp 1.0)"},
    {"dce_tcp_g", QB_DPA_PARAM_INTEGER, 1019, 0, 1023,
     "alpha's EWMA as NVIDIA writes it: g = (1024 - dce_tcp_g)/1024, so 1019 is g = 5/1024; "
     "1019 is NVIDIA's firmware default (DCE_TCP_G); HPCC ns-3 uses g = 1/256 (EWMA_GAIN)"},
    {"dce_tcp_rtt", QB_DPA_PARAM_TIME_NS, 1000, 1000, INT64_C(131071000),
     "alpha decays by (1-g) per this period without a CNP; 1us is NVIDIA's firmware default "
     "(DCE_TCP_RTT), as HPCC ns-3's mix/config.txt ALPHA_RESUME_INTERVAL"},
    {"initial_alpha_value", QB_DPA_PARAM_INTEGER, 1023, 1, 1023,
     "alpha on the flow's first CNP, in 1/1024; 1023 is NVIDIA's firmware default "
     "(INITIAL_ALPHA_VALUE); HPCC ns-3 uses 1"},
    {"clamp_tgt_rate", QB_DPA_PARAM_INTEGER, 0, 0, 1,
     "1: every cut sets target <- rate (the paper's rule); 0 is NVIDIA's firmware default "
     "(CLAMP_TGT_RATE), as HPCC ns-3's CLAMP_TARGET_RATE"},
    {"clamp_tgt_rate_after_time_inc", QB_DPA_PARAM_INTEGER, 1, 0, 1,
     "1: a cut sets target <- rate if the timer raised the rate since the last cut; 1 is "
     "NVIDIA's firmware default (CLAMP_TGT_RATE_AFTER_TIME_INC), as HPCC ns-3 does"},
    {"rate_reduce_monitor_period", QB_DPA_PARAM_TIME_NS, 4000, 0, DCQCN_MAX_TIME_NS,
     "at most one cut per this period (later CNPs in it only raise alpha); 4us is NVIDIA's "
     "firmware default (RATE_REDUCE_MONITOR_PERIOD), as HPCC ns-3's RATE_DECREASE_INTERVAL"},
};

struct dcqcn_context {
  uint64_t alpha_due_ns;       /* next alpha decay, 0: off (alpha is 0 or no CNP yet) */
  uint64_t increase_due_ns;    /* next timer-driven increase, 0: off (not rate limited) */
  uint64_t timer_due_ns;       /* what the runtime's timer is set for, 0: none */
  uint64_t last_cut_ns;        /* the last rate cut */
  uint64_t bytes_toward_stage; /* TX wire bytes since the last byte-counter stage */
  uint32_t rate;               /* 20-bit fixed point of line rate */
  uint32_t target_rate;        /* 20-bit fixed point of line rate */
  uint32_t alpha;              /* 20-bit fixed point, [0, 1] */
  uint16_t time_stage;         /* timer increase events since the last cut */
  uint16_t byte_stage;         /* byte-counter increase events since the last cut */
  uint8_t rate_limited;        /* below line rate (or target below it) since a cut */
  uint8_t had_cnp;             /* the flow's first CNP has been handled */
};

_Static_assert(sizeof(struct dcqcn_context) <= QB_DPA_FLOW_CONTEXT_BYTES,
               "dcqcn's state must fit the flow context");

static uint32_t dcqcn_rate_from_mbps(int64_t mbps, uint64_t line_rate_mbps) {
  if (line_rate_mbps == 0 || mbps < 0) {
    return QB_DPA_RATE_LINE; /* no port speed known: nothing to scale by */
  }
  const uint64_t rate = ((uint64_t)mbps << 20) / line_rate_mbps;
  return rate > QB_DPA_RATE_LINE ? QB_DPA_RATE_LINE : (uint32_t)rate;
}

static uint32_t dcqcn_min_rate(const int64_t* params, uint64_t line_rate_mbps) {
  const uint32_t rate = dcqcn_rate_from_mbps(params[DCQCN_RPG_MIN_RATE], line_rate_mbps);
  return rate < QB_DPA_RATE_MIN ? QB_DPA_RATE_MIN : rate;
}

/* g in 20-bit fixed point, from NVIDIA's dce_tcp_g. */
static int64_t dcqcn_gain(const int64_t* params) {
  return (INT64_C(1024) - params[DCQCN_DCE_TCP_G]) << (20 - DCQCN_NVIDIA_FRACTION_BITS);
}

static void dcqcn_decay_alpha(struct dcqcn_context* context, const int64_t* params) {
  const int64_t keep = QB_DPA_FRACTION_ONE - dcqcn_gain(params);
  context->alpha = (uint32_t)(((int64_t)context->alpha * keep) >> 20);
}

static void dcqcn_raise_alpha(struct dcqcn_context* context, const int64_t* params) {
  dcqcn_decay_alpha(context, params);
  context->alpha += (uint32_t)dcqcn_gain(params);
}

static void dcqcn_set_rate(struct dcqcn_context* context, uint32_t rate,
                           struct qb_dpa_actions* actions) {
  context->rate = rate;
  actions->flags |= QB_DPA_ACT_SET_RATE;
  actions->rate = rate;
}

/* A cut (or the first CNP's set rate) starts a new recovery: stages, byte counter and the
 * increase timer start over. */
static void dcqcn_start_recovery(struct dcqcn_context* context, uint64_t now_ns,
                                 const int64_t* params) {
  context->time_stage = 0;
  context->byte_stage = 0;
  context->bytes_toward_stage = 0;
  context->last_cut_ns = now_ns;
  context->rate_limited = 1;
  context->increase_due_ns = now_ns + (uint64_t)params[DCQCN_RPG_TIME_RESET];
}

static void dcqcn_cut_rate(struct dcqcn_context* context, uint64_t now_ns, const int64_t* params,
                           uint64_t line_rate_mbps, struct qb_dpa_actions* actions) {
  const int64_t rate = context->rate;
  const int64_t cut = (int64_t)context->alpha >> (params[DCQCN_RPG_GD] - 10);
  int64_t next_rate = rate - ((rate * cut) >> 20);
  const int64_t kept = rate * params[DCQCN_RPG_MIN_DEC_FAC] / 100;
  const int64_t min_rate = dcqcn_min_rate(params, line_rate_mbps);
  if (next_rate < kept) {
    next_rate = kept;
  }
  if (next_rate < min_rate) {
    next_rate = min_rate;
  }
  dcqcn_set_rate(context, (uint32_t)next_rate, actions);
  dcqcn_start_recovery(context, now_ns, params);
}

static void dcqcn_on_first_cnp(struct dcqcn_context* context, uint64_t now_ns,
                               const int64_t* params, uint64_t line_rate_mbps,
                               struct qb_dpa_actions* actions) {
  context->had_cnp = 1;
  context->alpha =
      (uint32_t)(params[DCQCN_INITIAL_ALPHA_VALUE] << (20 - DCQCN_NVIDIA_FRACTION_BITS));
  if (params[DCQCN_RATE_TO_SET_ON_FIRST_CNP] > 0) {
    const uint32_t min_rate = dcqcn_min_rate(params, line_rate_mbps);
    uint32_t rate = dcqcn_rate_from_mbps(params[DCQCN_RATE_TO_SET_ON_FIRST_CNP], line_rate_mbps);
    if (rate < min_rate) {
      rate = min_rate;
    }
    context->target_rate = rate;
    dcqcn_set_rate(context, rate, actions);
    dcqcn_start_recovery(context, now_ns, params);
    return;
  }
  context->target_rate = context->rate;
  dcqcn_cut_rate(context, now_ns, params, line_rate_mbps, actions);
}

static void dcqcn_on_cnp(struct dcqcn_context* context, uint64_t now_ns, const int64_t* params,
                         uint64_t line_rate_mbps, struct qb_dpa_actions* actions) {
  context->alpha_due_ns = now_ns + (uint64_t)params[DCQCN_DCE_TCP_RTT];
  if (!context->had_cnp) {
    dcqcn_on_first_cnp(context, now_ns, params, line_rate_mbps, actions);
    return;
  }
  if (now_ns - context->last_cut_ns >= (uint64_t)params[DCQCN_RATE_REDUCE_MONITOR_PERIOD]) {
    const int clamp = params[DCQCN_CLAMP_TGT_RATE] != 0 ||
                      (params[DCQCN_CLAMP_TGT_RATE_AFTER_TIME_INC] != 0 && context->time_stage > 0);
    if (clamp) {
      context->target_rate = context->rate;
    }
    dcqcn_cut_rate(context, now_ns, params, line_rate_mbps, actions);
  }
  /* The cut used the alpha from before this CNP (the paper's order). */
  dcqcn_raise_alpha(context, params);
}

/* One rate-increase event (its stage already counted). */
static void dcqcn_increase(struct dcqcn_context* context, const int64_t* params,
                           uint64_t line_rate_mbps, struct qb_dpa_actions* actions) {
  const uint32_t threshold = (uint32_t)params[DCQCN_RPG_THRESHOLD];
  const uint32_t time_stage = context->time_stage;
  const uint32_t byte_stage = context->byte_stage;
  const int byte_counter_on = params[DCQCN_RPG_BYTE_RESET] > 0;
  const uint32_t leading = byte_counter_on && byte_stage > time_stage ? byte_stage : time_stage;
  /* A disabled byte counter never passes the threshold: no hyper increase without it. */
  const uint32_t trailing = !byte_counter_on          ? 0
                            : byte_stage < time_stage ? byte_stage
                                                      : time_stage;
  if (leading > threshold) {
    const int64_t step_mbps =
        trailing > threshold ? params[DCQCN_RPG_HAI_RATE] : params[DCQCN_RPG_AI_RATE];
    uint64_t target =
        (uint64_t)context->target_rate + dcqcn_rate_from_mbps(step_mbps, line_rate_mbps);
    context->target_rate = target > QB_DPA_RATE_LINE ? QB_DPA_RATE_LINE : (uint32_t)target;
  }
  /* Halfway to the target, rounded up so that the rate reaches the target. */
  const uint32_t rate = (uint32_t)(((uint64_t)context->rate + context->target_rate + 1) >> 1);
  dcqcn_set_rate(context, rate, actions);
  if (rate >= QB_DPA_RATE_LINE && context->target_rate >= QB_DPA_RATE_LINE) {
    context->rate_limited = 0; /* back at line rate: nothing left to recover */
    context->increase_due_ns = 0;
    context->bytes_toward_stage = 0;
  }
}

static uint16_t dcqcn_next_stage(uint16_t stage) {
  return stage == UINT16_MAX ? stage : (uint16_t)(stage + 1);
}

static void dcqcn_on_tx(struct dcqcn_context* context, uint32_t bytes, const int64_t* params,
                        uint64_t line_rate_mbps, struct qb_dpa_actions* actions) {
  const uint64_t byte_reset = (uint64_t)params[DCQCN_RPG_BYTE_RESET];
  if (!context->rate_limited || byte_reset == 0) {
    return;
  }
  context->bytes_toward_stage += bytes;
  if (context->bytes_toward_stage < byte_reset) {
    return;
  }
  /* At most one stage per packet; the remainder counts toward the next. */
  context->bytes_toward_stage %= byte_reset;
  context->byte_stage = dcqcn_next_stage(context->byte_stage);
  dcqcn_increase(context, params, line_rate_mbps, actions);
}

static void dcqcn_on_timer(struct dcqcn_context* context, uint64_t now_ns, const int64_t* params,
                           uint64_t line_rate_mbps, struct qb_dpa_actions* actions) {
  context->timer_due_ns = 0; /* this was it */
  if (context->alpha_due_ns != 0 && now_ns >= context->alpha_due_ns) {
    dcqcn_decay_alpha(context, params);
    context->alpha_due_ns = context->alpha != 0 ? now_ns + (uint64_t)params[DCQCN_DCE_TCP_RTT] : 0;
  }
  if (context->increase_due_ns != 0 && now_ns >= context->increase_due_ns) {
    context->increase_due_ns = now_ns + (uint64_t)params[DCQCN_RPG_TIME_RESET];
    context->time_stage = dcqcn_next_stage(context->time_stage);
    dcqcn_increase(context, params, line_rate_mbps, actions); /* may stop the timer */
  }
}

/* The runtime's one timer goes off at the earlier of the two due times. */
static void dcqcn_schedule_timer(struct dcqcn_context* context, uint64_t now_ns,
                                 struct qb_dpa_actions* actions) {
  uint64_t earliest = context->alpha_due_ns;
  if (context->increase_due_ns != 0 && (earliest == 0 || context->increase_due_ns < earliest)) {
    earliest = context->increase_due_ns;
  }
  if (earliest == context->timer_due_ns) {
    return;
  }
  context->timer_due_ns = earliest;
  if (earliest == 0) {
    actions->flags |= QB_DPA_ACT_CANCEL_TIMER;
    return;
  }
  actions->flags |= QB_DPA_ACT_SET_TIMER;
  actions->timer_delay_ns = earliest > now_ns ? earliest - now_ns : 0;
}

static void dcqcn_handle(const struct qb_dpa_event* event, struct qb_dpa_flow flow,
                         struct qb_dpa_actions* actions) {
  struct dcqcn_context* context = (struct dcqcn_context*)flow.context;
  const int64_t* params = flow.params;
  switch (event->kind) {
    case QB_DPA_EV_FLOW_START:
      context->target_rate = QB_DPA_RATE_LINE;
      dcqcn_set_rate(context, QB_DPA_RATE_LINE, actions);
      break;
    case QB_DPA_EV_TX:
      dcqcn_on_tx(context, event->bytes, params, flow.line_rate_mbps, actions);
      break;
    case QB_DPA_EV_CNP:
      dcqcn_on_cnp(context, event->now_ns, params, flow.line_rate_mbps, actions);
      break;
    case QB_DPA_EV_TIMER:
      dcqcn_on_timer(context, event->now_ns, params, flow.line_rate_mbps, actions);
      break;
    default:
      break;
  }
  dcqcn_schedule_timer(context, event->now_ns, actions);
}

const struct qb_dpa_program qb_dpa_program_dcqcn = {
    "dcqcn",
    "DCQCN reaction point (Zhu et al. 2015) with NVIDIA mlx5 parameters: CNP cuts with alpha, "
    "fast recovery, additive and hyper increase by timer and byte counter",
    QB_DPA_EVENT_BIT(QB_DPA_EV_FLOW_START) | QB_DPA_EVENT_BIT(QB_DPA_EV_TX) |
        QB_DPA_EVENT_BIT(QB_DPA_EV_CNP) | QB_DPA_EVENT_BIT(QB_DPA_EV_TIMER),
    (uint32_t)sizeof(struct dcqcn_context),
    dcqcn_params,
    DCQCN_PARAM_COUNT,
    dcqcn_handle,
    QB_DPA_ROLE_SENDER,
};
