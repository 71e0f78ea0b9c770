// The fake ConnectX's private state (fake_mlx5.hpp is its public face): the records behind the
// handles it gives out, and `FakeMlx5::State`. Its code is split by concern:
//   fake_mlx5.cpp            the device: open/close and the queries (device, port, GIDs, clocks)
//   fake_mlx5_objects.cpp    PDs, MRs, CQs, QPs, scheduling elements and their rules; posting
//   fake_mlx5_timing.cpp     completions: at once, or on the simulator's timing; polling
//   fake_mlx5_recording.cpp  the call log, injected failures, violations, live-object counts
#pragma once

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "fake_mlx5.hpp"
#include "qb/drivers/backend.hpp"
#include "sim_port.hpp"

namespace qb::drv::verbs::fake {

constexpr uint32_t kKnownSchedFlags =
    MLX5DV_SCHED_ELEM_ATTR_FLAGS_BW_SHARE | MLX5DV_SCHED_ELEM_ATTR_FLAGS_MAX_AVG_BW;
constexpr uint32_t kMaxQpWr = 32768;
constexpr int kMaxCqe = 4'194'303;

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

// The call log's texts (fake_mlx5_recording.cpp).
/// "qp#3", or "null" for no record.
std::string label_of(const Record* record);
/// "BW_SHARE|MAX_AVG_BW", unknown bits in hex.
std::string sched_flags_text(uint32_t flags);
/// "sched_leaf_create(parent=node#1, flags=BW_SHARE, bw_share=7, max_avg_bw=0, comp_mask=0)".
std::string sched_call(const char* name, const mlx5dv_sched_attr* attr);
/// "modify_qp(qp#4, state=2, ...)": the attributes `mask` gives.
std::string modify_qp_call(const Record* qp, const ibv_qp_attr& attr, int mask);

}  // namespace qb::drv::verbs::fake

namespace qb::drv::verbs {

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

  std::vector<std::unique_ptr<fake::ContextHandle>> contexts;
  std::vector<std::unique_ptr<fake::Record>> context_records;
  std::vector<std::unique_ptr<fake::PdHandle>> pds;
  std::vector<std::unique_ptr<fake::PdRecord>> pd_records;
  std::vector<std::unique_ptr<fake::MrHandle>> mrs;
  std::vector<std::unique_ptr<fake::MrRecord>> mr_records;
  std::vector<std::unique_ptr<fake::CqHandle>> cqs;
  std::vector<std::unique_ptr<fake::CqRecord>> cq_records;
  std::vector<std::unique_ptr<fake::QpHandle>> qps;
  std::vector<std::unique_ptr<fake::QpRecord>> qp_records;
  std::vector<std::unique_ptr<fake::ElementHandle>> elements;
  std::vector<std::unique_ptr<fake::ElementRecord>> element_records;

  // Simulated timing: the model, built when traffic starts, and its flows' QPs.
  sim::SimPort port;
  bool model_built = false;
  std::vector<fake::QpRecord*> sim_qps;  // by simulator flow / 3
  std::array<Completion, 256> sim_completions{};
  uint32_t path_mtu_bytes = 4096;  // the first connected QP's path MTU

  class SimClock final : public Clock {
   public:
    explicit SimClock(State& state) : state_(state) {}
    int64_t now_ns() noexcept override;
    void wait_until(int64_t deadline_ns) noexcept override;
    std::string_view name() const noexcept override { return "virtual"; }

   private:
    State& state_;
  };
  SimClock sim_clock{*this};

  // --- recording (fake_mlx5_recording.cpp) ---------------------------------------------------

  // Logs a control-path call; true when it must fail (fail_call), with errno set.
  bool begin(std::string text);
  void result(std::string_view text);
  int refuse(int error, std::string_view why);
  template <class T>
  T* refuse_null(int error, std::string_view why) {
    refuse(error, why);
    errno = error;
    return nullptr;
  }
  // Inline: post_send checks its QP with it for every work request.
  bool check_alive(const fake::Record* record, std::string_view what) {
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

  // --- handles to records ----------------------------------------------------------------------

  static fake::Record* record_of(ibv_context* c) {
    return c == nullptr ? nullptr : fake::handle_of<fake::ContextHandle>(c)->record;
  }
  static fake::PdRecord* record_of(ibv_pd* p) {
    return p == nullptr ? nullptr : fake::handle_of<fake::PdHandle>(p)->record;
  }
  static fake::MrRecord* record_of(ibv_mr* m) {
    return m == nullptr ? nullptr : fake::handle_of<fake::MrHandle>(m)->record;
  }
  static fake::CqRecord* record_of(ibv_cq_ex* c) {
    return c == nullptr ? nullptr : fake::handle_of<fake::CqHandle>(c)->record;
  }
  static fake::CqRecord* record_of(ibv_cq* c) {
    return record_of(reinterpret_cast<ibv_cq_ex*>(c));  // ibv_cq_ex_to_cq is this cast
  }
  static fake::QpRecord* record_of(ibv_qp* q) {
    return q == nullptr ? nullptr : fake::handle_of<fake::QpHandle>(q)->record;
  }
  static fake::ElementRecord* record_of(const void* element) {
    return element == nullptr ? nullptr : static_cast<const fake::ElementHandle*>(element)->record;
  }

  fake::QpRecord* qp_by_number(uint32_t number) {
    for (auto& handle : qps) {
      if (handle->raw.qp_num == number && handle->record->alive) return handle->record;
    }
    return nullptr;
  }
  fake::MrRecord* mr_by_key(uint32_t key, bool remote) {
    for (auto& handle : mrs) {
      const uint32_t k = remote ? handle->raw.rkey : handle->raw.lkey;
      if (k == key && handle->record->alive) return handle->record;
    }
    return nullptr;
  }

  // --- timing (fake_mlx5_timing.cpp) -----------------------------------------------------------

  int64_t device_now_ns();
  // The device clock for the clock calls: on simulated timing, 0 until traffic starts (reading
  // it must not build the model before the QPs exist).
  int64_t clock_now_ns();
  // A checked work request of `qp` to `dest` goes out: completed at once (instant timing; the
  // clock read once per post_send call, through `now_ns`), or handed to the simulated port.
  // 0, or the errno post_send returns.
  int transmit(fake::QpRecord* qp, fake::QpRecord* dest, const fake::InFlight& message, bool remote,
               int64_t& now_ns) noexcept;
  // A message reached `dest` at `time_ns`: a receive completion when it consumes a receive.
  void arrive(fake::QpRecord* dest, const fake::InFlight& message, int64_t time_ns);
  void complete_send(fake::QpRecord* qp, const fake::InFlight& message, int64_t time_ns);
  void push_cqe(fake::CqRecord* cq, const WorkCompletion& wc, fake::QpRecord* send_owner);
  // Simulated timing: the tree as programmed (flags decide what counts, as on the device), the
  // QPs as flows, the port as configured; built once, when traffic starts.
  void ensure_model();
  // Simulated timing: the port's completions so far become work completions.
  void pump_model();
};

}  // namespace qb::drv::verbs
