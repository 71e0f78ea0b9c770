/* The device API a qosbench DPA program is written against (docs/dpa.md).
 *
 * A program is plain C11 with no dynamic memory, no floating point and no library calls, so
 * the same source is meant for the DPA compiler. Its runtime (the emulator inside the
 * simulator, or FlexIO on a real DPA) calls its handler once per event with the flow's context
 * (a fixed-size block it owns, zeroed when the flow starts), the parameter block the suite set,
 * and an action block to fill. The runtime applies the actions when the handler returns.
 *
 * Rates are 20-bit fixed point of the port's line rate, as DOCA PCC writes them:
 * QB_DPA_RATE_LINE (1 << 20) is line rate. Times are nanoseconds. Fractions in parameters are
 * 20-bit fixed point too (QB_DPA_FRACTION_ONE is 1.0).
 */
#ifndef QB_DPA_DEVICE_API_H
#define QB_DPA_DEVICE_API_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QB_DPA_RATE_LINE (UINT32_C(1) << 20)
#define QB_DPA_FRACTION_ONE (INT64_C(1) << 20)
/* Bytes of per-flow context a program may use. */
#define QB_DPA_FLOW_CONTEXT_BYTES 64u
/* Parameters a program may declare. */
#define QB_DPA_MAX_PARAMS 32u
#define QB_DPA_NO_FLOW UINT32_MAX

/* Events in. Each kind's fields are listed; the others are zero. */
enum qb_dpa_event_kind {
  /* The flow's first message was posted: a congestion-control program sets its start rate. */
  QB_DPA_EV_FLOW_START = 0,
  /* A packet of the flow started on the NIC's link: bytes (wire bytes). */
  QB_DPA_EV_TX = 1,
  /* A message's ACK reached the sender: bytes (its payload), rtt_ns (first byte on the wire to
   * the ACK). */
  QB_DPA_EV_ACK = 2,
  /* The receiver asked for a retransmission (lossy fabric: a packet was dropped). */
  QB_DPA_EV_NACK = 3,
  /* A congestion notification packet for the flow reached the sender. */
  QB_DPA_EV_CNP = 4,
  /* The answer to the flow's RTT probe came back: probe_sent_ns (left the sender),
   * probe_answered_ns (the receiver answered), now_ns (back at the sender); rtt_ns is the
   * difference now_ns - probe_sent_ns. */
  QB_DPA_EV_RTT = 5,
  /* Periodic sample of the sender port's Tx byte counter: tx_bytes (cumulative wire bytes),
   * port_utilisation (fixed point of line rate over the last sample interval). */
  QB_DPA_EV_TX_SAMPLE = 6,
  /* The flow's timer (QB_DPA_ACT_SET_TIMER) went off. */
  QB_DPA_EV_TIMER = 7,
  /* Receiver side: an RTT probe of the flow arrived; answering it is QB_DPA_ACT_ANSWER_PROBE.
   * probe_sent_ns is when it left the sender. */
  QB_DPA_EV_PROBE = 8,
  QB_DPA_EV_KINDS = 9
};

#define QB_DPA_EVENT_BIT(kind) (UINT32_C(1) << (kind))

struct qb_dpa_event {
  uint32_t kind; /* enum qb_dpa_event_kind */
  uint32_t flow; /* the flow's index in the run */
  uint64_t now_ns; /* when the handler runs (the event's time plus any wait for a DPA thread) */
  uint32_t bytes;
  uint32_t port_utilisation; /* latest Tx sample, fixed point of line rate (0 before one) */
  uint64_t rtt_ns;
  uint64_t probe_sent_ns;
  uint64_t probe_answered_ns;
  uint64_t tx_bytes;
};

/* Actions out: the handler sets the bits of what it does in `flags` and the fields they use. */
enum qb_dpa_action_flag {
  /* Limit the flow to `rate` (fixed point of line rate; the runtime clamps it to
   * [QB_DPA_RATE_MIN, QB_DPA_RATE_LINE] and counts a clamp). */
  QB_DPA_ACT_SET_RATE = 1u << 0,
  /* Send an RTT probe for the flow now (ignored while one is outstanding). */
  QB_DPA_ACT_REQUEST_RTT = 1u << 1,
  /* A QB_DPA_EV_TIMER for the flow `timer_delay_ns` from now, replacing its pending one. */
  QB_DPA_ACT_SET_TIMER = 1u << 2,
  QB_DPA_ACT_CANCEL_TIMER = 1u << 3,
  /* Receiver side: answer the RTT probe of this QB_DPA_EV_PROBE event. */
  QB_DPA_ACT_ANSWER_PROBE = 1u << 4
};

/* The smallest rate the runtime programs (DOCA PCC's minimum, 1 << 6). */
#define QB_DPA_RATE_MIN (UINT32_C(1) << 6)

struct qb_dpa_actions {
  uint32_t flags; /* enum qb_dpa_action_flag bits */
  uint32_t rate;
  uint64_t timer_delay_ns;
};

/* How the suite writes a parameter's value (the loader converts it to the int64 the program
 * reads). */
enum qb_dpa_param_kind {
  QB_DPA_PARAM_INTEGER = 0,  /* a plain integer */
  QB_DPA_PARAM_FRACTION = 1, /* a number in [min, max]/2^20, stored as 20-bit fixed point */
  QB_DPA_PARAM_TIME_NS = 2,  /* a duration ("13us"), stored in nanoseconds */
  QB_DPA_PARAM_BYTES = 3,    /* a size ("64KiB"), stored in bytes */
  QB_DPA_PARAM_RATE_MBPS = 4 /* a rate ("5Mbps"), stored in Mbit/s */
};

struct qb_dpa_param_spec {
  const char* name;
  uint32_t kind; /* enum qb_dpa_param_kind */
  int64_t default_value;
  int64_t min_value;
  int64_t max_value;
  const char* doc; /* one line: what it is and where the default comes from */
};

/* The flow's context and the parameter block, as the handler sees them. */
struct qb_dpa_flow {
  void* context; /* QB_DPA_FLOW_CONTEXT_BYTES, zeroed before the flow's first event */
  const int64_t* params; /* in the order of the program's param specs */
  uint64_t line_rate_mbps; /* the sender port's line rate (QB_DPA_RATE_LINE), for rate params */
};

typedef void (*qb_dpa_handler)(const struct qb_dpa_event* event, struct qb_dpa_flow flow,
                               struct qb_dpa_actions* actions);

/* Which NIC's DPA a program is written for: the senders' (congestion control: [dpa] program)
 * or the receiver's (e.g. answering probes: receiver_program). A suite that puts a program on
 * the other side is refused. */
enum qb_dpa_role {
  QB_DPA_ROLE_NONE = 0, /* declares none: no suite can use it */
  QB_DPA_ROLE_SENDER = 1,
  QB_DPA_ROLE_RECEIVER = 2
};

struct qb_dpa_program {
  const char* name;
  const char* summary;
  uint32_t event_mask;    /* QB_DPA_EVENT_BIT of every kind the handler wants */
  uint32_t context_bytes; /* <= QB_DPA_FLOW_CONTEXT_BYTES */
  const struct qb_dpa_param_spec* params;
  uint32_t param_count; /* <= QB_DPA_MAX_PARAMS */
  qb_dpa_handler handle;
  uint32_t role; /* enum qb_dpa_role; last, so the other fields keep their places */
};

#ifdef __cplusplus
}
#endif

#endif /* QB_DPA_DEVICE_API_H */
