// The verbs seam: every rdma-core and mlx5dv call the verbs driver makes goes through VerbsOps,
// so its decisions (the scheduling tree, QP attributes, teardown order, error paths) are tested
// without a device, against a fake that enforces the man pages' rules (fake_mlx5.hpp). The
// production implementation (rdma_core_ops.cpp) calls rdma-core's public API directly; the types
// are rdma-core's own, so the fake checks exactly what a ConnectX would receive.
#pragma once

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "locked_memory.hpp"

namespace qb::drv {
class Clock;
}

namespace qb::drv::verbs {

/// One completion as the driver reads it from an extended CQ (ibv_start_poll/ibv_next_poll and
/// the ibv_wc_read_* getters).
struct WorkCompletion {
  uint64_t wr_id = 0;
  ibv_wc_status status = IBV_WC_SUCCESS;
  ibv_wc_opcode opcode = IBV_WC_SEND;
  uint32_t byte_len = 0;
  uint64_t timestamp = 0;  // device clock ticks; 0 when the CQ was made without timestamps
};

/// Return conventions are rdma-core's: pointers are nullptr with errno set on failure; ints are 0
/// or an errno value. The fast-path calls never throw and never allocate.
class VerbsOps {
 public:
  virtual ~VerbsOps() = default;

  // Devices and ports.
  virtual std::vector<std::string> device_names() = 0;  // ibv_get_device_list
  virtual ibv_context* open_device(std::string_view name) = 0;
  virtual int close_device(ibv_context* context) = 0;
  virtual int query_device(ibv_context* context, ibv_device_attr_ex* attr) = 0;
  virtual int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) = 0;
  virtual int query_gid(ibv_context* context, uint8_t port, int index, ibv_gid* gid) = 0;
  /// ibv_query_gid_ex (flags 0): the GID and its type (RoCE v1 / v2, IB); ENODATA for an empty
  /// entry.
  virtual int query_gid_ex(ibv_context* context, uint32_t port, uint32_t index,
                           ibv_gid_entry* entry) = 0;
  /// mlx5dv_get_clock_info: converts completion timestamps to ns (mlx5dv_ts_to_ns).
  virtual int get_clock_info(ibv_context* context, mlx5dv_clock_info* info) = 0;
  /// mlx5dv_query_device: with MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE in attr->comp_mask, the
  /// max_clock_info_update_nsec within which the clock info must be read again.
  virtual int query_mlx5_device(ibv_context* context, mlx5dv_context* attr) = 0;
  /// ibv_query_rt_values_ex: the device clock now, in ticks.
  virtual int read_device_clock(ibv_context* context, uint64_t* ticks) = 0;

  // Resources.
  virtual ibv_pd* alloc_pd(ibv_context* context) = 0;
  virtual int dealloc_pd(ibv_pd* pd) = 0;
  virtual ibv_mr* reg_mr(ibv_pd* pd, void* address, size_t length, int access) = 0;
  virtual int dereg_mr(ibv_mr* mr) = 0;
  virtual ibv_cq_ex* create_cq(ibv_context* context, ibv_cq_init_attr_ex* attr) = 0;
  virtual int destroy_cq(ibv_cq_ex* cq) = 0;
  virtual ibv_qp* create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) = 0;
  virtual int modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) = 0;
  virtual int modify_qp_rate_limit(ibv_qp* qp, ibv_qp_rate_limit_attr* attr) = 0;
  virtual int destroy_qp(ibv_qp* qp) = 0;

  // NIC scheduling elements (mlx5dv_sched_node_create(3)).
  virtual mlx5dv_sched_node* sched_node_create(ibv_context* context,
                                               const mlx5dv_sched_attr* attr) = 0;
  virtual mlx5dv_sched_leaf* sched_leaf_create(ibv_context* context,
                                               const mlx5dv_sched_attr* attr) = 0;
  virtual int sched_node_destroy(mlx5dv_sched_node* node) = 0;
  virtual int sched_leaf_destroy(mlx5dv_sched_leaf* leaf) = 0;
  /// mlx5dv_modify_qp_sched_elem: attach (leaves) or detach (nullptr).
  virtual int modify_qp_sched_elem(ibv_qp* qp, const mlx5dv_sched_leaf* requester,
                                   const mlx5dv_sched_leaf* responder) = 0;

  // Fast path.
  virtual int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) noexcept = 0;
  virtual int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) noexcept = 0;
  /// Up to out.size() completions; returns how many, or a negative errno. `timestamps`: the CQ
  /// was created with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP (read them).
  virtual int poll_cq(ibv_cq_ex* cq, std::span<WorkCompletion> out, bool timestamps) noexcept = 0;

  /// Not rdma-core: the process's locked-memory allowance, which memory regions (and on mlx5
  /// the QP and CQ queues) count against. The fake answers its configured one.
  virtual LockedMemoryLimit locked_memory_limit() { return read_locked_memory_limit(); }
  /// Not rdma-core: a simulated device runs on simulated time, and the driver then takes the
  /// engine's clock from it (virtual time, one worker). Real devices: nullptr.
  virtual Clock* simulated_clock() noexcept { return nullptr; }
  /// Named in the results and the errors: "rdma-core", "fake".
  virtual std::string_view provider_name() const noexcept = 0;
};

/// VerbsOps over rdma-core (libibverbs, libmlx5).
std::unique_ptr<VerbsOps> make_rdma_core_ops();

}  // namespace qb::drv::verbs
