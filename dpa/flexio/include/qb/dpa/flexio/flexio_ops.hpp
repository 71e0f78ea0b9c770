// The FlexIO seam: every FlexIO SDK (and the one rdma-core) call the loader makes goes through
// FlexioOps, so the load order, the arguments and the teardown after a failure are tested
// without a DPA, against a fake that enforces the SDK's rules (fake_flexio.hpp). The production
// implementation (src/sdk_flexio_ops.cpp, built only when the SDK is found) calls the SDK's
// public API, one function per method.
//
// Unlike the verbs seam, the SDK is not installed where qosbench is usually built, so the
// attribute structs here are ours: each mirrors the fields of the SDK struct it stands for that
// the loader sets, and the production file copies them over field by field. The handles are the
// SDK's own opaque types (declared below exactly as flexio.h declares them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string_view>

#include "qb/common/result.hpp"

struct ibv_context;
struct ibv_pd;
struct flexio_app;
struct flexio_process;
struct flexio_event_handler;
struct flexio_thread;
struct flexio_cq;
struct flexio_outbox;
struct flexio_window;
struct flexio_msg_stream;

namespace qb::dpa::flexio {

/// flexio_status: the return code of every FlexIO call that creates, runs or destroys.
enum class FlexioStatus : int { success = 0, failed = 1, timeout = 2, fatal_error = 3 };
/// "FLEXIO_STATUS_FAILED", ...
const char* flexio_status_name(FlexioStatus status) noexcept;

/// flexio_func_t*: a device function registered with flexio_func_register.
using DeviceFunction = void (*)();
/// flexio_uintptr_t: an address on the DPA heap.
using DeviceAddress = uint64_t;
/// What the id getters (flexio_cq_get_cq_num, flexio_outbox_get_id, ...) return on error.
inline constexpr uint32_t kInvalidId = UINT32_MAX;
/// FLEXIO_MAX_NAME_LEN: the longest device function name flexio_func_register takes.
inline constexpr size_t kMaxNameLength = 256;

/// enum flexio_affinity_type with flexio_affinity.id: where a DPA thread may run.
enum class AffinityKind : uint8_t { none, strict, group };
struct Affinity {
  AffinityKind kind = AffinityKind::none;
  uint32_t id = 0;  // an execution unit (strict) or an EU group (group); 0 for none
};
const char* affinity_name(AffinityKind kind) noexcept;  // "NONE", "STRICT", "GROUP"

/// The flexio_msg_dev_level a device message stream passes on (off: no stream is made).
enum class MessageLevel : uint8_t { off, error, warn, info, debug };
const char* message_level_name(MessageLevel level) noexcept;  // "NO_PRINT", "ERROR", ...

/// flexio_app_attr: a named application from a DPA ELF image in host memory.
struct AppAttr {
  std::string_view name;
  std::span<const std::byte> elf;
};
/// flexio_process_attr (pd left NULL: the SDK makes the process its own PD).
struct ProcessAttr {
  bool enable_pcc = false;  // en_pcc: a process for programmable congestion control
};
/// flexio_event_handler_attr.
struct EventHandlerAttr {
  DeviceFunction function = nullptr;  // host_stub_func
  Affinity affinity;
};
/// flexio_cq_attr for a CQ whose element is a DPA thread (element_type
/// FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD): a completion on it wakes that thread's handler.
struct CqAttr {
  uint8_t log_depth = 0;              // log_cq_depth
  flexio_thread* thread = nullptr;    // flexio_event_handler_get_thread of the handler
  uint32_t uar_id = kInvalidId;       // the process's UAR, so the device can arm the CQ
  DeviceAddress ring = 0;             // cq_ring_qmem.daddr: 64-byte CQEs on the DPA heap
  DeviceAddress doorbell_record = 0;  // cq_dbr_daddr
};
/// flexio_outbox_attr.
struct OutboxAttr {
  bool enable_pcc = false;  // en_pcc: the outbox may ring congestion-control doorbells
};
/// flexio_msg_stream_attr_t, asynchronous mode (the host flushes).
struct MsgStreamAttr {
  std::string_view name;
  MessageLevel level = MessageLevel::info;
  size_t buffer_bytes = 0;  // data_bsize: a power of two, at least 2 KiB
};

/// Return conventions are the SDK's: FlexioStatus for creates, runs and destroys (the out
/// pointer is set only on success); the getters return nullptr, kInvalidId or -1 on error;
/// open_device is rdma-core's (nullptr with errno set), close_device returns 0 or an errno.
class FlexioOps {
 public:
  virtual ~FlexioOps() = default;

  // The RDMA device the process runs on (ibv_open_device / ibv_close_device).
  virtual ibv_context* open_device(std::string_view name) = 0;
  virtual int close_device(ibv_context* context) = 0;

  // The program: the application from its ELF image, its handler, the process that runs it.
  virtual FlexioStatus app_create(const AppAttr& attr, flexio_app** app) = 0;
  virtual FlexioStatus app_destroy(flexio_app* app) = 0;
  /// flexio_func_register; freed with the application (no destroy of its own).
  virtual FlexioStatus func_register(flexio_app* app, std::string_view name,
                                     DeviceFunction* function) = 0;
  virtual FlexioStatus process_create(ibv_context* context, flexio_app* app,
                                      const ProcessAttr& attr, flexio_process** process) = 0;
  virtual FlexioStatus process_destroy(flexio_process* process) = 0;
  /// flexio_uar_get_id(flexio_process_get_uar(process)).
  virtual uint32_t process_uar_id(flexio_process* process) = 0;
  /// flexio_process_get_pd.
  virtual ibv_pd* process_pd(flexio_process* process) = 0;
  /// flexio_err_status_get: 0 while the DPA side reported no unrecoverable error.
  virtual int process_error_status(flexio_process* process) = 0;

  // The DPA heap (flexio_copy_from_host allocates, flexio_buf_dev_free frees).
  virtual FlexioStatus copy_from_host(flexio_process* process, std::span<const std::byte> bytes,
                                      DeviceAddress* address) = 0;
  virtual FlexioStatus buf_dev_free(flexio_process* process, DeviceAddress address) = 0;

  // Event handlers: one DPA thread each.
  virtual FlexioStatus event_handler_create(flexio_process* process, const EventHandlerAttr& attr,
                                            flexio_event_handler** handler) = 0;
  virtual FlexioStatus event_handler_destroy(flexio_event_handler* handler) = 0;
  virtual flexio_thread* event_handler_thread(flexio_event_handler* handler) = 0;
  virtual FlexioStatus event_handler_run(flexio_event_handler* handler, uint64_t user_arg) = 0;

  // CQs bound to a handler's thread (ibv_ctx NULL: the process's device).
  virtual FlexioStatus cq_create(flexio_process* process, const CqAttr& attr, flexio_cq** cq) = 0;
  virtual FlexioStatus cq_destroy(flexio_cq* cq) = 0;
  virtual uint32_t cq_number(flexio_cq* cq) = 0;

  // Device access: the outbox (doorbells, incl. congestion control) and the window (host
  // memory through the process's PD).
  virtual FlexioStatus outbox_create(flexio_process* process, const OutboxAttr& attr,
                                     flexio_outbox** outbox) = 0;
  virtual FlexioStatus outbox_destroy(flexio_outbox* outbox) = 0;
  virtual uint32_t outbox_id(flexio_outbox* outbox) = 0;
  virtual FlexioStatus window_create(flexio_process* process, ibv_pd* pd,
                                     flexio_window** window) = 0;
  virtual FlexioStatus window_destroy(flexio_window* window) = 0;
  virtual uint32_t window_id(flexio_window* window) = 0;

  // Device printf (flexio_dev_msg) reaches the host through a message stream.
  virtual FlexioStatus msg_stream_create(flexio_process* process, const MsgStreamAttr& attr,
                                         std::FILE* out, flexio_msg_stream** stream) = 0;
  virtual FlexioStatus msg_stream_flush(flexio_msg_stream* stream) = 0;
  virtual FlexioStatus msg_stream_destroy(flexio_msg_stream* stream) = 0;
  virtual int msg_stream_id(flexio_msg_stream* stream) = 0;

  /// Named in the errors: "flexio-sdk", "fake".
  virtual std::string_view provider_name() const noexcept = 0;
};

/// FlexioOps over the FlexIO SDK (libflexio), or why this build has none (Errc::unavailable:
/// the SDK was not found at configure time).
Result<std::unique_ptr<FlexioOps>> make_sdk_flexio_ops();

}  // namespace qb::dpa::flexio
