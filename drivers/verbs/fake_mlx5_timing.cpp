// The fake ConnectX's completions: at once (instant timing), or on the simulator's timing,
// where the tree the driver programmed is rebuilt and run by the sim driver's port model.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "fake_mlx5_state.hpp"

namespace qb::drv::verbs {

using namespace fake;  // the fake's records (fake_mlx5_state.hpp)

namespace {

ibv_wc_opcode send_opcode(ibv_wr_opcode op) {
  switch (op) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ:
      return IBV_WC_RDMA_READ;
    default:
      return IBV_WC_SEND;
  }
}

bool consumes_receive(ibv_wr_opcode op) {
  return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

// The tree as programmed, with `index` mapping each live element of this context's root to its
// tree element (the root first). No root: an implicit one.
policy::SchedTree programmed_tree(
    const std::vector<std::unique_ptr<ElementRecord>>& element_records,
    std::vector<std::pair<const ElementRecord*, uint32_t>>& index) {
  const ElementRecord* root = nullptr;
  for (const auto& e : element_records) {
    if (e->alive && !e->leaf && e->parent == nullptr) root = e.get();
  }
  policy::SchedTree tree =
      policy::SchedTree::with_root(root != nullptr ? root->label() : "implicit-root");
  if (root != nullptr) index.emplace_back(root, 0);
  // Elements are created parent first, so one pass in creation order places every child.
  for (const auto& e : element_records) {
    if (!e->alive || e.get() == root) continue;
    uint32_t parent = policy::SchedTree::kNoParent;
    for (auto& [record, i] : index) {
      if (record == e->parent) parent = i;
    }
    if (parent == policy::SchedTree::kNoParent) continue;  // under another root: not ours
    const uint32_t share =
        (e->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) != 0 ? e->bw_share : 0;
    const double cap_bps = (e->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW) != 0
                               ? static_cast<double>(e->max_avg_bw) * 1e6
                               : 0.0;
    index.emplace_back(e.get(), tree.add_child(parent, e->label(), e->leaf, share, cap_bps));
  }
  return tree;
}

}  // namespace

int64_t FakeMlx5::State::SimClock::now_ns() noexcept {
  state_.ensure_model();
  return state_.port.clock().now_ns();
}

void FakeMlx5::State::SimClock::wait_until(int64_t deadline_ns) noexcept {
  state_.ensure_model();
  state_.port.clock().wait_until(deadline_ns);
}

int64_t FakeMlx5::State::device_now_ns() {
  if (config.timing == FakeTiming::simulated) {
    ensure_model();
    return port.clock().now_ns();
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int64_t FakeMlx5::State::clock_now_ns() {
  if (config.timing == FakeTiming::simulated && !model_built) return 0;
  return device_now_ns();
}

int FakeMlx5::State::transmit(QpRecord* qp, QpRecord* dest, const InFlight& message, bool remote,
                              int64_t& now_ns) noexcept {
  if (config.timing == FakeTiming::instant) {
    ++qp->send_outstanding;
    if (now_ns < 0) now_ns = device_now_ns();  // one clock read per call
    arrive(dest, message, now_ns);
    complete_send(qp, message, now_ns);
    return 0;
  }
  ensure_model();
  if (qp->sim_flow == UINT32_MAX) return EINVAL;  // connected after traffic started
  Message m;
  m.bytes = message.bytes;
  m.scheduled_ns = port.clock().now_ns();
  if (message.opcode == IBV_WR_RDMA_READ) {
    // The data is the responder's: its READ-response flow carries it.
    if (dest->sim_flow == UINT32_MAX) return EINVAL;
    m.flow = dest->sim_flow + 2;
    m.sequence = dest->read_sequence;
    if (port.queue().tx_burst({&m, 1}) != 1) return ENOMEM;
    ++dest->read_sequence;
    ++qp->send_outstanding;
    dest->reads_in_flight.emplace_back(qp, message);
    return 0;
  }
  m.flow = qp->sim_flow + (remote ? 1 : 0);
  m.sequence = qp->next_sequence;
  if (port.queue().tx_burst({&m, 1}) != 1) return ENOMEM;
  ++qp->next_sequence;
  ++qp->send_outstanding;
  qp->in_flight.push_back(message);
  qp->to_arrive.push_back(message);
  return 0;
}

void FakeMlx5::State::push_cqe(CqRecord* cq, const WorkCompletion& wc, QpRecord* send_owner) {
  if (cq->entries.size() >= cq->capacity) {
    violations.push_back(fmt::format("{} overrun (capacity {})", cq->label(), cq->capacity));
    return;
  }
  cq->entries.push_back(wc);
  cq->send_owner.push_back(send_owner);
}

void FakeMlx5::State::arrive(QpRecord* dest, const InFlight& message, int64_t time_ns) {
  if (!consumes_receive(message.opcode)) return;
  if (dest->recv_wrs.empty()) {
    dest->waiting_rx.emplace_back(message, time_ns);  // RNR: retried until a receive comes
    return;
  }
  WorkCompletion wc;
  wc.wr_id = dest->recv_wrs.front();
  dest->recv_wrs.pop_front();
  wc.opcode =
      message.opcode == IBV_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
  wc.byte_len = message.bytes;
  wc.timestamp =
      config.completion_timestamps ? static_cast<uint64_t>(time_ns) & config.clock_mask : 0;
  push_cqe(dest->recv_cq, wc, nullptr);
}

void FakeMlx5::State::complete_send(QpRecord* qp, const InFlight& message, int64_t time_ns) {
  if (!message.signaled) {
    --qp->send_outstanding;  // model choice: an unsignaled request frees its slot at once
    return;
  }
  WorkCompletion wc;
  wc.wr_id = message.wr_id;
  wc.opcode = send_opcode(message.opcode);
  wc.byte_len = message.bytes;
  wc.timestamp =
      config.completion_timestamps ? static_cast<uint64_t>(time_ns) & config.clock_mask : 0;
  push_cqe(qp->send_cq, wc, qp);
}

void FakeMlx5::State::ensure_model() {
  if (model_built) return;
  model_built = true;
  std::vector<std::pair<const ElementRecord*, uint32_t>> index;  // record -> tree element
  policy::SchedTree tree = programmed_tree(element_records, index);
  uint32_t implicit_leaf = policy::SchedTree::kNoParent;
  policy::QosPlan plan;
  plan.port_rate_bps = config.port.rate_bps;
  plan.wire.transport = config.port.link_layer == IBV_LINK_LAYER_INFINIBAND
                            ? policy::Transport::ib
                            : policy::Transport::rocev2;
  plan.wire.vlan = config.port.vlan;
  plan.wire.ipv6 = config.port.ipv6;
  plan.wire.ib_grh = config.port.ib_grh;
  auto leaf_index = [&](const ElementRecord* leaf) {
    for (auto& [record, i] : index) {
      if (record == leaf && leaf != nullptr) return i;
    }
    if (implicit_leaf == policy::SchedTree::kNoParent) {
      implicit_leaf = tree.add_child(0, "unattached", true, 0);
    }
    return implicit_leaf;
  };
  for (auto& q : qp_records) {
    if (!q->alive || (q->state != IBV_QPS_RTS && q->state != IBV_QPS_RTR)) continue;
    // Three simulator flows per QP, one per opcode family (the simulator charges a WRITE's
    // RETH and a READ response's AETH per flow; a QP of the driver uses one family). SEND
    // and WRITE go by the QP's requester leaf; the READ responses it sends, by its responder
    // leaf.
    q->sim_flow = static_cast<uint32_t>(plan.flows.size());
    for (const policy::RdmaOp op :
         {policy::RdmaOp::send, policy::RdmaOp::write, policy::RdmaOp::read}) {
      policy::FlowPlan flow;
      flow.name = fmt::format("{}.{}", q->label(), policy::op_name(op));
      flow.group = q->label();
      flow.leaf = leaf_index(op == policy::RdmaOp::read ? q->responder_leaf : q->leaf);
      flow.op = op;
      plan.flows.push_back(std::move(flow));
    }
    sim_qps.push_back(q.get());
  }
  plan.wire.mtu_bytes = path_mtu_bytes;
  plan.tree = std::move(tree);
  Topology topology;
  topology.port_rate_bps = config.port.rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = config.port.propagation_delay_ns;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  topology.workers = 1;
  port.configure(topology, plan);
  port.start();
}

void FakeMlx5::State::pump_model() {
  if (!model_built) return;
  while (true) {
    const uint32_t n = port.queue().poll(sim_completions);
    for (uint32_t i = 0; i < n; ++i) {
      const Completion& c = sim_completions[i];
      QpRecord* qp = sim_qps[c.flow / 3];
      if (c.flow % 3 == 2) {  // READ responses of `qp`: the requester's READ completes
        if (c.kind != Completion::Kind::tx_done) continue;
        for (uint16_t m = 0; m < c.messages && !qp->reads_in_flight.empty(); ++m) {
          const auto [requester, message] = qp->reads_in_flight.front();
          qp->reads_in_flight.pop_front();
          if (requester->alive) complete_send(requester, message, c.time_ns);
        }
      } else if (c.kind == Completion::Kind::tx_done) {
        for (uint16_t m = 0; m < c.messages && !qp->in_flight.empty(); ++m) {
          const InFlight message = qp->in_flight.front();
          qp->in_flight.pop_front();
          complete_send(qp, message, c.time_ns);
        }
      } else if (c.last_of_message && !qp->to_arrive.empty()) {
        const InFlight message = qp->to_arrive.front();
        qp->to_arrive.pop_front();
        if (QpRecord* dest = qp_by_number(qp->dest_qp_num)) arrive(dest, message, c.time_ns);
      }
    }
    if (n < sim_completions.size()) return;
  }
}

int FakeMlx5::poll_cq(ibv_cq_ex* cq, std::span<WorkCompletion> out, bool timestamps) noexcept {
  State& s = *state_;
  CqRecord* record = State::record_of(cq);
  if (!s.check_alive(record, "cq")) return -EINVAL;
  if (const int error = s.fail_next_poll.exchange(0); error != 0) return -error;
  if (s.config.timing == FakeTiming::simulated) s.pump_model();
  size_t n = 0;
  while (n < out.size() && !record->entries.empty()) {
    out[n] = record->entries.front();
    if (!timestamps) out[n].timestamp = 0;
    ++n;
    record->entries.pop_front();
    if (QpRecord* owner = record->send_owner.front()) --owner->send_outstanding;
    record->send_owner.pop_front();
  }
  return static_cast<int>(n);
}

Clock* FakeMlx5::simulated_clock() noexcept {
  return state_->config.timing == FakeTiming::simulated ? &state_->sim_clock : nullptr;
}

}  // namespace qb::drv::verbs
