// The fake ConnectX: see fake_mlx5.hpp for what it enforces and its model choices.
#include "fake_mlx5.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <type_traits>

#include "qb/drivers/backend.hpp"
#include "sim_port.hpp"

namespace qb::drv::verbs {

// Every handle the fake gives out is an rdma-core struct as the first member of a small
// standard-layout wrapper that points at the fake's record, so a handle maps back with a cast.
// Records are never freed before the fake: a handle used after its destroy call is detected.
struct Record {
  const char* kind = "";
  uint32_t id = 0;
  bool alive = true;
  const Record* context = nullptr;  // the context it was made on (contexts: none)
  std::string label() const { return fmt::format("{}#{}", kind, id); }
};

namespace {

constexpr uint32_t kKnownSchedFlags =
    MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE | MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW;
constexpr uint32_t kMaxQpWr = 32768;
constexpr int kMaxCqe = 4'194'303;

struct QpRecord;
struct CqRecord : Record {
  std::deque<WorkCompletion> entries;
  // The QP whose send work request each entry completes (nullptr: a receive). Its send
  // queue slot is free only once the completion is polled, as with libmlx5.
  std::deque<QpRecord*> send_owner;
  uint32_t capacity = 0;
  uint32_t users = 0;  // QPs
};
struct PdRecord : Record {
  uint32_t users = 0;  // MRs and QPs
};
struct MrRecord : Record {
  PdRecord* pd = nullptr;
  int access = 0;
  uintptr_t address = 0;
  size_t length = 0;
};
struct ElementRecord : Record {
  ElementRecord* parent = nullptr;
  bool leaf = false;
  uint32_t flags = 0, bw_share = 0, max_avg_bw = 0;
  uint32_t children = 0;
  uint32_t attached = 0;  // QPs (leaves)
};
// A message posted and not yet completed (simulated timing).
struct InFlight {
  uint64_t wr_id = 0;
  ibv_wr_opcode opcode = IBV_WR_SEND;
  uint32_t bytes = 0;
  bool signaled = true;
};
struct QpRecord : Record {
  PdRecord* pd = nullptr;
  CqRecord* send_cq = nullptr;
  CqRecord* recv_cq = nullptr;
  ibv_qp_state state = IBV_QPS_RESET;
  uint32_t max_send_wr = 0, max_recv_wr = 0;
  uint32_t send_outstanding = 0;
  std::deque<uint64_t> recv_wrs;
  std::deque<std::pair<InFlight, int64_t>> waiting_rx;  // arrived before a receive was posted
  uint32_t dest_qp_num = 0;
  ElementRecord* leaf = nullptr;
  ElementRecord* responder_leaf = nullptr;  // schedules its READ responses
  uint32_t sim_flow = UINT32_MAX;           // first of the QP's three simulator flows
  // READs it answers (simulated): the requester and its request, in order.
  std::deque<std::pair<QpRecord*, InFlight>> reads_in_flight;
  uint64_t read_sequence = 0;
  std::deque<InFlight> in_flight;  // posted, tx not done (simulated)
  std::deque<InFlight> to_arrive;  // posted, not arrived (simulated)
  uint64_t next_sequence = 0;
  // The last lookups of post_send (a QP uses one peer, one source MR and one target MR).
  QpRecord* peer = nullptr;
  const MrRecord* local_mr = nullptr;
  uint32_t local_key = 0;
  const MrRecord* remote_mr = nullptr;
  uint32_t remote_key = 0;
};

template <class Raw, class Rec>
struct Handle {
  Raw raw{};
  Rec* record = nullptr;
};
using ContextHandle = Handle<ibv_context, Record>;
using PdHandle = Handle<ibv_pd, PdRecord>;
using MrHandle = Handle<ibv_mr, MrRecord>;
using CqHandle = Handle<ibv_cq_ex, CqRecord>;
using QpHandle = Handle<ibv_qp, QpRecord>;
// mlx5dv_sched_node/leaf are opaque: their handles are the wrapper itself.
struct ElementHandle {
  ElementRecord* record = nullptr;
};
static_assert(std::is_standard_layout_v<QpHandle> && std::is_standard_layout_v<CqHandle>);

template <class H, class Raw>
H* handle_of(Raw* raw) noexcept {
  return reinterpret_cast<H*>(raw);
}

std::string sched_flags_text(uint32_t flags) {
  if (flags == 0) return "0";
  std::string text;
  if ((flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE) != 0) text = "BW_SHARE";
  if ((flags & MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW) != 0) {
    text += text.empty() ? "MAX_AVG_BW" : "|MAX_AVG_BW";
  }
  if ((flags & ~kKnownSchedFlags) != 0) {
    text += fmt::format("{}0x{:x}", text.empty() ? "" : "|", flags & ~kKnownSchedFlags);
  }
  return text;
}

// ibv_port_attr speed and width encodings (ibv_query_port(3)). InfiniBand: every pair, at its
// per-lane data rate. Ethernet: the pairs the mlx5 kernel driver reports for each Ethernet
// protocol (drivers/infiniband/hw/mlx5/main.c, translate_eth_legacy_proto_oper and
// translate_eth_ext_proto_oper), with the link speed each stands for.
struct SpeedCode {
  uint8_t code;
  double lane_gbps;
};
constexpr std::array<SpeedCode, 8> kIbSpeeds{
    {{1, 2.0}, {2, 4.0}, {4, 8.0}, {8, 10.0}, {16, 13.64}, {32, 25.0}, {64, 50.0}, {128, 100.0}}};
struct WidthCode {
  uint8_t code;
  uint32_t lanes;
};
constexpr std::array<WidthCode, 5> kWidths{{{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}}};
// ibv_query_port(3)'s codes (rdma-core 44's verbs.h names none of them).
constexpr uint8_t kSdr = 1, kDdr = 2, kQdr = 4, kFdr = 16, kEdr = 32, kHdr = 64, kNdr = 128;
constexpr uint8_t k1x = 1, k2x = 16, k4x = 2, k8x = 4;
struct EthernetEncoding {
  double gbps;
  uint8_t speed;
  uint8_t width;
};
constexpr std::array<EthernetEncoding, 16> kEthernetEncodings{{
    {1, kSdr, k1x},
    {5, kDdr, k1x},
    {10, kQdr, k1x},
    {25, kEdr, k1x},
    {40, kQdr, k4x},
    {50, kHdr, k1x},
    {50, kEdr, k2x},
    {56, kFdr, k4x},
    {100, kEdr, k4x},
    {100, kHdr, k2x},
    {100, kNdr, k1x},
    {200, kHdr, k4x},
    {200, kNdr, k2x},
    {400, kNdr, k4x},
    {400, kHdr, k8x},
    {800, kNdr, k8x},
}};

}  // namespace

struct FakeMlx5::State {
  explicit State(FakeDeviceConfig c)
      : config(std::move(c)), next_qp_number(config.first_qp_number) {}

  FakeDeviceConfig config;
  std::vector<std::string> calls;
  std::vector<std::string> violations;
  std::mutex clock_info_mutex;  // workers read the clock info during traffic, concurrently
  uint32_t fail_at = 0;
  std::atomic<int> fail_next_poll{0};
  int fail_error = 0;
  // Counted by every worker's post_send, concurrently.
  std::atomic<uint64_t> posted_sends{0};
  uint32_t next_id = 1;
  uint32_t next_qp_number;
  uint32_t next_key = 0x1000;

  std::vector<std::unique_ptr<ContextHandle>> contexts;
  std::vector<std::unique_ptr<Record>> context_records;
  std::vector<std::unique_ptr<PdHandle>> pds;
  std::vector<std::unique_ptr<PdRecord>> pd_records;
  std::vector<std::unique_ptr<MrHandle>> mrs;
  std::vector<std::unique_ptr<MrRecord>> mr_records;
  std::vector<std::unique_ptr<CqHandle>> cqs;
  std::vector<std::unique_ptr<CqRecord>> cq_records;
  std::vector<std::unique_ptr<QpHandle>> qps;
  std::vector<std::unique_ptr<QpRecord>> qp_records;
  std::vector<std::unique_ptr<ElementHandle>> elements;
  std::vector<std::unique_ptr<ElementRecord>> element_records;

  // Simulated timing: the model, built when traffic starts, and its flows' QPs.
  sim::SimPort port;
  bool model_built = false;
  std::vector<QpRecord*> sim_qps;  // by simulator flow / 3
  std::array<Completion, 256> sim_completions{};

  class SimClock final : public Clock {
   public:
    explicit SimClock(State& state) : state_(state) {}
    int64_t now_ns() noexcept override {
      state_.ensure_model();
      return state_.port.clock().now_ns();
    }
    void wait_until(int64_t deadline_ns) noexcept override {
      state_.ensure_model();
      state_.port.clock().wait_until(deadline_ns);
    }
    std::string_view name() const noexcept override { return "virtual"; }

   private:
    State& state_;
  };
  SimClock sim_clock{*this};

  // --- bookkeeping -------------------------------------------------------------------------

  // Logs a control-path call; true when it must fail (fail_call), with errno set.
  bool begin(std::string text) {
    calls.push_back(std::move(text));
    if (fail_at != 0 && calls.size() == fail_at) {
      calls.back() += fmt::format(" -> injected {}", fail_error);
      return true;
    }
    return false;
  }
  void result(std::string_view text) { calls.back() += fmt::format(" = {}", text); }
  int refuse(int error, std::string_view why) {
    calls.back() += fmt::format(" -> {} ({})", error, why);
    return error;
  }
  template <class T>
  T* refuse_null(int error, std::string_view why) {
    refuse(error, why);
    errno = error;
    return nullptr;
  }
  bool check_alive(const Record* record, std::string_view what) {
    if (record == nullptr) {
      violations.push_back(fmt::format("{}: a null {}", calls.empty() ? "" : calls.back(), what));
      return false;
    }
    if (!record->alive) {
      violations.push_back(fmt::format("{} used after it was destroyed", record->label()));
      return false;
    }
    return true;
  }
  template <class R>
  R* make_record(std::vector<std::unique_ptr<R>>& records, const char* kind) {
    records.push_back(std::make_unique<R>());
    records.back()->kind = kind;
    records.back()->id = next_id++;
    return records.back().get();
  }

  static Record* record_of(ibv_context* c) {
    return c == nullptr ? nullptr : handle_of<ContextHandle>(c)->record;
  }
  static PdRecord* record_of(ibv_pd* p) {
    return p == nullptr ? nullptr : handle_of<PdHandle>(p)->record;
  }
  static MrRecord* record_of(ibv_mr* m) {
    return m == nullptr ? nullptr : handle_of<MrHandle>(m)->record;
  }
  static CqRecord* record_of(ibv_cq_ex* c) {
    return c == nullptr ? nullptr : handle_of<CqHandle>(c)->record;
  }
  static CqRecord* record_of(ibv_cq* c) {
    return record_of(reinterpret_cast<ibv_cq_ex*>(c));  // ibv_cq_ex_to_cq is this cast
  }
  static QpRecord* record_of(ibv_qp* q) {
    return q == nullptr ? nullptr : handle_of<QpHandle>(q)->record;
  }
  static ElementRecord* record_of(const void* element) {
    return element == nullptr ? nullptr : static_cast<const ElementHandle*>(element)->record;
  }

  QpRecord* qp_by_number(uint32_t number) {
    for (auto& handle : qps) {
      if (handle->raw.qp_num == number && handle->record->alive) return handle->record;
    }
    return nullptr;
  }
  MrRecord* mr_by_key(uint32_t key, bool remote) {
    for (auto& handle : mrs) {
      const uint32_t k = remote ? handle->raw.rkey : handle->raw.lkey;
      if (k == key && handle->record->alive) return handle->record;
    }
    return nullptr;
  }

  // --- delivery -------------------------------------------------------------------------------

  int64_t device_now_ns() {
    if (config.timing == FakeTiming::simulated) {
      ensure_model();
      return port.clock().now_ns();
    }
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  // The device clock for the clock calls: on simulated timing, 0 until traffic starts (reading
  // it must not build the model before the QPs exist).
  int64_t clock_now_ns() {
    if (config.timing == FakeTiming::simulated && !model_built) return 0;
    return device_now_ns();
  }

  void push_cqe(CqRecord* cq, const WorkCompletion& wc, QpRecord* send_owner) {
    if (cq->entries.size() >= cq->capacity) {
      violations.push_back(fmt::format("{} overrun (capacity {})", cq->label(), cq->capacity));
      return;
    }
    cq->entries.push_back(wc);
    cq->send_owner.push_back(send_owner);
  }

  static ibv_wc_opcode send_opcode(ibv_wr_opcode op) {
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
  static bool consumes_receive(ibv_wr_opcode op) {
    return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
  }

  // A message reached `dest` at `time_ns`: a receive completion when it consumes a receive.
  void arrive(QpRecord* dest, const InFlight& message, int64_t time_ns) {
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

  void complete_send(QpRecord* qp, const InFlight& message, int64_t time_ns) {
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

  // Simulated timing: the tree as programmed (flags decide what counts, as on the device), the
  // QPs as flows, the port as configured; built once, when traffic starts.
  void ensure_model() {
    if (model_built) return;
    model_built = true;
    policy::SchedTree tree;
    const ElementRecord* root = nullptr;
    for (auto& e : element_records) {
      if (e->alive && !e->leaf && e->parent == nullptr) root = e.get();
    }
    tree = policy::SchedTree::with_root(root != nullptr ? root->label() : "implicit-root");
    std::vector<std::pair<const ElementRecord*, uint32_t>> index;  // record -> tree element
    if (root != nullptr) index.emplace_back(root, 0);
    // Elements are created parent first, so one pass in creation order places every child.
    for (auto& e : element_records) {
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
  uint32_t path_mtu_bytes = 4096;  // the first connected QP's path MTU

  void pump_model() {
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
};

std::string FakeLiveObjects::describe() const {
  return fmt::format("{} contexts, {} PDs, {} MRs, {} CQs, {} QPs, {} nodes, {} leaves", contexts,
                     pds, mrs, cqs, qps, nodes, leaves);
}

FakeMlx5::FakeMlx5(FakeDeviceConfig config) : state_(std::make_unique<State>(std::move(config))) {}
FakeMlx5::~FakeMlx5() = default;

const std::vector<std::string>& FakeMlx5::calls() const noexcept {
  return state_->calls;
}
const std::vector<std::string>& FakeMlx5::violations() const noexcept {
  return state_->violations;
}
void FakeMlx5::fail_call(uint32_t call, int error) noexcept {
  state_->fail_at = call;
  state_->fail_error = error;
}
void FakeMlx5::fail_next_poll(int error) noexcept {
  state_->fail_next_poll = error;
}

uint64_t FakeMlx5::posted_sends() const noexcept {
  return state_->posted_sends.load(std::memory_order_relaxed);
}

FakeLiveObjects FakeMlx5::live() const noexcept {
  FakeLiveObjects live;
  auto count = [](const auto& records) {
    uint32_t n = 0;
    for (const auto& r : records) n += r->alive ? 1 : 0;
    return n;
  };
  live.contexts = count(state_->context_records);
  live.pds = count(state_->pd_records);
  live.mrs = count(state_->mr_records);
  live.cqs = count(state_->cq_records);
  live.qps = count(state_->qp_records);
  for (const auto& e : state_->element_records) {
    if (e->alive) ++(e->leaf ? live.leaves : live.nodes);
  }
  return live;
}

std::vector<std::string> FakeMlx5::device_names() {
  return {state_->config.name};
}

ibv_context* FakeMlx5::open_device(std::string_view name) {
  State& s = *state_;
  if (s.begin(fmt::format("open_device({})", name))) {
    errno = s.fail_error;
    return nullptr;
  }
  if (name != s.config.name) return s.refuse_null<ibv_context>(ENODEV, "no such device");
  Record* record = s.make_record(s.context_records, "context");
  s.contexts.push_back(std::make_unique<ContextHandle>());
  s.contexts.back()->record = record;
  s.result(record->label());
  return &s.contexts.back()->raw;
}

int FakeMlx5::close_device(ibv_context* context) {
  State& s = *state_;
  Record* record = State::record_of(context);
  if (s.begin(fmt::format("close_device({})", record != nullptr ? record->label() : "null")))
    return s.fail_error;
  if (!s.check_alive(record, "context")) return s.refuse(EINVAL, "not a live context");
  uint32_t left = 0;
  auto count_left = [&](const auto& records) {
    for (const auto& r : records) left += r->alive && r->context == record ? 1 : 0;
  };
  count_left(s.pd_records);
  count_left(s.mr_records);
  count_left(s.cq_records);
  count_left(s.qp_records);
  count_left(s.element_records);
  if (left != 0) {
    s.violations.push_back(fmt::format("{} closed with {} objects still allocated ({})",
                                       record->label(), left, live().describe()));
  }
  record->alive = false;
  // A simulated port lives as long as the context: the next open builds a new one.
  s.model_built = false;
  s.sim_qps.clear();
  return 0;
}

int FakeMlx5::query_device(ibv_context* context, ibv_device_attr_ex* attr) {
  State& s = *state_;
  if (s.begin("query_device()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  *attr = {};
  ibv_device_attr& a = attr->orig_attr;
  fmt::format_to_n(a.fw_ver, sizeof(a.fw_ver) - 1, "22.39.1002 (fake)");
  a.vendor_id = 0x02c9;     // Mellanox
  a.vendor_part_id = 4125;  // ConnectX-6 Dx
  a.max_qp = 1 << 17;
  a.max_qp_wr = kMaxQpWr;
  a.max_sge = 30;
  a.max_cq = 1 << 24;
  a.max_cqe = kMaxCqe;
  a.max_mr = 1 << 24;
  a.max_pd = 1 << 24;
  a.max_qp_rd_atom = 16;
  a.max_qp_init_rd_atom = 16;
  a.phys_port_cnt = 1;
  if (s.config.completion_timestamps) {
    attr->completion_timestamp_mask = s.config.clock_mask;
    attr->hca_core_clock = 1'000'000;  // kHz: one tick per ns
  }
  attr->packet_pacing_caps.qp_rate_limit_min = s.config.rate_limit_min_kbps;
  attr->packet_pacing_caps.qp_rate_limit_max = s.config.rate_limit_max_kbps;
  attr->packet_pacing_caps.supported_qpts = s.config.rate_limit_rc ? 1U << IBV_QPT_RC : 0;
  return 0;
}

int FakeMlx5::query_port(ibv_context* context, uint8_t port, ibv_port_attr* attr) {
  State& s = *state_;
  if (s.begin(fmt::format("query_port({})", port))) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (port != 1) return s.refuse(EINVAL, "the device has port 1 only");
  const FakePortConfig& p = s.config.port;
  *attr = {};
  attr->state = p.state;
  attr->max_mtu = IBV_MTU_4096;
  attr->active_mtu = p.active_mtu;
  attr->link_layer = p.link_layer;
  attr->lid = p.link_layer == IBV_LINK_LAYER_INFINIBAND ? p.lid : 0;
  attr->gid_tbl_len = p.gid_table_len;
  attr->pkey_tbl_len = 128;
  // The speed x width nearest the configured rate, as the link layer encodes it.
  double best = -1.0;
  if (p.link_layer == IBV_LINK_LAYER_ETHERNET) {
    for (const EthernetEncoding& e : kEthernetEncodings) {
      const double bps = e.gbps * 1e9;
      if (best < 0.0 || std::abs(bps - p.rate_bps) < std::abs(best - p.rate_bps)) {
        best = bps;
        attr->active_speed = e.speed;
        attr->active_width = e.width;
      }
    }
    return 0;
  }
  for (const SpeedCode& speed : kIbSpeeds) {
    for (const WidthCode& width : kWidths) {
      const double bps = speed.lane_gbps * 1e9 * width.lanes;
      if (best < 0.0 || std::abs(bps - p.rate_bps) < std::abs(best - p.rate_bps)) {
        best = bps;
        attr->active_speed = speed.code;
        attr->active_width = width.code;
      }
    }
  }
  return 0;
}

int FakeMlx5::query_gid(ibv_context* context, uint8_t port, int index, ibv_gid* gid) {
  State& s = *state_;
  if (s.begin(fmt::format("query_gid({}, {})", port, index))) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (port != 1 || index < 0 || index >= s.config.port.gid_table_len) {
    return s.refuse(EINVAL, "no such GID index");
  }
  // ibv_query_gid gives an empty entry as zeros.
  const auto i = static_cast<size_t>(index);
  *gid = i < s.config.port.gids.size() ? s.config.port.gids[i].gid : ibv_gid{};
  return 0;
}

int FakeMlx5::query_gid_ex(ibv_context* context, uint32_t port, uint32_t index,
                           ibv_gid_entry* entry) {
  State& s = *state_;
  if (s.begin(fmt::format("query_gid_ex({}, {})", port, index))) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  const FakePortConfig& p = s.config.port;
  if (port != 1 || index >= static_cast<uint32_t>(p.gid_table_len)) {
    return s.refuse(EINVAL, "no such GID index");
  }
  const ibv_gid zero{};
  if (index >= p.gids.size() || std::memcmp(&p.gids[index].gid, &zero, sizeof(zero)) == 0) {
    return s.refuse(ENODATA, "empty GID entry");
  }
  *entry = {};
  entry->gid = p.gids[index].gid;
  entry->gid_index = index;
  entry->port_num = port;
  entry->gid_type = p.gids[index].type;
  entry->ndev_ifindex = 0;  // not this machine's interfaces: no netdev named
  return 0;
}

int FakeMlx5::get_clock_info(ibv_context* context, mlx5dv_clock_info* info) {
  State& s = *state_;
  const std::lock_guard<std::mutex> lock(s.clock_info_mutex);
  if (s.begin("get_clock_info()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (!s.config.completion_timestamps) return s.refuse(EOPNOTSUPP, "no device clock");
  // One tick per ns; the ns and the ticks now (the clock info changes with every read).
  const auto now_ns = static_cast<uint64_t>(s.clock_now_ns());
  *info = {};
  info->nsec = now_ns;
  info->last_cycles = now_ns & s.config.clock_mask;
  info->mult = 1;
  info->shift = 0;
  info->mask = s.config.clock_mask;
  return 0;
}

int FakeMlx5::query_mlx5_device(ibv_context* context, mlx5dv_context* attr) {
  State& s = *state_;
  if (s.begin("query_mlx5_device()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  const uint64_t requested = attr->comp_mask;
  *attr = {};
  attr->version = 0;
  // The fields asked for that the fake has (the others' bits cleared, as libmlx5 does).
  attr->comp_mask = requested & MLX5DV_CONTEXT_MASK_CLOCK_INFO_UPDATE;
  if (s.config.completion_timestamps) {
    attr->max_clock_info_update_nsec = s.config.max_clock_info_update_ns != 0
                                           ? s.config.max_clock_info_update_ns
                                           : (s.config.clock_mask >> 2) + 1;
  } else {
    attr->comp_mask = 0;
  }
  return 0;
}

int FakeMlx5::read_device_clock(ibv_context* context, uint64_t* ticks) {
  State& s = *state_;
  if (s.begin("read_device_clock()")) return s.fail_error;
  if (!s.check_alive(State::record_of(context), "context")) return s.refuse(EINVAL, "context");
  if (!s.config.completion_timestamps) return s.refuse(EOPNOTSUPP, "no device clock");
  *ticks = static_cast<uint64_t>(s.device_now_ns()) & s.config.clock_mask;
  return 0;
}

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
  if (s.begin(fmt::format("dealloc_pd({})", record != nullptr ? record->label() : "null")))
    return s.fail_error;
  if (!s.check_alive(record, "pd")) return s.refuse(EINVAL, "not a live PD");
  if (record->users != 0) return s.refuse(EBUSY, "MRs or QPs still use it");
  record->alive = false;
  return 0;
}

ibv_mr* FakeMlx5::reg_mr(ibv_pd* pd, void* address, size_t length, int access) {
  State& s = *state_;
  PdRecord* pd_record = State::record_of(pd);
  if (s.begin(fmt::format("reg_mr({}, {} bytes, access=0x{:x})",
                          pd_record != nullptr ? pd_record->label() : "null", length, access))) {
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
  if (s.begin(fmt::format("dereg_mr({})", record != nullptr ? record->label() : "null")))
    return s.fail_error;
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
  if (s.begin(fmt::format("destroy_cq({})", record != nullptr ? record->label() : "null")))
    return s.fail_error;
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
  std::string text = fmt::format("modify_qp({}", record != nullptr ? record->label() : "null");
  if ((mask & IBV_QP_STATE) != 0)
    text += fmt::format(", state={}", static_cast<int>(attr->qp_state));
  if ((mask & IBV_QP_AV) != 0) {
    text += fmt::format(", sl={}, is_global={}", attr->ah_attr.sl, attr->ah_attr.is_global);
    if (attr->ah_attr.is_global != 0) {
      text += fmt::format(", traffic_class={}, sgid_index={}", attr->ah_attr.grh.traffic_class,
                          attr->ah_attr.grh.sgid_index);
    } else {
      text += fmt::format(", dlid={}", attr->ah_attr.dlid);
    }
  }
  if ((mask & IBV_QP_PATH_MTU) != 0) text += fmt::format(", path_mtu={}", 128 << attr->path_mtu);
  if ((mask & IBV_QP_DEST_QPN) != 0) text += fmt::format(", dest_qp_num=0x{:x}", attr->dest_qp_num);
  if (s.begin(text + ")")) return s.fail_error;
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
  if (s.begin(fmt::format("modify_qp_rate_limit({}, rate_limit={} kbps)",
                          record != nullptr ? record->label() : "null", attr->rate_limit))) {
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
  if (s.begin(fmt::format("destroy_qp({})", record != nullptr ? record->label() : "null")))
    return s.fail_error;
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

std::string element_label(const ElementRecord* e) {
  return e == nullptr ? "null" : e->label();
}

}  // namespace

// The man page's rules for both kinds of element (EINVAL unless said otherwise).
static int check_sched_attr(FakeMlx5::State& s, ibv_context* context, const mlx5dv_sched_attr* attr,
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

static void* create_element(FakeMlx5::State& s, ibv_context* context, const mlx5dv_sched_attr* attr,
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

static std::string sched_call(const char* name, const mlx5dv_sched_attr* attr) {
  if (attr == nullptr) return fmt::format("{}(null)", name);
  return fmt::format("{}(parent={}, flags={}, bw_share={}, max_avg_bw={}, comp_mask={})", name,
                     element_label(FakeMlx5::State::record_of(attr->parent)),
                     sched_flags_text(attr->flags), attr->bw_share, attr->max_avg_bw,
                     attr->comp_mask);
}

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
  if (s.begin(fmt::format("sched_node_destroy({})", element_label(record)))) return s.fail_error;
  if (!s.check_alive(record, "node") || record->leaf) return s.refuse(EINVAL, "not a live node");
  if (record->children != 0) return s.refuse(EBUSY, "it has children (model choice)");
  record->alive = false;
  if (record->parent != nullptr) --record->parent->children;
  return 0;
}

int FakeMlx5::sched_leaf_destroy(mlx5dv_sched_leaf* leaf) {
  State& s = *state_;
  ElementRecord* record = State::record_of(leaf);
  if (s.begin(fmt::format("sched_leaf_destroy({})", element_label(record)))) return s.fail_error;
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
  if (s.begin(fmt::format("modify_qp_sched_elem({}, requester={}, responder={})",
                          record != nullptr ? record->label() : "null", element_label(leaf),
                          element_label(responder_leaf)))) {
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
    if (s.config.timing == FakeTiming::instant) {
      ++record->send_outstanding;
      if (now_ns < 0) now_ns = s.device_now_ns();  // one clock read per call
      s.arrive(dest, message, now_ns);
      s.complete_send(record, message, now_ns);
    } else {
      s.ensure_model();
      if (record->sim_flow == UINT32_MAX) return EINVAL;  // connected after traffic started
      Message m;
      m.bytes = message.bytes;
      m.scheduled_ns = s.port.clock().now_ns();
      if (wr->opcode == IBV_WR_RDMA_READ) {
        // The data is the responder's: its READ-response flow carries it.
        if (dest->sim_flow == UINT32_MAX) return EINVAL;
        m.flow = dest->sim_flow + 2;
        m.sequence = dest->read_sequence;
        if (s.port.queue().tx_burst({&m, 1}) != 1) return ENOMEM;
        ++dest->read_sequence;
        ++record->send_outstanding;
        dest->reads_in_flight.emplace_back(record, message);
      } else {
        m.flow = record->sim_flow + (remote ? 1 : 0);
        m.sequence = record->next_sequence;
        if (s.port.queue().tx_burst({&m, 1}) != 1) return ENOMEM;
        ++record->next_sequence;
        ++record->send_outstanding;
        record->in_flight.push_back(message);
        record->to_arrive.push_back(message);
      }
    }
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

LockedMemoryLimit FakeMlx5::locked_memory_limit() {
  return state_->config.locked_memory;
}

ibv_gid gid_from_text(const char* text) {
  ibv_gid gid{};
  if (inet_pton(AF_INET6, text, gid.raw) != 1) {
    throw std::invalid_argument(fmt::format("not a GID: '{}'", text));
  }
  return gid;
}

std::vector<FakeGid> connectx_roce_gids() {
  const ibv_gid link_local = gid_from_text("fe80::ac0:ebff:fe3d:ca54");
  const ibv_gid ipv4 = gid_from_text("::ffff:192.168.1.10");
  return {{link_local, IBV_GID_TYPE_ROCE_V1},
          {link_local, IBV_GID_TYPE_ROCE_V2},
          {ipv4, IBV_GID_TYPE_ROCE_V1},
          {ipv4, IBV_GID_TYPE_ROCE_V2}};
}

std::vector<FakeGid> infiniband_gids() {
  return {{gid_from_text("fe80::248a:703:b1:bc04"), IBV_GID_TYPE_IB}};
}

FakeDeviceConfig fake_device_for_port(double rate_bps, const policy::WireModel& wire,
                                      int64_t propagation_delay_ns) {
  FakeDeviceConfig config;
  config.port.rate_bps = rate_bps;
  config.port.link_layer =
      wire.transport == policy::Transport::ib ? IBV_LINK_LAYER_INFINIBAND : IBV_LINK_LAYER_ETHERNET;
  if (wire.transport == policy::Transport::ib) config.port.gids = infiniband_gids();
  config.port.vlan = wire.vlan;
  config.port.ipv6 = wire.ipv6;
  config.port.ib_grh = wire.ib_grh;
  config.port.propagation_delay_ns = propagation_delay_ns;
  return config;
}

}  // namespace qb::drv::verbs
