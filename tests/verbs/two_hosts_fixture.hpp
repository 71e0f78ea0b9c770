// What the tests of drivers on several "hosts" in one process share: one fake ConnectX behind
// a lock (the drivers run on threads), and a two-group plan with its topology.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "fake_mlx5.hpp"
#include "qb/drivers/backend.hpp"

namespace qb::drv::verbs {

// The fake is not thread safe; two drivers on two threads share it through this lock.
class LockedOps : public VerbsOps {
 public:
  explicit LockedOps(FakeMlx5& fake) : fake_(fake) {}
#define QB_LOCKED(call)                     \
  std::lock_guard<std::mutex> lock(mutex_); \
  return fake_.call
  std::vector<std::string> device_names() override {
    QB_LOCKED(device_names());
  }
  ibv_context* open_device(std::string_view n) override {
    QB_LOCKED(open_device(n));
  }
  int close_device(ibv_context* c) override {
    QB_LOCKED(close_device(c));
  }
  int query_device(ibv_context* c, ibv_device_attr_ex* a) override {
    QB_LOCKED(query_device(c, a));
  }
  int query_port(ibv_context* c, uint8_t p, ibv_port_attr* a) override {
    QB_LOCKED(query_port(c, p, a));
  }
  int query_gid(ibv_context* c, uint8_t p, int i, ibv_gid* g) override {
    QB_LOCKED(query_gid(c, p, i, g));
  }
  int get_clock_info(ibv_context* c, mlx5dv_clock_info* i) override {
    QB_LOCKED(get_clock_info(c, i));
  }
  int query_gid_ex(ibv_context* c, uint32_t p, uint32_t i, ibv_gid_entry* e) override {
    QB_LOCKED(query_gid_ex(c, p, i, e));
  }
  int query_mlx5_device(ibv_context* c, mlx5dv_context* a) override {
    QB_LOCKED(query_mlx5_device(c, a));
  }
  int read_device_clock(ibv_context* c, uint64_t* t) override {
    QB_LOCKED(read_device_clock(c, t));
  }
  ibv_pd* alloc_pd(ibv_context* c) override {
    QB_LOCKED(alloc_pd(c));
  }
  int dealloc_pd(ibv_pd* p) override {
    QB_LOCKED(dealloc_pd(p));
  }
  ibv_mr* reg_mr(ibv_pd* p, void* a, size_t l, int x) override {
    QB_LOCKED(reg_mr(p, a, l, x));
  }
  int dereg_mr(ibv_mr* m) override {
    QB_LOCKED(dereg_mr(m));
  }
  ibv_cq_ex* create_cq(ibv_context* c, ibv_cq_init_attr_ex* a) override {
    QB_LOCKED(create_cq(c, a));
  }
  int destroy_cq(ibv_cq_ex* c) override {
    QB_LOCKED(destroy_cq(c));
  }
  ibv_qp* create_qp(ibv_pd* p, ibv_qp_init_attr* a) override {
    QB_LOCKED(create_qp(p, a));
  }
  int modify_qp(ibv_qp* q, ibv_qp_attr* a, int m) override {
    QB_LOCKED(modify_qp(q, a, m));
  }
  int modify_qp_rate_limit(ibv_qp* q, ibv_qp_rate_limit_attr* a) override {
    QB_LOCKED(modify_qp_rate_limit(q, a));
  }
  int destroy_qp(ibv_qp* q) override {
    QB_LOCKED(destroy_qp(q));
  }
  mlx5dv_sched_node* sched_node_create(ibv_context* c, const mlx5dv_sched_attr* a) override {
    QB_LOCKED(sched_node_create(c, a));
  }
  mlx5dv_sched_leaf* sched_leaf_create(ibv_context* c, const mlx5dv_sched_attr* a) override {
    QB_LOCKED(sched_leaf_create(c, a));
  }
  int sched_node_destroy(mlx5dv_sched_node* n) override {
    QB_LOCKED(sched_node_destroy(n));
  }
  int sched_leaf_destroy(mlx5dv_sched_leaf* l) override {
    QB_LOCKED(sched_leaf_destroy(l));
  }
  int modify_qp_sched_elem(ibv_qp* q, const mlx5dv_sched_leaf* r,
                           const mlx5dv_sched_leaf* s) override {
    QB_LOCKED(modify_qp_sched_elem(q, r, s));
  }
  int post_send(ibv_qp* q, ibv_send_wr* w, ibv_send_wr** b) noexcept override {
    QB_LOCKED(post_send(q, w, b));
  }
  int post_recv(ibv_qp* q, ibv_recv_wr* w, ibv_recv_wr** b) noexcept override {
    QB_LOCKED(post_recv(q, w, b));
  }
  int poll_cq(ibv_cq_ex* c, std::span<WorkCompletion> o, bool t) noexcept override {
    QB_LOCKED(poll_cq(c, o, t));
  }
#undef QB_LOCKED
  std::string_view provider_name() const noexcept override {
    return "fake";
  }

 private:
  FakeMlx5& fake_;
  std::mutex mutex_;
};

inline policy::QosPlan two_group_plan(uint32_t flows) {
  policy::QosPlan plan;
  plan.tree = policy::SchedTree::with_root();
  const uint32_t g1 = plan.tree.add_child(0, "g1", true, 7);
  const uint32_t g2 = plan.tree.add_child(0, "g2", true, 3, 4096e6);
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = 100e9;
  for (uint32_t f = 0; f < flows; ++f) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    flow.leaf = f % 2 == 0 ? g1 : g2;
    flow.op = f % 3 == 0 ? policy::RdmaOp::send : policy::RdmaOp::write;
    flow.dscp = 26;
    plan.flows.push_back(flow);
  }
  return plan;
}

inline Topology topology_for(const policy::QosPlan& plan) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  topology.max_message_bytes = 4096;
  return topology;
}

/// open -> apply -> start on `driver`, stopping at the first error (returned).
template <class AnyDriver>
Status bring_up(AnyDriver& driver, const Topology& topology, const policy::QosPlan& plan) {
  Status s = driver.open(topology);
  if (s) s = driver.apply(plan);
  if (s) s = driver.start();
  return s;
}

inline FakeDeviceConfig instant_device() {
  FakeDeviceConfig device;
  device.timing = FakeTiming::instant;
  return device;
}

}  // namespace qb::drv::verbs
