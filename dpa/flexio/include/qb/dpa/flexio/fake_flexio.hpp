// A fake FlexIO SDK behind the seam, for tests (no DPA here): it records every call with its
// arguments, counts live objects, fails any call on demand, and enforces the rules the SDK and
// the hardware impose on a host program:
//
// - A handle is used only while alive, and with the process it was made on; a destroyed or
//   unknown handle is FLEXIO_STATUS_FAILED (getters: NULL / UINT32_MAX / -1) and a violation.
// - ibv_open_device knows only the configured device (ENODEV); ibv_close_device is EBUSY while
//   a process runs on it.
// - flexio_app_create takes an ELF image (the magic) and a name; flexio_func_register a live
//   app and a name of 1..FLEXIO_MAX_NAME_LEN bytes found in the image as a symbol string.
// - flexio_process_create needs a live device context and app. flexio_process_destroy comes
//   last: FAILED while a handler, CQ, outbox, window or stream of it is alive; heap buffers it
//   still holds are freed with it but reported (the loader frees what it allocates).
//   flexio_app_destroy is FAILED while a process of it is alive.
// - flexio_event_handler_create needs a live process and a function registered on its app;
//   affinity NONE has id 0, STRICT an execution unit < execution_units, GROUP a group <
//   eu_groups.
// - flexio_cq_create needs the thread of a live handler of the same process, the process's UAR
//   id, a ring of at least 64 << log_depth bytes and a doorbell record of at least 8 bytes, both
//   live heap buffers of the process.
// - flexio_event_handler_run: a live handler, not yet running, with a live CQ bound to its
//   thread (model choice: without one nothing could ever wake it, so it is a caller bug).
//   flexio_event_handler_destroy is FAILED while a CQ bound to its thread is alive (the CQ
//   holds the thread).
// - flexio_window_create takes the process's PD (model choice: the fake makes no other PDs).
// - flexio_msg_stream_create: a level NO_PRINT..DEBUG, a buffer that is a power of two of at
//   least 2 KiB, an output FILE, at most 255 streams per process.
// - flexio_copy_from_host allocates from a DPA heap of heap_bytes; flexio_buf_dev_free takes a
//   live allocation of the process (0 is a no-op, as the SDK documents).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qb/dpa/flexio/flexio_ops.hpp"

namespace qb::dpa::flexio {

struct FakeFlexioConfig {
  std::string device_name = "mlx5_0";
  size_t heap_bytes = size_t{1} << 20;  // DPA heap per process
  uint32_t execution_units = 254;       // USER_EUS_LIMIT: 16 cores x 16 EUs, 2 for the OS
  uint32_t eu_groups = 16;
  /// What flexio_err_status_get answers once a handler of the process ran (0: no error).
  int device_error_after_run = 0;
};

/// Counts of what the fake holds, by kind.
struct FakeFlexioLive {
  uint32_t contexts = 0, apps = 0, processes = 0, handlers = 0, cqs = 0, outboxes = 0, windows = 0,
           streams = 0, heap_buffers = 0;
  uint32_t total() const noexcept {
    return contexts + apps + processes + handlers + cqs + outboxes + windows + streams +
           heap_buffers;
  }
  std::string describe() const;
};

class FakeFlexio final : public FlexioOps {
 public:
  explicit FakeFlexio(FakeFlexioConfig config = {});
  ~FakeFlexio() override;
  FakeFlexio(const FakeFlexio&) = delete;
  FakeFlexio& operator=(const FakeFlexio&) = delete;

  /// Every call in order, named as the SDK names it, e.g.
  /// "flexio_cq_create(process#3, log_depth=7, element=DPA_THREAD, thread=thread#5, ...) =
  /// cq#8"; a refused call ends "-> FLEXIO_STATUS_FAILED (why)", an injected failure
  /// "-> injected FLEXIO_STATUS_FAILED".
  const std::vector<std::string>& calls() const noexcept;
  /// Caller bugs the SDK might not report: use after destroy, double free, leaked buffers.
  const std::vector<std::string>& violations() const noexcept;
  FakeFlexioLive live() const noexcept;
  /// Call number `call` (1-based, as counted in calls()) fails: creates, runs and destroys
  /// return `status` (and make or destroy nothing), getters their error value,
  /// ibv_open_device NULL with errno EIO, ibv_close_device EIO.
  void fail_call(uint32_t call, FlexioStatus status = FlexioStatus::failed) noexcept;
  /// The bytes at a live heap buffer's address (empty when there is none): what the device
  /// would read.
  std::vector<std::byte> heap_bytes(DeviceAddress address) const;
  /// Handlers running now.
  uint32_t running_handlers() const noexcept;

  // FlexioOps
  ibv_context* open_device(std::string_view name) override;
  int close_device(ibv_context* context) override;
  FlexioStatus app_create(const AppAttr& attr, flexio_app** app) override;
  FlexioStatus app_destroy(flexio_app* app) override;
  FlexioStatus func_register(flexio_app* app, std::string_view name,
                             DeviceFunction* function) override;
  FlexioStatus process_create(ibv_context* context, flexio_app* app, const ProcessAttr& attr,
                              flexio_process** process) override;
  FlexioStatus process_destroy(flexio_process* process) override;
  uint32_t process_uar_id(flexio_process* process) override;
  ibv_pd* process_pd(flexio_process* process) override;
  int process_error_status(flexio_process* process) override;
  FlexioStatus copy_from_host(flexio_process* process, std::span<const std::byte> bytes,
                              DeviceAddress* address) override;
  FlexioStatus buf_dev_free(flexio_process* process, DeviceAddress address) override;
  FlexioStatus event_handler_create(flexio_process* process, const EventHandlerAttr& attr,
                                    flexio_event_handler** handler) override;
  FlexioStatus event_handler_destroy(flexio_event_handler* handler) override;
  flexio_thread* event_handler_thread(flexio_event_handler* handler) override;
  FlexioStatus event_handler_run(flexio_event_handler* handler, uint64_t user_arg) override;
  FlexioStatus cq_create(flexio_process* process, const CqAttr& attr, flexio_cq** cq) override;
  FlexioStatus cq_destroy(flexio_cq* cq) override;
  uint32_t cq_number(flexio_cq* cq) override;
  FlexioStatus outbox_create(flexio_process* process, const OutboxAttr& attr,
                             flexio_outbox** outbox) override;
  FlexioStatus outbox_destroy(flexio_outbox* outbox) override;
  uint32_t outbox_id(flexio_outbox* outbox) override;
  FlexioStatus window_create(flexio_process* process, ibv_pd* pd, flexio_window** window) override;
  FlexioStatus window_destroy(flexio_window* window) override;
  uint32_t window_id(flexio_window* window) override;
  FlexioStatus msg_stream_create(flexio_process* process, const MsgStreamAttr& attr, std::FILE* out,
                                 flexio_msg_stream** stream) override;
  FlexioStatus msg_stream_flush(flexio_msg_stream* stream) override;
  FlexioStatus msg_stream_destroy(flexio_msg_stream* stream) override;
  int msg_stream_id(flexio_msg_stream* stream) override;
  std::string_view provider_name() const noexcept override { return "fake"; }

  struct State;  // fake_flexio.cpp

 private:
  std::unique_ptr<State> state_;
};

}  // namespace qb::dpa::flexio
