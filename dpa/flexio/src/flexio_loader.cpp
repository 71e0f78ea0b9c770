// The FlexIO host flow: see flexio_loader.hpp for the steps and docs/dpa.md ("The FlexIO
// loader") for why.
#include "qb/dpa/flexio/flexio_loader.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "qb_dpa_flexio/thread_args.h"

namespace qb::dpa::flexio {
namespace {

constexpr size_t kCqeBytes = 64;              // mlx5_cqe64
constexpr size_t kCqeOwnerByte = 63;          // op_own: opcode << 4 | owner
constexpr size_t kDoorbellRecordBytes = 8;    // two big-endian 32-bit counters, zeroed
constexpr size_t kMessageBufferBytes = 8192;  // data_bsize: a power of two >= 2 KiB
constexpr std::string_view kMessageStreamName = "qosbench";

std::string status_text(FlexioStatus status) {
  return fmt::format("{} ({})", static_cast<int>(status), flexio_status_name(status));
}

Error call_failed(std::string_view call, std::string_view what) {
  return make_error(Errc::runtime, fmt::format("{} {}", call, what), "dpa.flexio");
}

// " (thread 2 of 4)" for the per-thread steps.
std::string of_thread(uint32_t index, uint32_t count) {
  return fmt::format(" (thread {} of {})", index + 1, count);
}

// A fresh CQ ring: every CQE owned by software (owner bit 1), so the device's first pass, which
// writes owner 0, is told apart from stale entries.
std::vector<std::byte> empty_cq_ring(uint8_t log_depth) {
  std::vector<std::byte> ring(kCqeBytes << log_depth, std::byte{0});
  for (size_t cqe = 0; cqe < ring.size(); cqe += kCqeBytes) {
    ring[cqe + kCqeOwnerByte] = std::byte{1};
  }
  return ring;
}

template <class T>
std::span<const std::byte> bytes_of(const T& value) {
  return std::as_bytes(std::span<const T, 1>(&value, 1));
}

}  // namespace

FlexioLoader::FlexioLoader(FlexioOps& ops) noexcept : ops_(ops) {}

FlexioLoader::~FlexioLoader() {
  (void)unload();
}

Status FlexioLoader::load(const LoadRequest& request) {
  if (loaded_) {
    return make_error(Errc::usage, "a DPA program is already loaded: unload it first",
                      "dpa.flexio");
  }
  auto elf = read_program(request);
  if (!elf) return elf.error();
  Status status = load_steps(request, *elf);
  if (!status) {
    Error error = status.error();
    Status teardown = tear_down();
    if (!teardown) error.message += "; then " + teardown.error().message;
    return error;
  }
  loaded_ = true;
  return {};
}

// The steps of load_steps(), in the order they run: each makes its objects and pushes their
// teardown (run last first), so a step that fails leaves tear_down() what came before it.
struct FlexioLoader::LoadSteps {
  LoadSteps(FlexioLoader& owner, const LoadRequest& asked) : loader(owner), request(asked) {}
  FlexioLoader& loader;
  const LoadRequest& request;
  // What the steps make and the later ones use.
  ibv_context* context = nullptr;
  flexio_app* app = nullptr;
  DeviceFunction handler = nullptr;
  flexio_process* process = nullptr;
  uint32_t uar_id = kInvalidId;
  struct ThreadQueues {
    flexio_event_handler* handler = nullptr;
    DeviceAddress ring = 0, doorbell_record = 0;
  };
  std::vector<ThreadQueues> queues;

  void push(std::string call, std::function<std::string()> undo) {
    loader.teardown_.push_back(Teardown{std::move(call), std::move(undo)});
  }
  template <class Call>
  static std::function<std::string()> status_undo(Call call) {
    return [call]() -> std::string {
      const FlexioStatus status = call();
      return status == FlexioStatus::success ? std::string() : "returned " + status_text(status);
    };
  }
  static Status check(FlexioStatus status, std::string_view call, const std::string& where = {}) {
    if (status == FlexioStatus::success) return {};
    return call_failed(fmt::format("{}{}", call, where), "returned " + status_text(status));
  }
  // A buffer on the process's heap: freed before the process is destroyed.
  Result<DeviceAddress> copy_to_heap(std::span<const std::byte> bytes, std::string_view what,
                                     const std::string& where) {
    DeviceAddress address = 0;
    if (Status s = check(loader.ops_.copy_from_host(process, bytes, &address),
                         fmt::format("flexio_copy_from_host({})", what), where);
        !s) {
      return s.error();
    }
    push("flexio_buf_dev_free", status_undo([ops = &loader.ops_, p = process, address] {
           return ops->buf_dev_free(p, address);
         }));
    return address;
  }

  Status open_device();
  Status create_app(const std::vector<std::byte>& elf);
  Status create_process();
  Status create_thread_queues();
  Status create_device_access();
  Status create_msg_stream();
  Status write_thread_args();
  Status run_handlers();
  Status check_device();
};

Status FlexioLoader::LoadSteps::open_device() {
  // 1. The device.
  context = loader.ops_.open_device(request.device_name);
  if (context == nullptr) {
    const int error = errno;
    return call_failed(fmt::format("ibv_open_device({})", request.device_name),
                       fmt::format("failed: errno {} ({})", error, std::strerror(error)));
  }
  push("ibv_close_device", [ops = &loader.ops_, opened = context]() -> std::string {
    const int error = ops->close_device(opened);
    return error == 0 ? std::string()
                      : fmt::format("returned {} ({})", error, std::strerror(error));
  });
  return {};
}

Status FlexioLoader::LoadSteps::create_app(const std::vector<std::byte>& elf) {
  // 2-3. The application from the ELF image, and its handler.
  const std::string app_name = std::filesystem::path(request.elf_path).stem().string();
  if (Status s = check(loader.ops_.app_create(AppAttr{app_name, elf}, &app), "flexio_app_create");
      !s) {
    return s;
  }
  push("flexio_app_destroy",
       status_undo([ops = &loader.ops_, created = app] { return ops->app_destroy(created); }));
  if (Status s = check(loader.ops_.func_register(app, request.handler_name, &handler),
                       fmt::format("flexio_func_register({})", request.handler_name));
      !s) {
    return s;
  }
  return {};
}

Status FlexioLoader::LoadSteps::create_process() {
  // 4-5. The process and its UAR.
  if (Status s = check(loader.ops_.process_create(context, app, ProcessAttr{request.pcc}, &process),
                       "flexio_process_create");
      !s) {
    return s;
  }
  push("flexio_process_destroy", status_undo([ops = &loader.ops_, created = process] {
         return ops->process_destroy(created);
       }));
  uar_id = loader.ops_.process_uar_id(process);
  if (uar_id == kInvalidId) {
    return call_failed("flexio_uar_get_id(flexio_process_get_uar)", "returned UINT32_MAX");
  }
  return {};
}

Status FlexioLoader::LoadSteps::create_thread_queues() {
  // 6. Per thread: its event handler, then the CQ whose completions wake it.
  queues.resize(request.threads);
  const std::vector<std::byte> ring_image = empty_cq_ring(request.cq_log_depth);
  const std::array<std::byte, kDoorbellRecordBytes> doorbell_image{};
  for (uint32_t t = 0; t < request.threads; ++t) {
    const std::string where = of_thread(t, request.threads);
    EventHandlerAttr handler_attr{handler, thread_affinity(request.placement, t)};
    flexio_event_handler* event_handler = nullptr;
    if (Status s = check(loader.ops_.event_handler_create(process, handler_attr, &event_handler),
                         "flexio_event_handler_create", where);
        !s) {
      return s;
    }
    queues[t].handler = event_handler;
    push("flexio_event_handler_destroy",
         status_undo([ops = &loader.ops_, event_handler = event_handler] {
           return ops->event_handler_destroy(event_handler);
         }));
    flexio_thread* thread = loader.ops_.event_handler_thread(event_handler);
    if (thread == nullptr) {
      return call_failed("flexio_event_handler_get_thread" + where, "returned NULL");
    }
    auto doorbell = copy_to_heap(doorbell_image, "CQ doorbell record", where);
    if (!doorbell) return doorbell.error();
    auto ring = copy_to_heap(ring_image, "CQ ring", where);
    if (!ring) return ring.error();
    queues[t].doorbell_record = *doorbell;
    queues[t].ring = *ring;
    const CqAttr cq_attr{request.cq_log_depth, thread, uar_id, *ring, *doorbell};
    flexio_cq* cq = nullptr;
    if (Status s = check(loader.ops_.cq_create(process, cq_attr, &cq), "flexio_cq_create", where);
        !s) {
      return s;
    }
    push("flexio_cq_destroy",
         status_undo([ops = &loader.ops_, cq = cq] { return ops->cq_destroy(cq); }));
    const uint32_t cq_number = loader.ops_.cq_number(cq);
    if (cq_number == kInvalidId) {
      return call_failed("flexio_cq_get_cq_num" + where, "returned UINT32_MAX");
    }
    loader.program_.cq_numbers.push_back(cq_number);
  }
  return {};
}

Status FlexioLoader::LoadSteps::create_device_access() {
  // 7-8. Device access: the outbox for doorbells, the window for host memory.
  flexio_outbox* outbox = nullptr;
  if (Status s = check(loader.ops_.outbox_create(process, OutboxAttr{request.pcc}, &outbox),
                       "flexio_outbox_create");
      !s) {
    return s;
  }
  push("flexio_outbox_destroy",
       status_undo([ops = &loader.ops_, outbox = outbox] { return ops->outbox_destroy(outbox); }));
  loader.program_.outbox_id = loader.ops_.outbox_id(outbox);
  if (loader.program_.outbox_id == kInvalidId) {
    return call_failed("flexio_outbox_get_id", "returned UINT32_MAX");
  }
  ibv_pd* pd = loader.ops_.process_pd(process);
  if (pd == nullptr) return call_failed("flexio_process_get_pd", "returned NULL");
  flexio_window* window = nullptr;
  if (Status s = check(loader.ops_.window_create(process, pd, &window), "flexio_window_create");
      !s) {
    return s;
  }
  push("flexio_window_destroy",
       status_undo([ops = &loader.ops_, window = window] { return ops->window_destroy(window); }));
  loader.program_.window_id = loader.ops_.window_id(window);
  if (loader.program_.window_id == kInvalidId) {
    return call_failed("flexio_window_get_id", "returned UINT32_MAX");
  }
  return {};
}

Status FlexioLoader::LoadSteps::create_msg_stream() {
  // 9. Device printf.
  if (request.message_level != MessageLevel::off) {
    const MsgStreamAttr stream_attr{kMessageStreamName, request.message_level, kMessageBufferBytes};
    std::FILE* out = request.message_output != nullptr ? request.message_output : stderr;
    flexio_msg_stream* stream = nullptr;
    if (Status s = check(loader.ops_.msg_stream_create(process, stream_attr, out, &stream),
                         "flexio_msg_stream_create");
        !s) {
      return s;
    }
    push("flexio_msg_stream_destroy",
         status_undo([ops = &loader.ops_, stream = stream, l = &loader] {
           l->stream_ = nullptr;
           return ops->msg_stream_destroy(stream);
         }));
    // Pushed after the destroy, so it runs before it: the device's last messages get out.
    push("flexio_msg_stream_flush", status_undo([ops = &loader.ops_, stream = stream] {
           return ops->msg_stream_flush(stream);
         }));
    loader.stream_ = stream;
    loader.program_.msg_stream_id = loader.ops_.msg_stream_id(stream);
    if (loader.program_.msg_stream_id < 0)
      return call_failed("flexio_msg_stream_get_id", "returned -1");
  }
  return {};
}

Status FlexioLoader::LoadSteps::write_thread_args() {
  // 10. What each thread needs to know, on the DPA heap.
  for (uint32_t t = 0; t < request.threads; ++t) {
    qb_flexio_thread_args args{};
    args.version = QB_FLEXIO_THREAD_ARGS_VERSION;
    args.thread_index = t;
    args.thread_count = request.threads;
    args.cq_number = loader.program_.cq_numbers[t];
    args.cq_log_depth = request.cq_log_depth;
    args.outbox_id = loader.program_.outbox_id;
    args.window_id = loader.program_.window_id;
    args.msg_stream_id = loader.program_.msg_stream_id < 0
                             ? QB_FLEXIO_NO_ID
                             : static_cast<uint32_t>(loader.program_.msg_stream_id);
    args.cq_ring_daddr = queues[t].ring;
    args.cq_dbr_daddr = queues[t].doorbell_record;
    auto address = copy_to_heap(bytes_of(args), "thread args", of_thread(t, request.threads));
    if (!address) return address.error();
    loader.program_.thread_args.push_back(*address);
  }
  return {};
}

Status FlexioLoader::LoadSteps::run_handlers() {
  // 11. Run: from here a completion on a thread's CQ runs the handler. Destroying the handler
  // stops it, so running has no teardown of its own.
  for (uint32_t t = 0; t < request.threads; ++t) {
    if (Status s =
            check(loader.ops_.event_handler_run(queues[t].handler, loader.program_.thread_args[t]),
                  "flexio_event_handler_run", of_thread(t, request.threads));
        !s) {
      return s;
    }
  }
  return {};
}

Status FlexioLoader::LoadSteps::check_device() {
  // 12. The SDK's advice: check the device's error status after each exchange with the DPA.
  if (const int device_error = loader.ops_.process_error_status(process); device_error != 0) {
    return call_failed(
        "flexio_err_status_get",
        fmt::format("returned {} (the DPA reported an unrecoverable error)", device_error));
  }
  return {};
}

Status FlexioLoader::load_steps(const LoadRequest& request, const std::vector<std::byte>& elf) {
  LoadSteps steps(*this, request);
  if (Status s = steps.open_device(); !s) return s;
  if (Status s = steps.create_app(elf); !s) return s;
  if (Status s = steps.create_process(); !s) return s;
  if (Status s = steps.create_thread_queues(); !s) return s;
  if (Status s = steps.create_device_access(); !s) return s;
  if (Status s = steps.create_msg_stream(); !s) return s;
  if (Status s = steps.write_thread_args(); !s) return s;
  if (Status s = steps.run_handlers(); !s) return s;
  return steps.check_device();
}

Status FlexioLoader::unload() {
  Status status = tear_down();
  loaded_ = false;
  return status;
}

Status FlexioLoader::tear_down() {
  std::string failures;
  while (!teardown_.empty()) {
    Teardown step = std::move(teardown_.back());
    teardown_.pop_back();
    const std::string failed = step.undo();
    if (!failed.empty()) {
      failures += fmt::format("{}{} {}", failures.empty() ? "" : "; ", step.call, failed);
    }
  }
  program_ = LoadedProgram{};
  stream_ = nullptr;
  if (failures.empty()) return {};
  return make_error(Errc::runtime, "teardown: " + failures, "dpa.flexio");
}

Status FlexioLoader::flush_messages() {
  if (stream_ == nullptr) return {};
  const FlexioStatus status = ops_.msg_stream_flush(stream_);
  if (status == FlexioStatus::success) return {};
  return call_failed("flexio_msg_stream_flush", "returned " + status_text(status));
}

}  // namespace qb::dpa::flexio
