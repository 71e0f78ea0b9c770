// The fake FlexIO SDK: see fake_flexio.hpp for the rules it enforces.
#include "qb/dpa/flexio/fake_flexio.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <map>

namespace qb::dpa::flexio {
namespace {

constexpr size_t kCqeBytes = 64;
constexpr size_t kMinDoorbellRecordBytes = 8;
constexpr size_t kMinMessageBufferBytes = 2048;
constexpr uint32_t kMaxStreams = 255;  // FLEXIO_MSG_DEV_MAX_STREAMS_AMOUNT
constexpr DeviceAddress kHeapBase = 0x10000;
constexpr DeviceAddress kHeapAlignment = 64;
constexpr uintptr_t kFunctionBase = 0x1000;
constexpr std::array<std::byte, 4> kElfMagic{std::byte{0x7f}, std::byte{'E'}, std::byte{'L'},
                                             std::byte{'F'}};

enum class Kind { context, app, process, pd, handler, thread, cq, outbox, window, stream };

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::context:
      return "context";
    case Kind::app:
      return "app";
    case Kind::process:
      return "process";
    case Kind::pd:
      return "pd";
    case Kind::handler:
      return "handler";
    case Kind::thread:
      return "thread";
    case Kind::cq:
      return "cq";
    case Kind::outbox:
      return "outbox";
    case Kind::window:
      return "window";
    case Kind::stream:
      return "stream";
  }
  return "?";
}

// One record per handle the fake gave out; records live as long as the fake, so a handle used
// after its destroy call is recognised. The handle is the record's address.
struct Object {
  Kind kind = Kind::context;
  uint32_t id = 0;
  bool alive = true;
  Object* process = nullptr;  // what it was made on (handlers, CQs, outboxes, windows, ...)

  // app
  std::vector<std::byte> elf;
  std::vector<std::string> functions;  // registered, by index
  // process
  Object* context = nullptr;
  Object* app = nullptr;
  Object* pd = nullptr;
  uint32_t uar_id = kInvalidId;
  std::map<DeviceAddress, std::vector<std::byte>> heap;  // live buffers
  DeviceAddress next_address = kHeapBase;
  size_t heap_used = 0;
  uint32_t streams_made = 0;
  bool ran = false;
  // handler
  Object* thread = nullptr;
  bool running = false;
  // cq: the thread it wakes
  Object* bound_thread = nullptr;
  uint32_t number = 0;
  // stream
  int stream_id = -1;

  std::string label() const { return fmt::format("{}#{}", kind_name(kind), id); }
};

template <class Handle>
Handle* handle_of(Object* object) noexcept {
  return reinterpret_cast<Handle*>(object);
}

std::string label_of(const void* handle) {
  return handle == nullptr ? std::string("NULL") : static_cast<const Object*>(handle)->label();
}

bool contains_symbol(const std::vector<std::byte>& elf, std::string_view name) {
  // A symbol name is a NUL-terminated string in the image's string table.
  std::string needle(name);
  needle.push_back('\0');
  const auto* begin = reinterpret_cast<const char*>(elf.data());
  return std::string_view(begin, elf.size()).find(needle) != std::string_view::npos;
}

bool is_power_of_two(size_t value) {
  return value != 0 && (value & (value - 1)) == 0;
}

}  // namespace

std::string FakeFlexioLive::describe() const {
  return fmt::format(
      "{} contexts, {} apps, {} processes, {} handlers, {} CQs, {} outboxes, {} windows, "
      "{} streams, {} heap buffers",
      contexts, apps, processes, handlers, cqs, outboxes, windows, streams, heap_buffers);
}

struct FakeFlexio::State {
  explicit State(FakeFlexioConfig c) : config(std::move(c)) {}

  FakeFlexioConfig config;
  std::vector<std::string> calls;
  std::vector<std::string> violations;
  std::vector<std::unique_ptr<Object>> objects;
  uint32_t fail_at = 0;
  FlexioStatus fail_status = FlexioStatus::failed;
  uint32_t next_id = 1;
  uint32_t next_number = 0x40;  // CQ numbers, outbox/window ids, UAR ids

  // Logs a call; true when it must fail (fail_call).
  bool begin(std::string text) {
    calls.push_back(std::move(text));
    if (fail_at != 0 && calls.size() == fail_at) {
      calls.back() += fmt::format(" -> injected {}", flexio_status_name(fail_status));
      return true;
    }
    return false;
  }
  void result(std::string_view text) { calls.back() += fmt::format(" = {}", text); }
  FlexioStatus refuse(std::string_view why) {
    calls.back() += fmt::format(" -> FLEXIO_STATUS_FAILED ({})", why);
    return FlexioStatus::failed;
  }
  void violation(std::string text) { violations.push_back(std::move(text)); }

  Object* make(Kind kind, Object* process) {
    objects.push_back(std::make_unique<Object>());
    Object* object = objects.back().get();
    object->kind = kind;
    object->id = next_id++;
    object->process = process;
    return object;
  }

  // The live object of `kind` behind a handle, or nullptr (with a violation when the handle
  // is not NULL: a destroyed or foreign handle is a caller bug).
  Object* live(const void* handle, Kind kind) {
    if (handle == nullptr) return nullptr;
    for (const auto& object : objects) {
      if (object.get() != handle) continue;
      if (object->kind != kind) {
        violation(
            fmt::format("{}: a {} passed as a {}", calls.back(), object->label(), kind_name(kind)));
        return nullptr;
      }
      if (!object->alive) {
        violation(
            fmt::format("{} used after it was destroyed ({})", object->label(), calls.back()));
        return nullptr;
      }
      return object.get();
    }
    violation(fmt::format("{}: a handle the fake never gave out", calls.back()));
    return nullptr;
  }

  uint32_t count_live(Kind kind) const {
    return static_cast<uint32_t>(std::count_if(
        objects.begin(), objects.end(), [&](auto& o) { return o->alive && o->kind == kind; }));
  }
  bool has_live_child(const Object* process) const {
    return std::any_of(objects.begin(), objects.end(), [&](auto& o) {
      return o->alive && o->process == process && o->kind != Kind::pd && o->kind != Kind::thread;
    });
  }
  bool thread_has_live_cq(const Object* thread) const {
    return std::any_of(objects.begin(), objects.end(), [&](auto& o) {
      return o->alive && o->kind == Kind::cq && o->bound_thread == thread;
    });
  }
  // The live heap buffer of `process` at `address` holding at least `bytes`, or why not.
  std::string check_buffer(const Object* process, DeviceAddress address, size_t bytes,
                           std::string_view what) const {
    const auto found = process->heap.find(address);
    if (found == process->heap.end()) {
      return fmt::format("{} 0x{:x} is not a live heap buffer of {}", what, address,
                         process->label());
    }
    if (found->second.size() < bytes) {
      return fmt::format("{} 0x{:x} holds {} bytes, needs {}", what, address, found->second.size(),
                         bytes);
    }
    return {};
  }
};

FakeFlexio::FakeFlexio(FakeFlexioConfig config)
    : state_(std::make_unique<State>(std::move(config))) {}
FakeFlexio::~FakeFlexio() = default;

const std::vector<std::string>& FakeFlexio::calls() const noexcept {
  return state_->calls;
}
const std::vector<std::string>& FakeFlexio::violations() const noexcept {
  return state_->violations;
}

FakeFlexioLive FakeFlexio::live() const noexcept {
  FakeFlexioLive live;
  live.contexts = state_->count_live(Kind::context);
  live.apps = state_->count_live(Kind::app);
  live.processes = state_->count_live(Kind::process);
  live.handlers = state_->count_live(Kind::handler);
  live.cqs = state_->count_live(Kind::cq);
  live.outboxes = state_->count_live(Kind::outbox);
  live.windows = state_->count_live(Kind::window);
  live.streams = state_->count_live(Kind::stream);
  for (const auto& object : state_->objects) {
    if (object->kind == Kind::process && object->alive) {
      live.heap_buffers += static_cast<uint32_t>(object->heap.size());
    }
  }
  return live;
}

void FakeFlexio::fail_call(uint32_t call, FlexioStatus status) noexcept {
  state_->fail_at = call;
  state_->fail_status = status;
}

std::vector<std::byte> FakeFlexio::heap_bytes(DeviceAddress address) const {
  for (const auto& object : state_->objects) {
    if (object->kind != Kind::process || !object->alive) continue;
    if (auto found = object->heap.find(address); found != object->heap.end()) {
      return found->second;
    }
  }
  return {};
}

uint32_t FakeFlexio::running_handlers() const noexcept {
  return static_cast<uint32_t>(
      std::count_if(state_->objects.begin(), state_->objects.end(),
                    [](auto& o) { return o->alive && o->kind == Kind::handler && o->running; }));
}

// --- the device -------------------------------------------------------------------------------

ibv_context* FakeFlexio::open_device(std::string_view name) {
  State& s = *state_;
  if (s.begin(fmt::format("ibv_open_device({})", name))) {
    errno = EIO;
    return nullptr;
  }
  if (name != s.config.device_name) {
    s.calls.back() += " -> ENODEV";
    errno = ENODEV;
    return nullptr;
  }
  Object* context = s.make(Kind::context, nullptr);
  s.result(context->label());
  return handle_of<ibv_context>(context);
}

int FakeFlexio::close_device(ibv_context* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("ibv_close_device({})", label_of(handle)))) return EIO;
  Object* context = s.live(handle, Kind::context);
  if (context == nullptr) {
    s.calls.back() += " -> EINVAL";
    return EINVAL;
  }
  const bool busy = std::any_of(s.objects.begin(), s.objects.end(), [&](auto& o) {
    return o->alive && o->kind == Kind::process && o->context == context;
  });
  if (busy) {
    s.calls.back() += " -> EBUSY (a process runs on it)";
    return EBUSY;
  }
  context->alive = false;
  return 0;
}

// --- the application and the process ------------------------------------------------------------

FlexioStatus FakeFlexio::app_create(const AppAttr& attr, flexio_app** app) {
  State& s = *state_;
  if (s.begin(
          fmt::format("flexio_app_create(name={}, elf={} bytes)", attr.name, attr.elf.size()))) {
    return s.fail_status;
  }
  if (app == nullptr) return s.refuse("no app out pointer");
  if (attr.name.empty()) return s.refuse("no application name");
  if (attr.elf.size() < kElfMagic.size() ||
      !std::equal(kElfMagic.begin(), kElfMagic.end(), attr.elf.begin())) {
    return s.refuse("not an ELF image");
  }
  Object* object = s.make(Kind::app, nullptr);
  object->elf.assign(attr.elf.begin(), attr.elf.end());
  s.result(object->label());
  *app = handle_of<flexio_app>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::app_destroy(flexio_app* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_app_destroy({})", label_of(handle)))) return s.fail_status;
  Object* app = s.live(handle, Kind::app);
  if (app == nullptr) return s.refuse("not a live app");
  const bool busy = std::any_of(s.objects.begin(), s.objects.end(), [&](auto& o) {
    return o->alive && o->kind == Kind::process && o->app == app;
  });
  if (busy) return s.refuse("a process of it is alive");
  app->alive = false;
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::func_register(flexio_app* handle, std::string_view name,
                                       DeviceFunction* function) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_func_register({}, {})", label_of(handle), name))) {
    return s.fail_status;
  }
  Object* app = s.live(handle, Kind::app);
  if (app == nullptr) return s.refuse("not a live app");
  if (function == nullptr) return s.refuse("no function out pointer");
  if (name.empty() || name.size() > kMaxNameLength) {
    return s.refuse("a name of 1..FLEXIO_MAX_NAME_LEN bytes");
  }
  if (!contains_symbol(app->elf, name)) return s.refuse("no such symbol in the ELF image");
  // The function handle encodes the app and the registration; nothing ever calls it.
  app->functions.emplace_back(name);
  const uintptr_t code = kFunctionBase + uintptr_t{app->id} * 0x1000 + app->functions.size();
  *function = reinterpret_cast<DeviceFunction>(code);
  s.result(fmt::format("func#{}.{}", app->id, app->functions.size()));
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::process_create(ibv_context* context_handle, flexio_app* app_handle,
                                        const ProcessAttr& attr, flexio_process** process) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_process_create({}, {}, en_pcc={})", label_of(context_handle),
                          label_of(app_handle), attr.enable_pcc ? 1 : 0))) {
    return s.fail_status;
  }
  Object* context = s.live(context_handle, Kind::context);
  if (context == nullptr) return s.refuse("not a live device context");
  Object* app = s.live(app_handle, Kind::app);
  if (app == nullptr) return s.refuse("not a live app");
  if (process == nullptr) return s.refuse("no process out pointer");
  Object* object = s.make(Kind::process, nullptr);
  object->context = context;
  object->app = app;
  object->uar_id = s.next_number++;
  object->pd = s.make(Kind::pd, object);
  s.result(object->label());
  *process = handle_of<flexio_process>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::process_destroy(flexio_process* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_process_destroy({})", label_of(handle)))) return s.fail_status;
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (s.has_live_child(process)) return s.refuse("objects made on it are alive");
  if (!process->heap.empty()) {
    s.violation(fmt::format("{} destroyed holding {} heap buffers", process->label(),
                            process->heap.size()));
    process->heap.clear();
  }
  process->pd->alive = false;
  process->alive = false;
  return FlexioStatus::success;
}

uint32_t FakeFlexio::process_uar_id(flexio_process* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_uar_get_id(flexio_process_get_uar({}))", label_of(handle)))) {
    return kInvalidId;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return kInvalidId;
  s.result(fmt::format("{}", process->uar_id));
  return process->uar_id;
}

ibv_pd* FakeFlexio::process_pd(flexio_process* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_process_get_pd({})", label_of(handle)))) return nullptr;
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return nullptr;
  s.result(process->pd->label());
  return handle_of<ibv_pd>(process->pd);
}

int FakeFlexio::process_error_status(flexio_process* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_err_status_get({})", label_of(handle)))) {
    return 1;  // FLEXIO_DEV_FATAL_ERROR
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return 1;
  const int status = process->ran ? s.config.device_error_after_run : 0;
  s.result(fmt::format("{}", status));
  return status;
}

// --- the DPA heap -------------------------------------------------------------------------------

FlexioStatus FakeFlexio::copy_from_host(flexio_process* handle, std::span<const std::byte> bytes,
                                        DeviceAddress* address) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_copy_from_host({}, {} bytes)", label_of(handle), bytes.size()))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (address == nullptr) return s.refuse("no address out pointer");
  if (bytes.empty()) return s.refuse("nothing to copy");
  if (process->heap_used + bytes.size() > s.config.heap_bytes) {
    return s.refuse("the DPA heap is full");
  }
  const DeviceAddress at = process->next_address;
  process->next_address += (bytes.size() + kHeapAlignment - 1) / kHeapAlignment * kHeapAlignment;
  process->heap_used += bytes.size();
  process->heap.emplace(at, std::vector<std::byte>(bytes.begin(), bytes.end()));
  s.result(fmt::format("0x{:x}", at));
  *address = at;
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::buf_dev_free(flexio_process* handle, DeviceAddress address) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_buf_dev_free({}, 0x{:x})", label_of(handle), address))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (address == 0) return FlexioStatus::success;
  const auto found = process->heap.find(address);
  if (found == process->heap.end()) {
    s.violation(fmt::format("{}: not a live heap buffer (double free?)", s.calls.back()));
    return s.refuse("not a live heap buffer");
  }
  process->heap_used -= found->second.size();
  process->heap.erase(found);
  return FlexioStatus::success;
}

// --- event handlers -----------------------------------------------------------------------------

FlexioStatus FakeFlexio::event_handler_create(flexio_process* handle, const EventHandlerAttr& attr,
                                              flexio_event_handler** handler) {
  State& s = *state_;
  const auto code = reinterpret_cast<uintptr_t>(attr.function);
  if (s.begin(fmt::format(
          "flexio_event_handler_create({}, func={}, affinity={}:{})", label_of(handle),
          code >= kFunctionBase ? fmt::format("func#{}.{}", (code - kFunctionBase) / 0x1000,
                                              (code - kFunctionBase) % 0x1000)
                                : std::string("NULL"),
          affinity_name(attr.affinity.kind), attr.affinity.id))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (handler == nullptr) return s.refuse("no handler out pointer");
  const Object* app = process->app;
  const uintptr_t first = kFunctionBase + uintptr_t{app->id} * 0x1000;
  if (code <= first || code > first + app->functions.size()) {
    return s.refuse("the function is not registered on the process's app");
  }
  switch (attr.affinity.kind) {
    case AffinityKind::none:
      if (attr.affinity.id != 0) return s.refuse("affinity NONE takes no id");
      break;
    case AffinityKind::strict:
      if (attr.affinity.id >= s.config.execution_units) {
        return s.refuse("no such execution unit");
      }
      break;
    case AffinityKind::group:
      if (attr.affinity.id >= s.config.eu_groups) return s.refuse("no such EU group");
      break;
  }
  Object* object = s.make(Kind::handler, process);
  object->thread = s.make(Kind::thread, process);
  s.result(object->label());
  *handler = handle_of<flexio_event_handler>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::event_handler_destroy(flexio_event_handler* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_event_handler_destroy({})", label_of(handle)))) {
    return s.fail_status;
  }
  Object* handler = s.live(handle, Kind::handler);
  if (handler == nullptr) return s.refuse("not a live event handler");
  if (s.thread_has_live_cq(handler->thread)) return s.refuse("a CQ bound to its thread is alive");
  handler->thread->alive = false;
  handler->running = false;
  handler->alive = false;
  return FlexioStatus::success;
}

flexio_thread* FakeFlexio::event_handler_thread(flexio_event_handler* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_event_handler_get_thread({})", label_of(handle)))) {
    return nullptr;
  }
  Object* handler = s.live(handle, Kind::handler);
  if (handler == nullptr) return nullptr;
  s.result(handler->thread->label());
  return handle_of<flexio_thread>(handler->thread);
}

FlexioStatus FakeFlexio::event_handler_run(flexio_event_handler* handle, uint64_t user_arg) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_event_handler_run({}, user_arg=0x{:x})", label_of(handle),
                          user_arg))) {
    return s.fail_status;
  }
  Object* handler = s.live(handle, Kind::handler);
  if (handler == nullptr) return s.refuse("not a live event handler");
  if (handler->running) return s.refuse("already running");
  if (!s.thread_has_live_cq(handler->thread)) {
    return s.refuse("no CQ is bound to its thread: nothing would wake it");
  }
  handler->running = true;
  handler->process->ran = true;
  return FlexioStatus::success;
}

// --- CQs ----------------------------------------------------------------------------------------

FlexioStatus FakeFlexio::cq_create(flexio_process* handle, const CqAttr& attr, flexio_cq** cq) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_cq_create({}, log_depth={}, element=DPA_THREAD, thread={}, "
                          "uar_id={}, ring=0x{:x}, dbr=0x{:x})",
                          label_of(handle), attr.log_depth, label_of(attr.thread), attr.uar_id,
                          attr.ring, attr.doorbell_record))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (cq == nullptr) return s.refuse("no CQ out pointer");
  Object* thread = s.live(attr.thread, Kind::thread);
  if (thread == nullptr) return s.refuse("not the thread of a live event handler");
  if (thread->process != process) return s.refuse("the thread is another process's");
  if (attr.uar_id != process->uar_id) return s.refuse("not the process's UAR id");
  if (attr.log_depth == 0 || attr.log_depth > 24) return s.refuse("log_cq_depth out of range");
  if (std::string why = s.check_buffer(process, attr.ring, kCqeBytes << attr.log_depth, "ring");
      !why.empty()) {
    return s.refuse(why);
  }
  if (std::string why =
          s.check_buffer(process, attr.doorbell_record, kMinDoorbellRecordBytes, "doorbell record");
      !why.empty()) {
    return s.refuse(why);
  }
  Object* object = s.make(Kind::cq, process);
  object->bound_thread = thread;
  object->number = s.next_number++;
  s.result(object->label());
  *cq = handle_of<flexio_cq>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::cq_destroy(flexio_cq* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_cq_destroy({})", label_of(handle)))) return s.fail_status;
  Object* cq = s.live(handle, Kind::cq);
  if (cq == nullptr) return s.refuse("not a live CQ");
  cq->alive = false;
  return FlexioStatus::success;
}

uint32_t FakeFlexio::cq_number(flexio_cq* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_cq_get_cq_num({})", label_of(handle)))) return kInvalidId;
  Object* cq = s.live(handle, Kind::cq);
  if (cq == nullptr) return kInvalidId;
  s.result(fmt::format("{}", cq->number));
  return cq->number;
}

// --- outbox and window --------------------------------------------------------------------------

FlexioStatus FakeFlexio::outbox_create(flexio_process* handle, const OutboxAttr& attr,
                                       flexio_outbox** outbox) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_outbox_create({}, en_pcc={})", label_of(handle),
                          attr.enable_pcc ? 1 : 0))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (outbox == nullptr) return s.refuse("no outbox out pointer");
  Object* object = s.make(Kind::outbox, process);
  object->number = s.next_number++;
  s.result(object->label());
  *outbox = handle_of<flexio_outbox>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::outbox_destroy(flexio_outbox* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_outbox_destroy({})", label_of(handle)))) return s.fail_status;
  Object* outbox = s.live(handle, Kind::outbox);
  if (outbox == nullptr) return s.refuse("not a live outbox");
  outbox->alive = false;
  return FlexioStatus::success;
}

uint32_t FakeFlexio::outbox_id(flexio_outbox* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_outbox_get_id({})", label_of(handle)))) return kInvalidId;
  Object* outbox = s.live(handle, Kind::outbox);
  if (outbox == nullptr) return kInvalidId;
  s.result(fmt::format("{}", outbox->number));
  return outbox->number;
}

FlexioStatus FakeFlexio::window_create(flexio_process* handle, ibv_pd* pd, flexio_window** window) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_window_create({}, {})", label_of(handle), label_of(pd)))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (window == nullptr) return s.refuse("no window out pointer");
  if (s.live(pd, Kind::pd) != process->pd) return s.refuse("not the process's PD");
  Object* object = s.make(Kind::window, process);
  object->number = s.next_number++;
  s.result(object->label());
  *window = handle_of<flexio_window>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::window_destroy(flexio_window* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_window_destroy({})", label_of(handle)))) return s.fail_status;
  Object* window = s.live(handle, Kind::window);
  if (window == nullptr) return s.refuse("not a live window");
  window->alive = false;
  return FlexioStatus::success;
}

uint32_t FakeFlexio::window_id(flexio_window* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_window_get_id({})", label_of(handle)))) return kInvalidId;
  Object* window = s.live(handle, Kind::window);
  if (window == nullptr) return kInvalidId;
  s.result(fmt::format("{}", window->number));
  return window->number;
}

// --- message streams ----------------------------------------------------------------------------

FlexioStatus FakeFlexio::msg_stream_create(flexio_process* handle, const MsgStreamAttr& attr,
                                           std::FILE* out, flexio_msg_stream** stream) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_msg_stream_create({}, name={}, level={}, data_bsize={}, "
                          "sync_mode=ASYNC)",
                          label_of(handle), attr.name, message_level_name(attr.level),
                          attr.buffer_bytes))) {
    return s.fail_status;
  }
  Object* process = s.live(handle, Kind::process);
  if (process == nullptr) return s.refuse("not a live process");
  if (stream == nullptr) return s.refuse("no stream out pointer");
  if (out == nullptr) return s.refuse("no output FILE");
  if (attr.level > MessageLevel::debug) return s.refuse("level out of NO_PRINT..DEBUG");
  if (!is_power_of_two(attr.buffer_bytes) || attr.buffer_bytes < kMinMessageBufferBytes) {
    return s.refuse("data_bsize must be a power of two of at least 2 KiB");
  }
  if (process->streams_made >= kMaxStreams) return s.refuse("no more streams");
  Object* object = s.make(Kind::stream, process);
  object->stream_id = static_cast<int>(++process->streams_made);  // 0 is the default stream
  s.result(object->label());
  *stream = handle_of<flexio_msg_stream>(object);
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::msg_stream_flush(flexio_msg_stream* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_msg_stream_flush({})", label_of(handle)))) {
    return s.fail_status;
  }
  if (s.live(handle, Kind::stream) == nullptr) return s.refuse("not a live stream");
  return FlexioStatus::success;
}

FlexioStatus FakeFlexio::msg_stream_destroy(flexio_msg_stream* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_msg_stream_destroy({})", label_of(handle)))) {
    return s.fail_status;
  }
  Object* stream = s.live(handle, Kind::stream);
  if (stream == nullptr) return s.refuse("not a live stream");
  stream->alive = false;
  return FlexioStatus::success;
}

int FakeFlexio::msg_stream_id(flexio_msg_stream* handle) {
  State& s = *state_;
  if (s.begin(fmt::format("flexio_msg_stream_get_id({})", label_of(handle)))) return -1;
  Object* stream = s.live(handle, Kind::stream);
  if (stream == nullptr) return -1;
  s.result(fmt::format("{}", stream->stream_id));
  return stream->stream_id;
}

}  // namespace qb::dpa::flexio
