/* What the host tells each DPA thread (qb/dpa/flexio/flexio_loader.hpp): the loader copies one
 * of these per thread to the DPA heap and passes its address as the handler's user argument
 * (flexio_event_handler_run). The device side reads it to poll and re-arm its CQ, configure its
 * outbox and window, and print to the message stream. Plain C11, shared by host and device. */
#ifndef QB_DPA_FLEXIO_THREAD_ARGS_H
#define QB_DPA_FLEXIO_THREAD_ARGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QB_FLEXIO_THREAD_ARGS_VERSION 1u
#define QB_FLEXIO_NO_ID UINT32_MAX

struct qb_flexio_thread_args {
  uint32_t version;        /* QB_FLEXIO_THREAD_ARGS_VERSION */
  uint32_t thread_index;   /* 0 .. thread_count - 1 */
  uint32_t thread_count;
  uint32_t cq_number;      /* flexio_cq_get_cq_num of this thread's CQ */
  uint32_t cq_log_depth;
  uint32_t outbox_id;      /* flexio_outbox_get_id: flexio_dev_outbox_config */
  uint32_t window_id;      /* flexio_window_get_id: flexio_dev_window_config */
  uint32_t msg_stream_id;  /* flexio_msg_stream_get_id, QB_FLEXIO_NO_ID without a stream */
  uint64_t cq_ring_daddr;  /* the CQ's 64-byte CQEs on the DPA heap */
  uint64_t cq_dbr_daddr;   /* its doorbell record */
};

#ifdef __cplusplus
}
#endif

#endif /* QB_DPA_FLEXIO_THREAD_ARGS_H */
