// The fake ConnectX's objects and the man pages' rules for them: protection domains, memory
// regions, CQs, QPs and their state machine, scheduling elements (mlx5dv_sched_node_create(3),
// mlx5dv_modify_qp_sched_elem(3)), and the checks of posting (ibv_post_send(3)); what a posted
// work request then does is fake_mlx5_timing.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "fake_mlx5_state.hpp"

namespace qb::drv::verbs {

using namespace fake;  // the fake's records (fake_mlx5_state.hpp)

ibv_pd* FakeMlx5::alloc_pd(ibv_context* context) {
  State& s = *state_;
  if (s.begin("alloc_pd()")) {
    errno = s.fail_error;
    return nullptr;
  }
  if (!s.check_alive(State::record_of(context), "context")) {
    return s.refuse_null<ibv_pd>(EINVAL, "context");
  }
  PdRecord* record = s.make_record(s.pd_records, "pd");
  record->context = State::record_of(context);
  s.pds.push_back(std::make_unique<PdHandle>());
  s.pds.back()->record = record;
  s.pds.back()->raw.context = context;
  s.result(record->label());
  return &s.pds.back()->raw;
}

int FakeMlx5::dealloc_pd(ibv_pd* pd) {
  State& s = *state_;
  PdRecord* record = State::record_of(pd);
  if (s.begin(fmt::format("dealloc_pd({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "pd")) return s.refuse(EINVAL, "not a live PD");
  if (record->users != 0) return s.refuse(EBUSY, "MRs or QPs still use it");
  record->alive = false;
  return 0;
}

ibv_mr* FakeMlx5::reg_mr(ibv_pd* pd, void* address, size_t length, int access) {
  State& s = *state_;
  PdRecord* pd_record = State::record_of(pd);
  if (s.begin(fmt::format("reg_mr({}, {} bytes, access=0x{:x})", label_of(pd_record), length,
                          access))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (!s.check_alive(pd_record, "pd")) return s.refuse_null<ibv_mr>(EINVAL, "not a live PD");
  if (address == nullptr || length == 0) return s.refuse_null<ibv_mr>(EINVAL, "empty region");
  MrRecord* record = s.make_record(s.mr_records, "mr");
  record->context = pd_record->context;
  record->pd = pd_record;
  record->access = access;
  ++pd_record->users;
  s.mrs.push_back(std::make_unique<MrHandle>());
  MrHandle& handle = *s.mrs.back();
  handle.record = record;
  handle.raw.context = pd->context;
  handle.raw.pd = pd;
  handle.raw.addr = address;
  handle.raw.length = length;
  handle.raw.lkey = s.next_key++;
  handle.raw.rkey = s.next_key++;
  record->address = reinterpret_cast<uintptr_t>(address);
  record->length = length;
  s.result(record->label());
  return &handle.raw;
}

int FakeMlx5::dereg_mr(ibv_mr* mr) {
  State& s = *state_;
  MrRecord* record = State::record_of(mr);
  if (s.begin(fmt::format("dereg_mr({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "mr")) return s.refuse(EINVAL, "not a live MR");
  record->alive = false;
  --record->pd->users;
  return 0;
}

ibv_cq_ex* FakeMlx5::create_cq(ibv_context* context, ibv_cq_init_attr_ex* attr) {
  State& s = *state_;
  if (s.begin(fmt::format("create_cq(cqe={}, wc_flags=0x{:x})", attr->cqe, attr->wc_flags))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (!s.check_alive(State::record_of(context), "context")) {
    return s.refuse_null<ibv_cq_ex>(EINVAL, "context");
  }
  if (attr->cqe < 1 || attr->cqe > static_cast<uint32_t>(kMaxCqe)) {
    return s.refuse_null<ibv_cq_ex>(EINVAL, "cqe out of range");
  }
  const uint64_t supported =
      IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM |
      (s.config.completion_timestamps ? uint64_t{IBV_WC_EX_WITH_COMPLETION_TIMESTAMP}
                                      : uint64_t{0});
  if ((attr->wc_flags & ~supported) != 0) {
    return s.refuse_null<ibv_cq_ex>(EOPNOTSUPP, "wc_flags the device does not offer");
  }
  CqRecord* record = s.make_record(s.cq_records, "cq");
  record->context = State::record_of(context);
  record->capacity = attr->cqe;
  s.cqs.push_back(std::make_unique<CqHandle>());
  CqHandle& handle = *s.cqs.back();
  handle.record = record;
  handle.raw.context = context;
  handle.raw.cqe = static_cast<int>(attr->cqe);
  s.result(record->label());
  return &handle.raw;
}

int FakeMlx5::destroy_cq(ibv_cq_ex* cq) {
  State& s = *state_;
  CqRecord* record = State::record_of(cq);
  if (s.begin(fmt::format("destroy_cq({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "cq")) return s.refuse(EINVAL, "not a live CQ");
  if (record->users != 0) return s.refuse(EBUSY, "QPs still use it");
  record->alive = false;
  return 0;
}

ibv_qp* FakeMlx5::create_qp(ibv_pd* pd, ibv_qp_init_attr* attr) {
  State& s = *state_;
  PdRecord* pd_record = State::record_of(pd);
  CqRecord* send_cq = State::record_of(attr->send_cq);
  CqRecord* recv_cq = State::record_of(attr->recv_cq);
  if (s.begin(fmt::format("create_qp(type={}, max_send_wr={}, max_recv_wr={})",
                          static_cast<int>(attr->qp_type), attr->cap.max_send_wr,
                          attr->cap.max_recv_wr))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (!s.check_alive(pd_record, "pd") || !s.check_alive(send_cq, "send CQ") ||
      !s.check_alive(recv_cq, "recv CQ")) {
    return s.refuse_null<ibv_qp>(EINVAL, "PD or CQ not live");
  }
  if (attr->qp_type != IBV_QPT_RC) return s.refuse_null<ibv_qp>(EOPNOTSUPP, "the fake has RC only");
  if (attr->cap.max_send_wr > kMaxQpWr || attr->cap.max_recv_wr > kMaxQpWr ||
      attr->cap.max_send_sge > 30 || attr->cap.max_recv_sge > 30) {
    return s.refuse_null<ibv_qp>(EINVAL, "capacity beyond the device's");
  }
  QpRecord* record = s.make_record(s.qp_records, "qp");
  record->context = pd_record->context;
  record->pd = pd_record;
  record->send_cq = send_cq;
  record->recv_cq = recv_cq;
  record->max_send_wr = attr->cap.max_send_wr;
  record->max_recv_wr = attr->cap.max_recv_wr;
  ++pd_record->users;
  ++send_cq->users;
  ++recv_cq->users;
  s.qps.push_back(std::make_unique<QpHandle>());
  QpHandle& handle = *s.qps.back();
  handle.record = record;
  handle.raw.context = pd->context;
  handle.raw.pd = pd;
  handle.raw.send_cq = attr->send_cq;
  handle.raw.recv_cq = attr->recv_cq;
  handle.raw.qp_num = s.next_qp_number++;
  handle.raw.qp_type = attr->qp_type;
  handle.raw.state = IBV_QPS_RESET;
  s.result(fmt::format("{} (qp_num 0x{:x})", record->label(), handle.raw.qp_num));
  return &handle.raw;
}

int FakeMlx5::modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) {
  State& s = *state_;
  QpRecord* record = State::record_of(qp);
  if (s.begin(modify_qp_call(record, *attr, mask))) return s.fail_error;
  if (!s.check_alive(record, "qp")) return s.refuse(EINVAL, "not a live QP");
  if ((mask & IBV_QP_STATE) == 0) return s.refuse(EINVAL, "no state given");
  const ibv_qp_state from = record->state;
  const ibv_qp_state to = attr->qp_state;
  auto needs = [&](int required, const char* transition) -> int {
    if ((mask & required) != required) {
      return s.refuse(EINVAL, fmt::format("{} needs attribute mask 0x{:x}", transition, required));
    }
    return 0;
  };
  if (to == IBV_QPS_RESET || to == IBV_QPS_ERR) {
    // always allowed
  } else if (from == IBV_QPS_RESET && to == IBV_QPS_INIT) {
    if (int rc = needs(IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "RESET->INIT")) {
      return rc;
    }
    if (attr->port_num != 1) return s.refuse(EINVAL, "no such port");
  } else if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
    if (int rc = needs(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
                       "INIT->RTR")) {
      return rc;
    }
    const bool ethernet = s.config.port.link_layer == IBV_LINK_LAYER_ETHERNET;
    if (ethernet && attr->ah_attr.is_global == 0) {
      return s.refuse(EINVAL, "RoCE needs a GRH (is_global = 1)");
    }
    if (!ethernet && attr->ah_attr.dlid == 0) return s.refuse(EINVAL, "IB needs a DLID");
    if (attr->ah_attr.is_global != 0) {
      const size_t sgid = attr->ah_attr.grh.sgid_index;
      const ibv_gid zero{};
      if (sgid >= s.config.port.gids.size() ||
          std::memcmp(&s.config.port.gids[sgid].gid, &zero, sizeof(zero)) == 0) {
        return s.refuse(EINVAL, "no GID at sgid_index");
      }
    }
    if (attr->ah_attr.sl > 15) return s.refuse(EINVAL, "SL beyond 15");
    if (attr->path_mtu > s.config.port.active_mtu) {
      return s.refuse(EINVAL, "path MTU beyond the port's active MTU");
    }
    record->dest_qp_num = attr->dest_qp_num;
    s.path_mtu_bytes = 128U << attr->path_mtu;
  } else if (from == IBV_QPS_RTR && to == IBV_QPS_RTS) {
    if (int rc = needs(IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                           IBV_QP_MAX_QP_RD_ATOMIC,
                       "RTR->RTS")) {
      return rc;
    }
  } else {
    return s.refuse(EINVAL, fmt::format("no transition {} -> {}", static_cast<int>(from),
                                        static_cast<int>(to)));
  }
  record->state = to;
  qp->state = to;
  return 0;
}

int FakeMlx5::modify_qp_rate_limit(ibv_qp* qp, ibv_qp_rate_limit_attr* attr) {
  State& s = *state_;
  QpRecord* record = State::record_of(qp);
  if (s.begin(fmt::format("modify_qp_rate_limit({}, rate_limit={} kbps)", label_of(record),
                          attr->rate_limit))) {
    return s.fail_error;
  }
  if (!s.check_alive(record, "qp")) return s.refuse(EINVAL, "not a live QP");
  if (!s.config.rate_limit_rc) return s.refuse(EOPNOTSUPP, "no packet pacing for RC");
  if (record->state != IBV_QPS_RTS) return s.refuse(EINVAL, "the QP is not in RTS");
  if (attr->rate_limit != 0 && (attr->rate_limit < s.config.rate_limit_min_kbps ||
                                attr->rate_limit > s.config.rate_limit_max_kbps)) {
    return s.refuse(EINVAL, "rate outside packet_pacing_caps");
  }
  return 0;
}

int FakeMlx5::destroy_qp(ibv_qp* qp) {
  State& s = *state_;
  QpRecord* record = State::record_of(qp);
  if (s.begin(fmt::format("destroy_qp({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "qp")) return s.refuse(EINVAL, "not a live QP");
  if (record->leaf != nullptr) --record->leaf->attached;  // the device detaches it
  if (record->responder_leaf != nullptr) --record->responder_leaf->attached;
  record->alive = false;
  --record->pd->users;
  --record->send_cq->users;
  --record->recv_cq->users;
  return 0;
}

namespace {

// The man page's rules for both kinds of element (EINVAL unless said otherwise).
int check_sched_attr(FakeMlx5::State& s, ibv_context* context, const mlx5dv_sched_attr* attr,
                     bool leaf) {
  if (!s.config.sched_support) return s.refuse(EOPNOTSUPP, "no NIC scheduling elements");
  if (!s.check_alive(FakeMlx5::State::record_of(context), "context")) {
    return s.refuse(EINVAL, "context");
  }
  if (attr == nullptr) return s.refuse(EINVAL, "no attributes");
  if (attr->comp_mask != 0) return s.refuse(EINVAL, "comp_mask must be 0");
  if ((attr->flags & ~kKnownSchedFlags) != 0) return s.refuse(EINVAL, "unknown flag bits");
  const ElementRecord* parent = FakeMlx5::State::record_of(attr->parent);
  if (parent == nullptr) {
    if (leaf) return s.refuse(EINVAL, "a leaf needs a parent");
    if (attr->flags != 0) return s.refuse(EINVAL, "the root must have flags 0");
    for (auto& e : s.element_records) {
      if (e->alive && !e->leaf && e->parent == nullptr &&
          e->context == FakeMlx5::State::record_of(context)) {
        return s.refuse(EEXIST, "this context has a root already (model choice)");
      }
    }
    return 0;
  }
  if (!s.check_alive(parent, "parent")) return s.refuse(EINVAL, "the parent is not alive");
  if (parent->leaf) return s.refuse(EINVAL, "a leaf cannot be a parent");
  // libmlx5 (rdma-core providers/mlx5, attr_supported): a flag whose QoS capability the device
  // lacks is EOPNOTSUPP.
  if ((attr->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) != 0 && !s.config.nic_bw_share) {
    return s.refuse(EOPNOTSUPP, "BW_SHARE without the nic_bw_share capability");
  }
  if ((attr->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW) != 0 && !s.config.nic_rate_limit) {
    return s.refuse(EOPNOTSUPP, "MAX_AVG_BW without the nic_rate_limit capability");
  }
  // The firmware's limits (the create command fails; libmlx5 passes its errno on).
  if ((attr->flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) != 0 &&
      attr->bw_share > s.config.max_bw_share) {
    return s.refuse(EINVAL, "bw_share above max_tsar_bw_share");
  }
  uint32_t levels = 2;  // the parent's and the new element's
  for (const ElementRecord* e = parent; e->parent != nullptr; e = e->parent) ++levels;
  if (levels > s.config.max_sched_levels) return s.refuse(EINVAL, "the tree is too deep");
  return 0;
}

void* create_element(FakeMlx5::State& s, ibv_context* context, const mlx5dv_sched_attr* attr,
                     bool leaf) {
  ElementRecord* record = s.make_record(s.element_records, leaf ? "leaf" : "node");
  record->context = FakeMlx5::State::record_of(context);
  record->leaf = leaf;
  record->parent = FakeMlx5::State::record_of(attr->parent);
  record->flags = attr->flags;
  record->bw_share = attr->bw_share;
  record->max_avg_bw = attr->max_avg_bw;
  if (record->parent != nullptr) ++record->parent->children;
  s.elements.push_back(std::make_unique<ElementHandle>());
  s.elements.back()->record = record;
  s.result(record->label());
  return s.elements.back().get();
}

}  // namespace

mlx5dv_sched_node* FakeMlx5::sched_node_create(ibv_context* context,
                                               const mlx5dv_sched_attr* attr) {
  State& s = *state_;
  if (s.begin(sched_call("sched_node_create", attr))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (int rc = check_sched_attr(s, context, attr, false)) {
    errno = rc;
    return nullptr;
  }
  return static_cast<mlx5dv_sched_node*>(create_element(s, context, attr, false));
}

mlx5dv_sched_leaf* FakeMlx5::sched_leaf_create(ibv_context* context,
                                               const mlx5dv_sched_attr* attr) {
  State& s = *state_;
  if (s.begin(sched_call("sched_leaf_create", attr))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (int rc = check_sched_attr(s, context, attr, true)) {
    errno = rc;
    return nullptr;
  }
  return static_cast<mlx5dv_sched_leaf*>(create_element(s, context, attr, true));
}

int FakeMlx5::sched_node_destroy(mlx5dv_sched_node* node) {
  State& s = *state_;
  ElementRecord* record = State::record_of(node);
  if (s.begin(fmt::format("sched_node_destroy({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "node") || record->leaf) return s.refuse(EINVAL, "not a live node");
  if (record->children != 0) return s.refuse(EBUSY, "it has children (model choice)");
  record->alive = false;
  if (record->parent != nullptr) --record->parent->children;
  return 0;
}

int FakeMlx5::sched_leaf_destroy(mlx5dv_sched_leaf* leaf) {
  State& s = *state_;
  ElementRecord* record = State::record_of(leaf);
  if (s.begin(fmt::format("sched_leaf_destroy({})", label_of(record)))) return s.fail_error;
  if (!s.check_alive(record, "leaf") || !record->leaf) return s.refuse(EINVAL, "not a live leaf");
  if (record->attached != 0) return s.refuse(EBUSY, "QPs are attached (model choice)");
  record->alive = false;
  --record->parent->children;
  return 0;
}

int FakeMlx5::modify_qp_sched_elem(ibv_qp* qp, const mlx5dv_sched_leaf* requester,
                                   const mlx5dv_sched_leaf* responder) {
  State& s = *state_;
  QpRecord* record = State::record_of(qp);
  ElementRecord* leaf = State::record_of(requester);
  ElementRecord* responder_leaf = State::record_of(responder);
  if (s.begin(fmt::format("modify_qp_sched_elem({}, requester={}, responder={})", label_of(record),
                          label_of(leaf), label_of(responder_leaf)))) {
    return s.fail_error;
  }
  if (!s.config.sched_support) return s.refuse(EOPNOTSUPP, "no NIC scheduling elements");
  if (!s.check_alive(record, "qp")) return s.refuse(EINVAL, "not a live QP");
  if (record->state != IBV_QPS_INIT && record->state != IBV_QPS_RTS) {
    return s.refuse(EINVAL, "the QP must be in INIT or RTS");
  }
  for (const ElementRecord* e : {leaf, responder_leaf}) {
    if (e != nullptr && (!s.check_alive(e, "leaf") || !e->leaf)) {
      return s.refuse(EINVAL, "not a live leaf");
    }
  }
  if (record->leaf != nullptr) --record->leaf->attached;
  if (record->responder_leaf != nullptr) --record->responder_leaf->attached;
  record->leaf = leaf;
  record->responder_leaf = responder_leaf;
  if (leaf != nullptr) ++leaf->attached;
  if (responder_leaf != nullptr) ++responder_leaf->attached;
  return 0;
}

int FakeMlx5::post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) noexcept {
  State& s = *state_;
  QpRecord* record = State::record_of(qp);
  int64_t now_ns = -1;
  for (; wr != nullptr; wr = wr->next) {
    *bad_wr = wr;
    if (!s.check_alive(record, "qp")) return EINVAL;
    if (record->state != IBV_QPS_RTS) return EINVAL;
    if (wr->num_sge != 1) return EINVAL;
    const ibv_sge& sge = wr->sg_list[0];
    if (record->local_mr == nullptr || !record->local_mr->alive || record->local_key != sge.lkey) {
      record->local_mr = s.mr_by_key(sge.lkey, false);
      record->local_key = sge.lkey;
    }
    const MrRecord* local = record->local_mr;
    if (local == nullptr || sge.addr < local->address ||
        sge.addr + sge.length > local->address + local->length) {
      s.violations.push_back(fmt::format("{}: sge outside its MR", record->label()));
      return EINVAL;
    }
    const bool remote = wr->opcode == IBV_WR_RDMA_WRITE ||
                        wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM || wr->opcode == IBV_WR_RDMA_READ;
    if (remote) {
      if (record->remote_mr == nullptr || !record->remote_mr->alive ||
          record->remote_key != wr->wr.rdma.rkey) {
        record->remote_mr = s.mr_by_key(wr->wr.rdma.rkey, true);
        record->remote_key = wr->wr.rdma.rkey;
      }
      const MrRecord* target = record->remote_mr;
      const int needed =
          wr->opcode == IBV_WR_RDMA_READ ? IBV_ACCESS_REMOTE_READ : IBV_ACCESS_REMOTE_WRITE;
      if (target == nullptr || (target->access & needed) == 0) {
        s.violations.push_back(fmt::format("{}: rkey without remote access", record->label()));
        return EINVAL;
      }
    } else if (wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) {
      return EINVAL;
    }
    if (record->peer == nullptr || !record->peer->alive) {
      record->peer = s.qp_by_number(record->dest_qp_num);
    }
    QpRecord* dest = record->peer;
    if (dest == nullptr || (dest->state != IBV_QPS_RTR && dest->state != IBV_QPS_RTS)) {
      s.violations.push_back(fmt::format("{}: no connected peer QP", record->label()));
      return EINVAL;
    }
    if (record->send_outstanding >= record->max_send_wr) return ENOMEM;  // send queue full
    const InFlight message{wr->wr_id, wr->opcode, sge.length,
                           (wr->send_flags & IBV_SEND_SIGNALED) != 0};
    if (const int rc = s.transmit(record, dest, message, remote, now_ns); rc != 0) return rc;
    s.posted_sends.fetch_add(1, std::memory_order_relaxed);
  }
  *bad_wr = nullptr;
  return 0;
}

int FakeMlx5::post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) noexcept {
  State& s = *state_;
  QpRecord* record = State::record_of(qp);
  for (; wr != nullptr; wr = wr->next) {
    *bad_wr = wr;
    if (!s.check_alive(record, "qp")) return EINVAL;
    if (record->state == IBV_QPS_RESET || record->state == IBV_QPS_ERR) return EINVAL;
    if (record->recv_wrs.size() >= record->max_recv_wr) return ENOMEM;
    record->recv_wrs.push_back(wr->wr_id);
    if (!record->waiting_rx.empty()) {  // an RNR-retried message gets in now
      const auto [message, time_ns] = record->waiting_rx.front();
      record->waiting_rx.pop_front();
      s.arrive(record, message, std::max(time_ns, s.device_now_ns()));
    }
  }
  *bad_wr = nullptr;
  return 0;
}

}  // namespace qb::drv::verbs
