// A fake ConnectX behind the verbs seam, for tests and CI (no RDMA device here): it enforces the
// rules of the man pages (mlx5dv_sched_node_create(3), mlx5dv_modify_qp_sched_elem(3),
// ibv_modify_qp(3), ibv_post_send(3)), records every control-path call, counts live objects,
// can fail any call on demand, and completes work requests either at once or on the
// simulator's timing: the tree the driver programmed (as the calls give it, flags and all) is
// rebuilt and run by the sim driver's model, so a wrongly programmed tree shows in the shares.
//
// Model choices (docs/verbs.md): one root node per context; destroying a node with children or
// a leaf with QPs attached is EBUSY; a QP not attached to a leaf is scheduled by an implicit
// leaf of default weight under the root; a SEND/WRITE_WITH_IMM that finds no receive posted
// waits for one (RNR retry forever).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qb/policies/wire.hpp"
#include "verbs_config.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

struct FakeGid {
  ibv_gid gid{};
  ibv_gid_type type = IBV_GID_TYPE_ROCE_V2;
};
/// A GID from its text ("fe80::ac0:ebff:fe3d:ca54", "::ffff:192.168.1.10"); throws on bad text.
ibv_gid gid_from_text(const char* text);
/// The table of a ConnectX Ethernet port with one IPv4 address, as `show_gids` lists it: index
/// 0 the link-local GID (from the MAC) as RoCE v1, 1 the same as RoCE v2, 2 and 3 the
/// IPv4-mapped pair (v1, v2).
std::vector<FakeGid> connectx_roce_gids();
/// An InfiniBand port: index 0 the port GID (the default subnet prefix and the port GUID).
std::vector<FakeGid> infiniband_gids();

struct FakePortConfig {
  uint8_t link_layer = IBV_LINK_LAYER_ETHERNET;  // IBV_LINK_LAYER_INFINIBAND for IB
  ibv_port_state state = IBV_PORT_ACTIVE;
  ibv_mtu active_mtu = IBV_MTU_4096;
  double rate_bps = 100e9;  // reported as the nearest speed x width; the simulated link rate
  uint16_t lid = 1;         // IB
  /// The GID table (gid_tbl_len entries): ibv_query_gid_ex's answer per index; an all-zero
  /// GID, or an index beyond the list, is an empty entry (ENODATA). By default a ConnectX RoCE
  /// port with one IPv4 address (connectx_roce_gids); fake_device_for_port gives an IB port
  /// infiniband_gids.
  std::vector<FakeGid> gids = connectx_roce_gids();
  int gid_table_len = 16;
  /// Simulated timing: one-way propagation, and the wire model's extras the link layer and the
  /// QP's path MTU do not give (VLAN tag, IPv6, IB GRH).
  int64_t propagation_delay_ns = 0;
  bool vlan = false;
  bool ipv6 = false;
  bool ib_grh = false;
};

struct FakeDeviceConfig {
  std::string name = "mlx5_0";
  FakePortConfig port;  // port 1; the device has one port
  FakeTiming timing = FakeTiming::simulated;
  bool sched_support = true;  // mlx5dv_sched_*: otherwise EOPNOTSUPP
  /// QoS capabilities libmlx5 checks (attr_supported): without them BW_SHARE / MAX_AVG_BW are
  /// EOPNOTSUPP.
  bool nic_bw_share = true;
  bool nic_rate_limit = true;
  /// Firmware limits (EINVAL): the QoS capability max_tsar_bw_share (100 on a ConnectX-6 Dx),
  /// and the levels of the tree, root included (2^log_nic_max_sched_depth: 4 there).
  uint32_t max_bw_share = 100;
  uint32_t max_sched_levels = 4;
  bool completion_timestamps = true;  // completion_timestamp_mask != 0, clock info
  /// The device clock: one tick per ns, a free-running counter of these bits (it wraps), so a
  /// clock info (mlx5dv_get_clock_info: the ns and the ticks when it was read) converts only
  /// timestamps within half a wrap of its reading, and each read gives a new one.
  uint64_t clock_mask = (1ULL << 63) - 1;
  /// mlx5dv_query_device's max_clock_info_update_nsec; 0: a quarter of the wrap.
  uint64_t max_clock_info_update_ns = 0;
  uint32_t rate_limit_min_kbps = 1'000;
  uint32_t rate_limit_max_kbps = 100'000'000;
  bool rate_limit_rc = true;  // packet_pacing_caps.supported_qpts has RC
  /// The process's locked-memory allowance the fake reports (VerbsOps::locked_memory_limit):
  /// unlimited unless a test lowers it.
  LockedMemoryLimit locked_memory;
  /// The first QP number handed out: fakes in different processes of one job given different
  /// ones have QP numbers as unique as a fabric's devices (a test can tell whose QP it is).
  uint32_t first_qp_number = 0x100;
};

/// Counts of what the fake holds, by kind.
struct FakeLiveObjects {
  uint32_t contexts = 0, pds = 0, mrs = 0, cqs = 0, qps = 0, nodes = 0, leaves = 0;
  uint32_t total() const noexcept { return contexts + pds + mrs + cqs + qps + nodes + leaves; }
  std::string describe() const;
};

class FakeMlx5 final : public VerbsOps {
 public:
  explicit FakeMlx5(FakeDeviceConfig config);
  ~FakeMlx5() override;
  FakeMlx5(const FakeMlx5&) = delete;
  FakeMlx5& operator=(const FakeMlx5&) = delete;

  /// Every control-path call in order, e.g. "sched_leaf_create(parent=node#1, flags=BW_SHARE,
  /// bw_share=7, max_avg_bw=0, comp_mask=0) = leaf#2". Fast-path calls are counted only.
  const std::vector<std::string>& calls() const noexcept;
  /// Misuse a device would not report but that is a bug in the caller (an object used after it
  /// was destroyed, resources left when the context closes, a CQ overrun).
  const std::vector<std::string>& violations() const noexcept;
  FakeLiveObjects live() const noexcept;
  /// Control-path call number `call` (1-based, as counted in calls()) fails with `error`.
  void fail_call(uint32_t call, int error) noexcept;
  uint64_t posted_sends() const noexcept;
  /// The next poll_cq (of any CQ) fails with -error (ibv_start_poll/ibv_next_poll failing).
  void fail_next_poll(int error) noexcept;

  // VerbsOps
  std::vector<std::string> device_names() override;
  ibv_context* open_device(std::string_view name) override;
  int close_device(ibv_context* context) override;
  int query_device(ibv_context* context, ibv_device_attr_ex* attr) override;
  int query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) override;
  int query_gid(ibv_context* context, uint8_t port, int index, ibv_gid* gid) override;
  int query_gid_ex(ibv_context* context, uint32_t port, uint32_t index,
                   ibv_gid_entry* entry) override;
  int get_clock_info(ibv_context* context, mlx5dv_clock_info* info) override;
  int query_mlx5_device(ibv_context* context, mlx5dv_context* attr) override;
  int read_device_clock(ibv_context* context, uint64_t* ticks) override;
  ibv_pd* alloc_pd(ibv_context* context) override;
  int dealloc_pd(ibv_pd* pd) override;
  ibv_mr* reg_mr(ibv_pd* pd, void* address, size_t length, int access) override;
  int dereg_mr(ibv_mr* mr) override;
  ibv_cq_ex* create_cq(ibv_context* context, ibv_cq_init_attr_ex* attr) override;
  int destroy_cq(ibv_cq_ex* cq) override;
  ibv_qp* create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) override;
  int modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) override;
  int modify_qp_rate_limit(ibv_qp* qp, ibv_qp_rate_limit_attr* attr) override;
  int destroy_qp(ibv_qp* qp) override;
  mlx5dv_sched_node* sched_node_create(ibv_context* context,
                                       const mlx5dv_sched_attr* attr) override;
  mlx5dv_sched_leaf* sched_leaf_create(ibv_context* context,
                                       const mlx5dv_sched_attr* attr) override;
  int sched_node_destroy(mlx5dv_sched_node* node) override;
  int sched_leaf_destroy(mlx5dv_sched_leaf* leaf) override;
  int modify_qp_sched_elem(ibv_qp* qp, const mlx5dv_sched_leaf* requester,
                           const mlx5dv_sched_leaf* responder) override;
  int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) noexcept override;
  int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) noexcept override;
  int poll_cq(ibv_cq_ex* cq, std::span<WorkCompletion> out, bool timestamps) noexcept override;
  LockedMemoryLimit locked_memory_limit() override;
  Clock* simulated_clock() noexcept override;
  std::string_view provider_name() const noexcept override { return "fake"; }

  struct State;  // fake_mlx5.cpp

 private:
  std::unique_ptr<State> state_;
};

/// The ConnectX the fake emulates for a suite's port: its rate, link layer (IB or Ethernet),
/// MTU and propagation delay, so `provider = "fake"` runs any RDMA suite.
FakeDeviceConfig fake_device_for_port(double rate_bps, const policy::WireModel& wire,
                                      int64_t propagation_delay_ns);

}  // namespace qb::drv::verbs
