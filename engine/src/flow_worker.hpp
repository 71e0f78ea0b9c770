// The worker loop: one worker drives its flows through one driver Queue and Clock.
// The same code drives the simulator (virtual time) and real drivers (TSC time).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "qb/drivers/driver.hpp"
#include "qb/engine/live.hpp"
#include "qb/engine/measurement.hpp"
#include "qb/engine/starvation.hpp"
#include "qb/generators/arrival_process.hpp"
#include "qb/generators/size_distribution.hpp"
#include "qb/suite/compile.hpp"

namespace qb::engine {

class LiveTap;

/// What a worker shows while it runs (all optional): its counters at each interval boundary
/// of the measured window, and the run time it has covered.
struct WorkerLive {
  LiveTap* tap = nullptr;
  int64_t interval_ns = 0;
  /// One worker per repetition reports (the others run the same window).
  RunProgress* progress = nullptr;
};

struct WorkerWindow {
  int64_t warmup_ns = 0;
  int64_t duration_ns = 0;
  int64_t bin_ns = 1'000'000;
  uint32_t max_outstanding = 512;  // the driver's send-queue depth per flow
  /// The driver runs in virtual time (Capabilities::virtual_time): posts keep the exact
  /// (time, flow) order so runs stay deterministic; real-time drivers send a burst at once.
  bool virtual_time = false;
  /// Real-time drivers: most wall time past warmup + duration before the loop gives up on a
  /// driver whose clock stalls (the run is then incomplete). Bounds every run's end.
  int64_t drain_bound_ns = 100'000'000;
  /// `owned` lists exactly the flows to drive, none included (a multi-host rank whose host
  /// has no flow on this worker); false: an empty `owned` means every flow.
  bool owned_exactly = false;
  /// Real-time drivers: the worker thread's scheduler figures, read when its loop starts and
  /// ends (a seam for tests).
  ThreadSchedReader read_sched = read_thread_sched;
};

/// How a worker's run ended and how much of the measured window it covered.
struct WorkerOutcome {
  bool complete = true;         // false: interrupted, or the driver's clock stalled
  int64_t measured_ns = 0;      // time of the window [warmup, warmup + duration) the run covered
  WorkerStarvation starvation;  // real-time drivers: time the worker lost to others
};

/// Min-heap of (scheduled ns, flow) with replace_top(): posting the top flow's message and
/// re-queueing the flow at its next time is one sift-down instead of a pop and a push.
/// Entries are unique (a flow is queued once), so the pop order is the same as any heap's.
class DueHeap {
 public:
  using Entry = std::pair<int64_t, uint32_t>;
  void reserve(size_t n) { heap_.reserve(n); }
  bool empty() const noexcept { return heap_.empty(); }
  const Entry& top() const noexcept { return heap_.front(); }
  void push(Entry e);
  void pop() noexcept;
  void replace_top(Entry e) noexcept;
  /// The smallest entry but the top (a sentinel after every flow when there is none).
  Entry second() const noexcept;

 private:
  void sift_down(size_t i, Entry e) noexcept;
  std::vector<Entry> heap_;
};

class FlowWorker {
 public:
  /// `owned`: the flows this worker drives (empty: all). Several workers split the flows of
  /// one scenario between them; each flow's generator is seeded the same whoever owns it.
  FlowWorker(const suite::CompiledScenario& compiled, uint64_t seed, WorkerWindow window,
             std::vector<uint32_t> owned = {});

  /// Publishes intervals and progress while run() goes (read-only: what the run does and
  /// measures is the same with or without it).
  void show_live(WorkerLive live);

  /// Drives every flow until warmup + duration (or until *interrupted, checked between every
  /// batch of completions whatever the driver returns). Fills `counters` and records latency
  /// into `latency` (both sized to the flow count by the caller).
  WorkerOutcome run(drv::Queue& queue, drv::Clock& clock, const std::atomic<bool>* interrupted,
                    std::vector<FlowCounters>& counters, std::vector<FlowLatency>& latency);

  /// After run(): per flow (every flow: its frames may reach any worker), one past the highest
  /// sequence this worker saw delivered (last packet) before the measured window's end.
  const std::vector<uint64_t>& delivered_next() const noexcept { return delivered_next_; }
  /// After run(): records into latency[f].outstanding_age_ns, for the flows this worker
  /// drives, the age at `end_ns` (from the scheduled send time) of every message posted and
  /// not delivered (sequence >= delivered_next[f], the highest over every worker). Only the
  /// last posts the ring holds are known (a send window's worth: every message not yet
  /// acknowledged, so all on drivers whose tx_done follows delivery).
  void record_outstanding(const std::vector<uint64_t>& delivered_next, int64_t end_ns,
                          std::vector<FlowLatency>& latency) const;

 private:
  struct FlowState {
    gen::ArrivalProcess arrivals;
    gen::SizeSampler sizes;
    Rng rng;
    uint32_t window = 0;       // most messages in flight
    uint32_t outstanding = 0;  // posted, tx_done not yet seen
    uint32_t fixed_bytes = 0;  // fixed-size flows: the size (the sampler draws nothing)
    bool saturating = false;
    bool queued = false;          // in ready_ (saturating) or due_ (scheduled)
    int64_t next_ns = 0;          // scheduled time of the next message (scheduled flows)
    int64_t start_offset_ns = 0;  // the flow's `start`: its first message, after time zero
    uint64_t next_sequence = 0;
    // Scheduled times of the last posts, by sequence & ring_mask in scheduled_ring_: what
    // the messages outstanding at the window's end have waited (owned flows only).
    size_t ring_offset = 0;
    uint64_t ring_mask = 0;
    // Copied into FlowCounters when run() returns: counted here, on the flow's hot line.
    uint64_t late_posts = 0;
  };
  // Messages per burst: due flows are collected once per burst (256 amortizes that for
  // paced flows); saturating refills are handed over every 64.
  static constexpr size_t kBurstMessages = 256;
  static constexpr size_t kRefillFlushMessages = 64;

  /// run()'s steps before the loop: the per-run state, then each owned flow's first post.
  void prepare_run(std::vector<FlowCounters>& counters);
  void schedule_starts(int64_t start_ns);
  uint32_t post(uint32_t flow, int64_t scheduled_ns, int64_t now_ns) noexcept;
  /// Posts up to `limit` messages of one flow from `scheduled_ns` on, while they are due
  /// (saturating flows: all at now_ns); returns how many.
  uint32_t post_run(uint32_t flow, int64_t scheduled_ns, int64_t now_ns, uint32_t limit) noexcept;
  /// A saturating flow's refill of `count` messages at `now_ns` (what post_run() posts for it).
  void post_refill(FlowState& state, uint32_t flow, int64_t now_ns, uint32_t count) noexcept;
  void post_due(int64_t now_ns);
  /// Whether post_due(now_ns) has anything to post (ready flows, due flows, late starts).
  bool anything_due(int64_t now_ns) const noexcept {
    return !ready_.empty() || (!due_.empty() && due_.top().first <= now_ns) ||
           (!late_starts_.empty() && late_starts_.back().first <= now_ns);
  }
  /// Saturating flows whose `start` has come join ready_.
  void start_late_flows(int64_t now_ns);
  void post_due_in_order(int64_t now_ns) noexcept;
  void post_due_batched(int64_t now_ns) noexcept;
  void flush(drv::Queue& queue);
  /// Records the pending run of equal latencies (latency_run_) and empties it.
  void record_latency_run(std::vector<FlowLatency>& latency) noexcept;
  void on_completion(const drv::Completion& completion, drv::Queue& queue,
                     std::vector<FlowCounters>& counters, std::vector<FlowLatency>& latency);
  void publish_post_counts(std::vector<FlowCounters>& counters) const;
  /// Hands this worker's counters since the last boundary to the live tap: the interval
  /// [live_start_ns_, window_end_ns) of the measured window.
  void publish_live(int64_t window_end_ns, const std::vector<FlowCounters>& counters, bool last,
                    bool complete);
  /// Adds the run time covered since the last report (up to `covered_ns` from the start).
  void report_progress(int64_t covered_ns) noexcept;

  WorkerWindow window_;
  policy::WireModel wire_;  // counts the packets of an rx_message
  std::vector<uint32_t> owned_;
  std::vector<FlowState> flows_;
  std::vector<uint32_t> ready_;  // saturating flows to fill now (start, or driver was full)
  DueHeap due_;                  // scheduled flows by (next time, flow)
  /// Saturating flows with a later `start`: (start time, flow), latest first (taken from the
  /// back).
  std::vector<std::pair<int64_t, uint32_t>> late_starts_;
  std::array<drv::Message, kBurstMessages> burst_;
  size_t burst_size_ = 0;
  size_t burst_sent_ = 0;    // prefix of burst_ the queue has accepted
  bool exact_order_ = true;  // post in (time, flow) order even within a burst (virtual time)
  size_t series_bins_ = 0;   // bins of a flow's throughput series in this run
  // The series bin of the last counted completion: [bin_start_ns_, bin_end_ns_) of the window.
  size_t bin_index_ = 0;
  int64_t bin_start_ns_ = 0;
  int64_t bin_end_ns_ = 0;
  // packets_for_message() of the last rx_message's size (sizes repeat: no call per message).
  uint32_t rx_packets_of_bytes_ = 0;
  uint32_t rx_packets_ = 0;
  // Consecutive completions of one flow with the same two latencies (a poll batch shares its
  // polled time, a chain of work requests its sent time, a burst of refills its scheduled
  // time): counted here and recorded as one run, the same values in the same order per
  // histogram as one record() each.
  struct LatencyRun {
    uint32_t flow = 0;
    uint32_t count = 0;  // 0: no run
    int64_t from_scheduled_ns = 0;
    int64_t from_sent_ns = 0;
  };
  LatencyRun latency_run_;
  std::vector<int64_t> scheduled_ring_;   // per owned flow, a power of two >= its window
  std::vector<uint64_t> delivered_next_;  // per flow (delivered_next())

  // Live view (show_live): off unless attached; the boundary is checked once per loop turn.
  WorkerLive live_;
  const std::vector<uint32_t>* flow_group_ = nullptr;  // flow instance -> [[flow]] entry
  size_t groups_ = 0;
  int64_t live_next_ns_ = std::numeric_limits<int64_t>::max();  // next boundary (clock time)
  int64_t live_start_ns_ = 0;  // start of the interval being counted (window time)
  uint32_t live_index_ = 0;
  std::vector<LiveGroupCounters> live_published_;  // cumulative, at the last boundary
  std::vector<LiveGroupCounters> live_delta_;
  int64_t progress_reported_ns_ = 0;
};

}  // namespace qb::engine
