// FlexioOps over the FlexIO SDK (libflexio, DOCA): each method is the SDK function of the same
// name with our attribute struct copied into the SDK's, nothing decided here (decisions belong
// to the loader, where the fake checks them). Built only when the SDK was found
// (dpa/flexio/CMakeLists.txt); never compiled on a machine without it, so it is written from
// the SDK's flexio.h (DOCA 2.x) and checked on the first machine that has one (docs/dpa.md,
// "The FlexIO loader").
#include <libflexio/flexio.h>

#include <string>

#include "qb/dpa/flexio/flexio_ops.hpp"
#include "qb/ibv/open_device.hpp"

namespace qb::dpa::flexio {
namespace {

static_assert(static_cast<int>(FlexioStatus::success) == FLEXIO_STATUS_SUCCESS);
static_assert(static_cast<int>(FlexioStatus::failed) == FLEXIO_STATUS_FAILED);
static_assert(static_cast<int>(FlexioStatus::timeout) == FLEXIO_STATUS_TIMEOUT);
static_assert(static_cast<int>(FlexioStatus::fatal_error) == FLEXIO_STATUS_FATAL_ERR);
static_assert(sizeof(DeviceAddress) == sizeof(flexio_uintptr_t));
static_assert(kMaxNameLength == FLEXIO_MAX_NAME_LEN);

FlexioStatus status_of(flexio_status status) {
  return static_cast<FlexioStatus>(status);
}

flexio_affinity sdk_affinity(const Affinity& affinity) {
  flexio_affinity out{};
  switch (affinity.kind) {
    case AffinityKind::none:
      out.type = FLEXIO_AFFINITY_NONE;
      break;
    case AffinityKind::strict:
      out.type = FLEXIO_AFFINITY_STRICT;
      break;
    case AffinityKind::group:
      out.type = FLEXIO_AFFINITY_GROUP;
      break;
  }
  out.id = affinity.id;
  return out;
}

flexio_msg_dev_level sdk_level(MessageLevel level) {
  switch (level) {
    case MessageLevel::off:
      return FLEXIO_MSG_DEV_NO_PRINT;
    case MessageLevel::error:
      return FLEXIO_MSG_DEV_ERROR;
    case MessageLevel::warn:
      return FLEXIO_MSG_DEV_WARN;
    case MessageLevel::info:
      return FLEXIO_MSG_DEV_INFO;
    case MessageLevel::debug:
      return FLEXIO_MSG_DEV_DEBUG;
  }
  return FLEXIO_MSG_DEV_INFO;
}

class SdkFlexioOps final : public FlexioOps {
 public:
  ibv_context* open_device(std::string_view name) override { return ibv::open_device(name); }
  int close_device(ibv_context* context) override { return ibv_close_device(context); }

  FlexioStatus app_create(const AppAttr& attr, flexio_app** app) override {
    // The SDK keeps its own copy of the image ("flexio_app_destroy frees the internal ELF
    // buffer"), so the loader's buffer may go after the call.
    const std::string name(attr.name);
    flexio_app_attr sdk{};
    sdk.app_name = name.c_str();
    sdk.app_ptr = const_cast<std::byte*>(attr.elf.data());
    sdk.app_bsize = attr.elf.size();
    return status_of(flexio_app_create(&sdk, app));
  }
  FlexioStatus app_destroy(flexio_app* app) override { return status_of(flexio_app_destroy(app)); }
  FlexioStatus func_register(flexio_app* app, std::string_view name,
                             DeviceFunction* function) override {
    const std::string symbol(name);
    flexio_func_t* out = nullptr;
    const flexio_status status = flexio_func_register(app, symbol.c_str(), &out);
    if (status == FLEXIO_STATUS_SUCCESS) *function = out;
    return status_of(status);
  }
  FlexioStatus process_create(ibv_context* context, flexio_app* app, const ProcessAttr& attr,
                              flexio_process** process) override {
    flexio_process_attr sdk{};
    sdk.pd = nullptr;  // the SDK makes the process its own PD
    sdk.en_pcc = attr.enable_pcc ? 1 : 0;
    return status_of(flexio_process_create(context, app, &sdk, process));
  }
  FlexioStatus process_destroy(flexio_process* process) override {
    return status_of(flexio_process_destroy(process));
  }
  uint32_t process_uar_id(flexio_process* process) override {
    flexio_uar* uar = flexio_process_get_uar(process);
    return uar == nullptr ? kInvalidId : flexio_uar_get_id(uar);
  }
  ibv_pd* process_pd(flexio_process* process) override { return flexio_process_get_pd(process); }
  int process_error_status(flexio_process* process) override {
    return static_cast<int>(flexio_err_status_get(process));
  }

  FlexioStatus copy_from_host(flexio_process* process, std::span<const std::byte> bytes,
                              DeviceAddress* address) override {
    flexio_uintptr_t out = 0;
    const flexio_status status =
        flexio_copy_from_host(process, const_cast<std::byte*>(bytes.data()), bytes.size(), &out);
    if (status == FLEXIO_STATUS_SUCCESS) *address = out;
    return status_of(status);
  }
  FlexioStatus buf_dev_free(flexio_process* process, DeviceAddress address) override {
    return status_of(flexio_buf_dev_free(process, address));
  }

  FlexioStatus event_handler_create(flexio_process* process, const EventHandlerAttr& attr,
                                    flexio_event_handler** handler) override {
    flexio_event_handler_attr sdk{};
    sdk.host_stub_func = attr.function;
    sdk.affinity = sdk_affinity(attr.affinity);
    return status_of(flexio_event_handler_create(process, &sdk, handler));
  }
  FlexioStatus event_handler_destroy(flexio_event_handler* handler) override {
    return status_of(flexio_event_handler_destroy(handler));
  }
  flexio_thread* event_handler_thread(flexio_event_handler* handler) override {
    return flexio_event_handler_get_thread(handler);
  }
  FlexioStatus event_handler_run(flexio_event_handler* handler, uint64_t user_arg) override {
    return status_of(flexio_event_handler_run(handler, user_arg));
  }

  FlexioStatus cq_create(flexio_process* process, const CqAttr& attr, flexio_cq** cq) override {
    flexio_cq_attr sdk{};
    sdk.log_cq_depth = attr.log_depth;
    sdk.element_type = FLEXIO_CQ_ELEMENT_TYPE_DPA_THREAD;
    sdk.thread = attr.thread;
    sdk.uar_id = attr.uar_id;
    sdk.uar_base_addr = nullptr;  // a flexio UAR, not a devx one
    sdk.cq_ring_qmem.memtype = FLEXIO_MEMTYPE_DPA;
    sdk.cq_ring_qmem.daddr = attr.ring;
    sdk.cq_dbr_daddr = attr.doorbell_record;
    return status_of(flexio_cq_create(process, nullptr, &sdk, cq));
  }
  FlexioStatus cq_destroy(flexio_cq* cq) override { return status_of(flexio_cq_destroy(cq)); }
  uint32_t cq_number(flexio_cq* cq) override { return flexio_cq_get_cq_num(cq); }

  FlexioStatus outbox_create(flexio_process* process, const OutboxAttr& attr,
                             flexio_outbox** outbox) override {
    flexio_outbox_attr sdk{};
    sdk.en_pcc = attr.enable_pcc ? 1 : 0;
    return status_of(flexio_outbox_create(process, &sdk, outbox));
  }
  FlexioStatus outbox_destroy(flexio_outbox* outbox) override {
    return status_of(flexio_outbox_destroy(outbox));
  }
  uint32_t outbox_id(flexio_outbox* outbox) override { return flexio_outbox_get_id(outbox); }
  FlexioStatus window_create(flexio_process* process, ibv_pd* pd, flexio_window** window) override {
    return status_of(flexio_window_create(process, pd, window));
  }
  FlexioStatus window_destroy(flexio_window* window) override {
    return status_of(flexio_window_destroy(window));
  }
  uint32_t window_id(flexio_window* window) override { return flexio_window_get_id(window); }

  FlexioStatus msg_stream_create(flexio_process* process, const MsgStreamAttr& attr, std::FILE* out,
                                 flexio_msg_stream** stream) override {
    std::string name(attr.name);
    flexio_msg_stream_attr_t sdk{};
    sdk.data_bsize = attr.buffer_bytes;
    sdk.sync_mode = FLEXIO_LOG_DEV_SYNC_MODE_ASYNC;
    sdk.stream_name = name.data();
    sdk.level = sdk_level(attr.level);
    return status_of(flexio_msg_stream_create(process, &sdk, out, nullptr, stream));
  }
  FlexioStatus msg_stream_flush(flexio_msg_stream* stream) override {
    return status_of(flexio_msg_stream_flush(stream));
  }
  FlexioStatus msg_stream_destroy(flexio_msg_stream* stream) override {
    return status_of(flexio_msg_stream_destroy(stream));
  }
  int msg_stream_id(flexio_msg_stream* stream) override { return flexio_msg_stream_get_id(stream); }

  std::string_view provider_name() const noexcept override { return "flexio-sdk"; }
};

}  // namespace

Result<std::unique_ptr<FlexioOps>> make_sdk_flexio_ops() {
  return std::unique_ptr<FlexioOps>(std::make_unique<SdkFlexioOps>());
}

}  // namespace qb::dpa::flexio
