// Loads a DPA program through FlexIO in the order the SDK requires, holds what it made, and
// tears it down in reverse: on unload, and after a failure at any step (only what was made).
//
// The host flow (docs/dpa.md, "The host flow"), with the calls each step makes:
//   1. ibv_open_device                        the device whose DPA runs the program
//   2. flexio_app_create                      the application from the ELF image
//   3. flexio_func_register                   the handler's symbol (freed with the app)
//   4. flexio_process_create                  the DPA process (en_pcc for congestion control)
//   5. flexio_process_get_uar+uar_get_id      the UAR its CQs use
//   6. per thread: flexio_event_handler_create (with its affinity), _get_thread,
//      flexio_copy_from_host x2 (the CQ's doorbell record and ring on the DPA heap),
//      flexio_cq_create (element: that DPA thread), flexio_cq_get_cq_num
//   7. flexio_outbox_create, _get_id          doorbells from the DPA
//   8. flexio_process_get_pd, flexio_window_create, _get_id   host memory for the DPA
//   9. flexio_msg_stream_create, _get_id      device printf (not made when the level is off)
//  10. per thread: flexio_copy_from_host      its qb_flexio_thread_args
//  11. per thread: flexio_event_handler_run   (user_arg: the address of its args)
//  12. flexio_err_status_get                  the DPA reported no error
// Teardown is the reverse: buf_dev_free of the args, msg_stream_flush + _destroy,
// window_destroy, outbox_destroy, per thread (last first) cq_destroy, buf_dev_free x2,
// event_handler_destroy, then process_destroy, app_destroy, ibv_close_device.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/dpa/flexio/flexio_ops.hpp"
#include "qb/dpa/flexio/load_request.hpp"

namespace qb::dpa::flexio {

/// What a loaded program got from the SDK, for the results and the device side.
struct LoadedProgram {
  std::vector<uint32_t> cq_numbers;  // one per thread
  uint32_t outbox_id = kInvalidId;
  uint32_t window_id = kInvalidId;
  int msg_stream_id = -1;                  // -1: no stream (message level off)
  std::vector<DeviceAddress> thread_args;  // where each thread's qb_flexio_thread_args is
};

class FlexioLoader {
 public:
  /// `ops` must outlive the loader (its destructor unloads through it).
  explicit FlexioLoader(FlexioOps& ops) noexcept;
  ~FlexioLoader();  // unloads
  FlexioLoader(const FlexioLoader&) = delete;
  FlexioLoader& operator=(const FlexioLoader&) = delete;

  /// Loads and runs the program. A bad request (Errc::invalid_config) or unreadable ELF
  /// (Errc::io) fails before any SDK call; an SDK failure (Errc::runtime) names the call and
  /// its return code, after everything made so far was torn down. Loading while loaded is
  /// Errc::usage.
  Status load(const LoadRequest& request);
  /// Tears down in reverse order of creation. Nothing loaded: nothing happens. Every teardown
  /// call is made even when one fails; the error names each that failed.
  Status unload();
  /// flexio_msg_stream_flush: the device's messages so far to the output (async mode).
  Status flush_messages();

  bool loaded() const noexcept { return loaded_; }
  const LoadedProgram& program() const noexcept { return program_; }

 private:
  struct Teardown {
    std::string call;                   // the SDK function, for the error
    std::function<std::string()> undo;  // empty on success, else what it returned
  };

  Status load_steps(const LoadRequest& request, const std::vector<std::byte>& elf);
  struct LoadSteps;  // its steps (flexio_loader.cpp)
  Status tear_down();

  FlexioOps& ops_;
  std::vector<Teardown> teardown_;  // in creation order; run last first
  LoadedProgram program_;
  flexio_msg_stream* stream_ = nullptr;
  bool loaded_ = false;
};

}  // namespace qb::dpa::flexio
