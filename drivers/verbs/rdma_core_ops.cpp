// VerbsOps over rdma-core: each call is the public libibverbs / libmlx5 function of the same
// name, nothing added (decisions belong to the driver, where the fake can check them).
#include <algorithm>
#include <cerrno>

#include "verbs_ops.hpp"

namespace qb::drv::verbs {
namespace {

class RdmaCoreOps final : public VerbsOps {
 public:
  std::vector<std::string> device_names() override {
    std::vector<std::string> names;
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list == nullptr) return names;
    for (int i = 0; i < count; ++i) names.emplace_back(ibv_get_device_name(list[i]));
    ibv_free_device_list(list);
    return names;
  }

  ibv_context* open_device(std::string_view name) override {
    int count = 0;
    ibv_device** list = ibv_get_device_list(&count);
    if (list == nullptr) return nullptr;
    ibv_context* context = nullptr;
    errno = ENODEV;
    for (int i = 0; i < count; ++i) {
      if (name == ibv_get_device_name(list[i])) {
        context = ibv_open_device(list[i]);
        break;
      }
    }
    const int saved = errno;
    ibv_free_device_list(list);  // an opened context keeps its device
    errno = saved;
    return context;
  }

  int close_device(ibv_context* context) override { return ibv_close_device(context); }
  int query_device(ibv_context* context, ibv_device_attr_ex* attr) override {
    return ibv_query_device_ex(context, nullptr, attr);
  }
  int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) override {
    return ibv_query_port(context, port, attr);
  }
  int query_gid(ibv_context* context, uint8_t port, int index, ibv_gid* gid) override {
    return ibv_query_gid(context, port, index, gid);
  }
  int query_gid_ex(ibv_context* context, uint32_t port, uint32_t index,
                   ibv_gid_entry* entry) override {
    return ibv_query_gid_ex(context, port, index, entry, 0);
  }
  int get_clock_info(ibv_context* context, mlx5dv_clock_info* info) override {
    return mlx5dv_get_clock_info(context, info);
  }
  int query_mlx5_device(ibv_context* context, mlx5dv_context* attr) override {
    return mlx5dv_query_device(context, attr);
  }
  int read_device_clock(ibv_context* context, uint64_t* ticks) override {
    ibv_values_ex values{};
    values.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
    const int rc = ibv_query_rt_values_ex(context, &values);
    if (rc != 0) return rc;
    *ticks = static_cast<uint64_t>(values.raw_clock.tv_sec) * 1'000'000'000ULL +
             static_cast<uint64_t>(values.raw_clock.tv_nsec);
    return 0;
  }

  ibv_pd* alloc_pd(ibv_context* context) override { return ibv_alloc_pd(context); }
  int dealloc_pd(ibv_pd* pd) override { return ibv_dealloc_pd(pd); }
  ibv_mr* reg_mr(ibv_pd* pd, void* address, size_t length, int access) override {
    return ibv_reg_mr(pd, address, length, access);
  }
  int dereg_mr(ibv_mr* mr) override { return ibv_dereg_mr(mr); }
  ibv_cq_ex* create_cq(ibv_context* context, ibv_cq_init_attr_ex* attr) override {
    return ibv_create_cq_ex(context, attr);
  }
  int destroy_cq(ibv_cq_ex* cq) override { return ibv_destroy_cq(ibv_cq_ex_to_cq(cq)); }
  ibv_qp* create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) override { return ibv_create_qp(pd, attr); }
  int modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) override {
    return ibv_modify_qp(qp, attr, mask);
  }
  int modify_qp_rate_limit(ibv_qp* qp, ibv_qp_rate_limit_attr* attr) override {
    return ibv_modify_qp_rate_limit(qp, attr);
  }
  int destroy_qp(ibv_qp* qp) override { return ibv_destroy_qp(qp); }

  mlx5dv_sched_node* sched_node_create(ibv_context* context,
                                       const mlx5dv_sched_attr* attr) override {
    return mlx5dv_sched_node_create(context, attr);
  }
  mlx5dv_sched_leaf* sched_leaf_create(ibv_context* context,
                                       const mlx5dv_sched_attr* attr) override {
    return mlx5dv_sched_leaf_create(context, attr);
  }
  int sched_node_destroy(mlx5dv_sched_node* node) override {
    return mlx5dv_sched_node_destroy(node);
  }
  int sched_leaf_destroy(mlx5dv_sched_leaf* leaf) override {
    return mlx5dv_sched_leaf_destroy(leaf);
  }
  int modify_qp_sched_elem(ibv_qp* qp, const mlx5dv_sched_leaf* requester,
                           const mlx5dv_sched_leaf* responder) override {
    return mlx5dv_modify_qp_sched_elem(qp, requester, responder);
  }

  int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) noexcept override {
    return ibv_post_send(qp, wr, bad_wr);
  }
  int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) noexcept override {
    return ibv_post_recv(qp, wr, bad_wr);
  }
  int poll_cq(ibv_cq_ex* cq, std::span<WorkCompletion> out, bool timestamps) noexcept override {
    if (out.empty()) return 0;
    // Without timestamps: ibv_poll_cq, which every provider implements alike. rdma-core's rxe
    // (Soft-RoCE, through at least 44) consumes one completion too many when ibv_end_poll
    // follows an ibv_next_poll that found none (the documented pattern): its CQ then hands out
    // stale entries as new ones (seen on Soft-RoCE: 1.2 M phantom receive completions for 32
    // messages sent). Devices with completion timestamps (mlx5) keep the extended poll.
    if (!timestamps) return poll_plain(ibv_cq_ex_to_cq(cq), out);
    // An error ibv_next_poll gave after completions were read: reported by the next call on
    // that CQ (the ones read are returned first; a CQ is polled by one thread).
    thread_local ibv_cq_ex* deferred_cq = nullptr;
    thread_local int deferred_error = 0;
    if (deferred_cq == cq && deferred_error != 0) {
      const int error = deferred_error;
      deferred_cq = nullptr;
      deferred_error = 0;
      return -error;
    }
    ibv_poll_cq_attr attr{};
    int rc = ibv_start_poll(cq, &attr);
    if (rc == ENOENT) return 0;
    if (rc != 0) return -rc;  // ibv_start_poll: no ibv_end_poll after a failure
    size_t n = 0;
    while (true) {
      WorkCompletion& wc = out[n++];
      wc.wr_id = cq->wr_id;
      wc.status = cq->status;
      // ibv_create_cq_ex(3): on an error completion only wr_id and status are valid (and the
      // vendor error); the other fields are not read.
      if (wc.status == IBV_WC_SUCCESS) {
        wc.opcode = ibv_wc_read_opcode(cq);
        wc.byte_len = ibv_wc_read_byte_len(cq);
        wc.timestamp = timestamps ? ibv_wc_read_completion_ts(cq) : 0;
      } else {
        wc.opcode = IBV_WC_SEND;
        wc.byte_len = 0;
        wc.timestamp = 0;
      }
      if (n == out.size()) break;
      rc = ibv_next_poll(cq);
      if (rc == ENOENT) break;  // no more
      if (rc != 0) {
        deferred_cq = cq;
        deferred_error = rc;
        break;
      }
    }
    ibv_end_poll(cq);
    return static_cast<int>(n);
  }

  std::string_view provider_name() const noexcept override { return "rdma-core"; }

 private:
  static int poll_plain(ibv_cq* cq, std::span<WorkCompletion> out) noexcept {
    constexpr size_t kBatch = 32;
    ibv_wc wcs[kBatch];
    size_t n = 0;
    while (n < out.size()) {
      const int want = static_cast<int>(std::min(kBatch, out.size() - n));
      const int polled = ibv_poll_cq(cq, want, wcs);
      if (polled < 0) return n > 0 ? static_cast<int>(n) : polled;
      for (int i = 0; i < polled; ++i) {
        WorkCompletion& wc = out[n++];
        wc.wr_id = wcs[i].wr_id;
        wc.status = wcs[i].status;
        // ibv_poll_cq(3): on an error completion only wr_id, status, qp_num and vendor_err are
        // valid.
        const bool ok = wcs[i].status == IBV_WC_SUCCESS;
        wc.opcode = ok ? wcs[i].opcode : IBV_WC_SEND;
        wc.byte_len = ok ? wcs[i].byte_len : 0;
        wc.timestamp = 0;
      }
      if (polled < want) break;
    }
    return static_cast<int>(n);
  }
};

}  // namespace

std::unique_ptr<VerbsOps> make_rdma_core_ops() {
  return std::make_unique<RdmaCoreOps>();
}

}  // namespace qb::drv::verbs
