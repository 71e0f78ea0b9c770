// The verbs fast path of one worker: it owns its flows' QPs (a requester and its responder per
// flow) and two CQs, posts the engine's messages as work requests and turns completions into
// the engine's Completions. No locks: a QP and a CQ belong to one worker.
//
// Per flow, a ring holds what the engine needs back for each message in flight (scheduled and
// posted times, sequence, size): RC delivers and completes in order, so the n-th send
// completion and the n-th receive completion of a QP are its n-th message. A slot is free once
// both have been seen.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "host_clock.hpp"
#include "qb/drivers/backend.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

/// How a flow's messages go: the opcode, and where its receiver counts them.
enum class FlowOp : uint8_t {
  write,  // RDMA WRITE with immediate: the responder's receive completion counts it
  send,   // SEND: the responder's receive completion
  read,   // RDMA READ: counted at the requester when the read completes
};

struct WorkerFlowSetup {
  uint32_t flow = 0;  // index in the plan
  FlowOp op = FlowOp::write;
  ibv_qp* requester = nullptr;
  ibv_qp* responder = nullptr;  // nullptr: another host (counted there)
  uint64_t remote_address = 0;  // the responder's buffer (write/read)
  uint32_t remote_key = 0;
  /// tree = "software": the requester is paced at this wire bit/s (its oracle share); 0: not
  /// paced (posted as the engine posts).
  double pace_bps = 0.0;
};

struct WorkerSetup {
  VerbsOps* ops = nullptr;
  ibv_cq_ex* send_cq = nullptr;  // the requesters' completions
  ibv_cq_ex* recv_cq = nullptr;  // the responders' receive completions
  uint64_t local_address = 0;    // the source buffer (and read target)
  uint32_t local_key = 0;
  uint64_t recv_address = 0;  // the responders' buffer: receives land there (send)
  uint32_t recv_key = 0;
  uint32_t buffer_bytes = 0;
  uint32_t ring_slots = 512;  // per flow, a power of two >= 2 x the send queue depth
  policy::WireModel wire;
  Clock* simulated_clock = nullptr;  // a fake device on simulated time; else host time
  /// Completion timestamps in run time: ts_to_ns(ticks) - the device ns at start().
  bool nic_timestamps = false;
  mlx5dv_clock_info clock_info{};
  /// NIC timestamps: the clock info is read again (mlx5dv_get_clock_info on `context`) once
  /// this much host time has passed since the last read, on the worker's slow path.
  ibv_context* context = nullptr;
  int64_t clock_info_refresh_ns = 0;
};

struct WorkerStats {
  uint64_t posted = 0;
  uint64_t send_completions = 0;
  uint64_t recv_completions = 0;
  uint64_t error_completions = 0;
  uint64_t post_failures = 0;        // post_send refused (send queue full): retried by the engine
  uint64_t ring_full = 0;            // a flow's receiver lagged a whole ring behind
  uint64_t poll_errors = 0;          // a CQ poll failed (not "empty"): reported, the poll goes on
  uint64_t clock_info_reads = 0;     // mlx5dv_get_clock_info again during the run
  uint64_t clock_info_failures = 0;  // ... failed (the previous one is kept)
};

class VerbsWorker final : public Queue, public Clock {
 public:
  VerbsWorker(WorkerSetup setup, std::vector<WorkerFlowSetup> flows, uint32_t flow_count);
  // wrs_ point into sges_: the worker stays where it was made.
  VerbsWorker(const VerbsWorker&) = delete;
  VerbsWorker& operator=(const VerbsWorker&) = delete;

  /// Posts a receive per ring slot on every responder. false: post_recv failed.
  bool post_receives() noexcept;
  /// Time zero of the run: the host clock (host_now_ns) and the device clock (ns, converted
  /// with `clock_info`) read together, and the clock info they were read with.
  void start(int64_t host0_ns, int64_t device0_ns, const mlx5dv_clock_info& clock_info) noexcept;
  /// The host clock (simulated on a simulated device), not relative to the run's zero.
  int64_t host_now_ns() const noexcept;
  /// Posts from now on are refused; messages held for their paced time are dropped.
  void stop() noexcept;

  uint32_t tx_burst(std::span<const Message> messages) noexcept override;
  uint32_t poll(std::span<Completion> out) noexcept override;
  int64_t now_ns() noexcept override;
  void wait_until(int64_t deadline_ns) noexcept override;
  std::string_view name() const noexcept override;

  const WorkerStats& stats() const noexcept { return stats_; }
  /// The clock latency is measured with: "nic" (completion timestamps), "monotonic", "virtual".
  std::string_view clock_name() const noexcept;

 private:
  struct InFlight {
    int64_t scheduled_ns = 0;
    int64_t sent_ns = 0;
    uint64_t sequence = 0;
    uint32_t bytes = 0;
  };
  struct Flow {
    WorkerFlowSetup setup;
    std::vector<InFlight> ring;
    uint64_t tail = 0;     // next slot to post
    uint64_t tx_head = 0;  // oldest message without its send completion
    uint64_t rx_head = 0;  // oldest message not yet received (read: = tx_head)
    // The wire bytes of the last message size received (a flow's sizes mostly repeat).
    uint32_t wire_of_bytes = UINT32_MAX;
    uint32_t wire_bytes = 0;
    // tree = "software": ns of link time per wire byte at the flow's share (0: not paced),
    // when its next message may be posted, the cost of the last message size, and the
    // messages the engine gave that wait for their time (a ring of `held` slots).
    double pace_ns_per_byte = 0.0;
    double pace_next_ns = 0.0;
    uint32_t pace_cost_of_bytes = UINT32_MAX;
    double pace_cost_ns = 0.0;
    std::vector<Message> held;
    uint32_t held_head = 0;
    uint32_t held_count = 0;
  };
  static constexpr size_t kMaxChain = 32;
  static constexpr size_t kPollBatch = 64;
  // A send request's wr_id: the flow's slot (low 24 bits) and its ring position.
  static constexpr uint64_t encode_wr_id(uint32_t slot, uint64_t index) noexcept {
    return index << 24 | slot;
  }
  static constexpr std::pair<uint32_t, uint64_t> decode_wr_id(uint64_t wr_id) noexcept {
    return {static_cast<uint32_t>(wr_id & 0xffffff), wr_id >> 24};
  }

  /// Reads the clock info again when clock_info_refresh_ns has passed since the last read.
  void refresh_clock_info() noexcept;
  /// Run time of a completion: its device timestamp, else `polled_ns` (when it was polled).
  int64_t completion_ns(const WorkCompletion& wc, int64_t polled_ns) noexcept;
  /// Posts up to kMaxChain of `messages` (all of the flow in `slot`) as one chain; `sent_ns`:
  /// the clock, read before the post.
  uint32_t post_chain(Flow& flow, uint32_t slot, std::span<const Message> messages,
                      int64_t sent_ns) noexcept;
  /// The first `count` receive completions in wcs_. `polled_ns` (both drains): when the CQs
  /// were polled, the time of a completion without a device timestamp.
  uint32_t drain_recv(std::span<Completion> out, size_t count, int64_t polled_ns) noexcept;
  /// The peeked send completions `out` has room for (the rest stay peeked).
  uint32_t drain_send(std::span<Completion> out, int64_t polled_ns) noexcept;
  /// Posts `messages` (of the flow in `slot`) chain after chain; returns how many went.
  uint32_t post_all(Flow& flow, uint32_t slot, std::span<const Message> messages,
                    int64_t sent_ns) noexcept;
  /// Paced flows: link time of one message at the flow's share.
  double pace_cost_ns(Flow& flow, const Message& message) noexcept;
  /// How many of `messages`, in order, the flow's pace lets go at `now_ns`; `base_ns` is
  /// where their pacing starts (pace_start_ns, software_tree.hpp).
  size_t paced_prefix(Flow& flow, std::span<const Message> messages, int64_t now_ns,
                      double* base_ns) noexcept;
  /// A paced flow's run from tx_burst: what its pace allows now is posted, the rest held.
  /// Returns how many were taken (fewer only when the held ring is full).
  uint32_t paced_burst(Flow& flow, uint32_t slot, std::span<const Message> messages,
                       int64_t now_ns) noexcept;
  /// Posts the held messages whose time has come.
  void release_held(int64_t now_ns) noexcept;
  /// The earliest time a held message waits for its pace (INT64_MAX: none does; a flow held
  /// by a full send queue waits for a completion instead).
  int64_t next_release_ns(int64_t now_ns) const noexcept;

  /// `count` receives on the flow's responder, chained.
  bool post_receives(Flow& flow, uint32_t slot, uint32_t count) noexcept;
  Completion received(Flow& flow, const InFlight& message, int64_t time_ns) const noexcept;

  WorkerSetup setup_;
  const HostClock& host_clock_ = HostClock::get();
  std::vector<Flow> flows_;
  uint32_t slot_count_ = 0;             // flows_.size()
  std::vector<uint32_t> slot_of_flow_;  // plan flow -> index in flows_ (UINT32_MAX: not ours)
  uint64_t ring_mask_ = 0;
  int64_t host0_ns_ = 0;    // host clock at start()
  int64_t device0_ns_ = 0;  // device clock (ns) at start()
  bool stopped_ = false;
  // NIC timestamps: polls and waits until the next look at the clock info's age, and the host
  // time it was read at.
  static constexpr uint32_t kClockInfoCheckEvery = 1024;
  uint32_t clock_info_countdown_ = kClockInfoCheckEvery;
  int64_t clock_info_read_ns_ = 0;
  // completion_ns(): the last device timestamp converted (0: none) and its run time.
  uint64_t converted_timestamp_ = 0;
  int64_t converted_ns_ = 0;
  WorkerStats stats_;
  // Paced flows with held messages: release_held() has work.
  uint32_t held_flows_ = 0;
  std::array<ibv_send_wr, kMaxChain> wrs_{};
  std::array<ibv_sge, kMaxChain> sges_{};
  std::array<ibv_recv_wr, kMaxChain> recv_wrs_{};  // chained in order once (constructor)
  ibv_sge recv_sge_{};
  // Receives consumed and not yet posted again, per slot: posted again `repost_batch_` at a
  // time (one chain, one call), which leaves ring_slots - repost_batch_ + 1 >= 3/4 of the
  // ring posted, more than the send queue lets be in flight (ring_slots >= 2 x its depth).
  std::vector<uint32_t> reposts_;
  uint32_t repost_batch_ = 1;
  std::array<WorkCompletion, kPollBatch> wcs_{};  // receive completions
  std::array<WorkCompletion, kPollBatch> peeked_wcs_{};  // send completions, [used, peeked)
  size_t peeked_ = 0;
  size_t peeked_used_ = 0;
};

}  // namespace qb::drv::verbs
