// The DPDK driver's fast path for one worker: its Tx queue (optionally behind the software
// shaper) and Rx queue, as the engine's Queue, and the TSC as its Clock.
//
// Tx: tx_burst() builds frames from the per-flow templates and hands them to rte_eth_tx_burst
// (or, with the shaper, queues the messages per flow; the shaper then picks them in DWRR order
// with the tree's caps, paced at the port rate, whenever poll()/wait_until() run). A message is
// done (tx_done) when the PMD accepted its frame; one tx_done covers a flow's frames of one
// burst; poll() returns the tx_done that existed when
// it last came back empty (or wait_until() last returned), so a loop that refills from
// completions always meets a short batch. Rx: rte_eth_rx_burst, then the payload header
// gives flow, sequence (gaps and late arrivals are counted) and the send TSC (latency).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "device_timing.hpp"
#include "job_clock_stamps.hpp"
#include "packet_template.hpp"
#include "qb/common/ring_buffer.hpp"
#include "qb/drivers/driver.hpp"
#include "qb/policies/tree_scheduler.hpp"
#include "roce_frame.hpp"

struct rte_mempool;
struct rte_mbuf;

namespace qb::drv::dpdk {

struct WorkerSetup {
  uint32_t index = 0;  // worker number: worker w > 0 runs on the w-th EAL lcore
  uint16_t tx_port = 0;
  uint16_t tx_queue = 0;
  bool receive = false;
  uint16_t rx_port = 0;
  uint16_t rx_queue = 0;
  rte_mempool* pool = nullptr;
  std::vector<PacketTemplate> templates;  // one per flow
  /// rocev2 ports: one per flow (then `templates` is unused). Messages are cut into packets
  /// of the path MTU (dpdk_worker_roce.cpp).
  std::vector<RoceTemplate> roce_templates;
  policy::WireModel wire;
  uint16_t udp_dst_port = 0;
  uint32_t send_queue_depth = 512;  // per flow, shaper only; also bounds tx_done buffering
  /// With a plan: the software shaper over plan->tree, flows on plan->flows[f].leaf.
  const policy::QosPlan* shaper_plan = nullptr;
  double port_rate_bps = 0.0;  // shaper: pace the total at this rate (0: no pacing)
  /// mlx5 send-on-time: the mbuf Tx timestamp dynfield gets the scheduled time in device
  /// clock units (tx_ts_offset >= 0), and the flag is set.
  int tx_ts_offset = -1;
  uint64_t tx_ts_flag = 0;
  int rx_ts_offset = -1;  // Rx hardware timestamps: counted when the flag is set
  uint64_t rx_ts_flag = 0;
  DeviceClockMap device_clock;  // send-on-time: TSC -> device clock
  std::string clock_name = "tsc";  // named in the results
  /// A rank of a multi-host job: frames carry the job clock (job_clock_stamps.hpp), this
  /// host's offset to the receiver taken off; unset: the TSC.
  std::optional<int64_t> job_clock_offset_ns;
  /// A fabric job's rank: per flow, 1 when it is destined to this rank. Frames of the other
  /// flows are counted as strays, not received. Empty: every flow is received here.
  std::vector<uint8_t> rx_accept;
};

struct WorkerStats {
  uint64_t tx_packets = 0;
  uint64_t tx_frame_bytes = 0;  // with FCS
  uint64_t tx_pmd_full = 0;     // bursts the PMD took only part of
  uint64_t mbuf_alloc_failures = 0;
  uint64_t rx_packets = 0;
  uint64_t rx_frame_bytes = 0;
  uint64_t rx_foreign = 0;        // frames that are not qosbench frames of this run
  uint64_t rx_seq_gaps = 0;       // sequence numbers skipped when a later one arrived
  uint64_t rx_late = 0;           // arrivals below the next expected sequence (reordered/dup)
  uint64_t shaper_rejected = 0;   // tx_burst() stops: a flow's send queue was full
  uint64_t rx_hw_timestamps = 0;  // frames that carried an Rx hardware timestamp
  uint64_t roce_truncated = 0;    // rocev2 messages cut to kMaxRocePackets packets
  uint64_t shaper_bypassed = 0;   // frames sent past an empty software shaper
  /// A job's frames whose send stamp, in the receiver's clock, came after their arrival: the
  /// clock offset's error (or the clocks' drift since it was measured) exceeds their latency.
  uint64_t rx_stamped_after_arrival = 0;
  /// A fabric job's frames of flows destined to another rank (flooded by the switch before it
  /// learned every rank's address, or misaddressed).
  uint64_t rx_stray = 0;

  void add(const WorkerStats& o) noexcept {
    tx_packets += o.tx_packets;
    tx_frame_bytes += o.tx_frame_bytes;
    tx_pmd_full += o.tx_pmd_full;
    mbuf_alloc_failures += o.mbuf_alloc_failures;
    rx_packets += o.rx_packets;
    rx_frame_bytes += o.rx_frame_bytes;
    rx_foreign += o.rx_foreign;
    rx_seq_gaps += o.rx_seq_gaps;
    rx_late += o.rx_late;
    shaper_rejected += o.shaper_rejected;
    rx_hw_timestamps += o.rx_hw_timestamps;
    roce_truncated += o.roce_truncated;
    shaper_bypassed += o.shaper_bypassed;
    rx_stamped_after_arrival += o.rx_stamped_after_arrival;
    rx_stray += o.rx_stray;
  }
};

class DpdkWorker final : public Queue, public Clock {
 public:
  static constexpr uint32_t kBurst = 32;
  static constexpr uint32_t kRxPending = 1024;
  static constexpr uint32_t kRxHighWater = 768;
  /// rocev2: most packets one message is sent as (larger messages are cut, and counted).
  static constexpr uint32_t kMaxRocePackets = 256;

  explicit DpdkWorker(WorkerSetup setup);
  ~DpdkWorker() override;
  DpdkWorker(const DpdkWorker&) = delete;
  DpdkWorker& operator=(const DpdkWorker&) = delete;

  /// Send-on-time: maps the TSC to the device clock (before start()).
  void set_device_clock(const DeviceClockMap& map) noexcept { setup_.device_clock = map; }
  /// Time zero of the run: the current TSC.
  void start() noexcept;
  /// Stops accepting messages; frees received frames not yet polled.
  void stop() noexcept;

  uint32_t tx_burst(std::span<const Message> messages) noexcept override;
  uint32_t poll(std::span<Completion> out) noexcept override;

  int64_t now_ns() noexcept override;
  void wait_until(int64_t deadline_ns) noexcept override;
  std::string_view name() const noexcept override { return setup_.clock_name; }

  const WorkerStats& stats() const noexcept { return stats_; }
  /// Per flow: sequence gaps seen at the receiver.
  uint64_t flow_seq_gaps(uint32_t flow) const noexcept { return rx_flows_[flow].gaps; }
  uint64_t flow_late(uint32_t flow) const noexcept { return rx_flows_[flow].late; }
  /// Per flow: packets received (a fabric job's per-rank check).
  uint64_t flow_rx_packets(uint32_t flow) const noexcept { return rx_flows_[flow].packets; }
  double tsc_hz() const noexcept { return tsc_hz_; }

 private:
  struct RxFlow {
    uint64_t expected = 0;
    uint64_t gaps = 0;
    uint64_t late = 0;
    uint64_t packets = 0;
  };
  struct TxDone {  // a tx_done Completion (one flow's frames of one burst), expanded when polled
    uint32_t flow = 0;
    uint16_t messages = 0;
    uint16_t last_index = 0;  // the flow's last message in the burst
    uint32_t last_bytes = 0;
    uint64_t last_sequence = 0;
    int64_t last_scheduled_ns = 0;
    int64_t sent_ns = 0;
  };
  struct RxEntry {
    rte_mbuf* mbuf = nullptr;
    uint64_t tsc = 0;
  };

  int64_t ticks_to_ns(uint64_t tsc) const noexcept;
  void bind_thread() noexcept {
    if (!bound_) bind_slow();
  }
  void bind_slow() noexcept;
  uint32_t transmit(const Message* messages, uint32_t count) noexcept;
  // `stamp`: the low 32 bits of the send time the frames carry (TSC, or job clock ns).
  uint32_t transmit_eth(const Message* messages, uint32_t count, int64_t sent_ns,
                        uint32_t stamp) noexcept;
  void record_tx_done(const Message* messages, uint32_t sent, int64_t sent_ns) noexcept;
  // rocev2 (dpdk_worker_roce.cpp): builds whole messages' packets, sends them; packets the PMD
  // did not take of a message it took in part wait in roce_backlog_ and go first next time.
  uint32_t transmit_roce(const Message* messages, uint32_t count, int64_t sent_ns,
                         uint32_t stamp) noexcept;
  bool flush_roce_backlog() noexcept;
  struct RxFrame {
    PayloadHeader header;
    uint32_t payload_bytes = 0;
    uint32_t wire_bytes = 0;
    bool last_of_message = true;
  };
  bool parse_rx(const rte_mbuf* m, RxFrame& out) const noexcept;
  uint32_t message_wire_bytes(const Message& m) const noexcept;
  void stamp_send_times(const Message* messages, rte_mbuf* const* mbufs, uint32_t count) noexcept;
  uint32_t send_direct(std::span<const Message> messages) noexcept;
  /// Shaper on, nothing backlogged in it: sends the leading messages of uncapped flows the
  /// emulated link has room for straight to the PMD (what the tree would do at once).
  uint32_t send_unshaped(std::span<const Message> messages) noexcept;
  uint32_t enqueue(std::span<const Message> messages) noexcept;
  void service(uint64_t tsc) noexcept;
  void fetch_rx() noexcept;
  uint32_t receive(std::span<Completion> out) noexcept;

  WorkerSetup setup_;
  uint32_t flow_count_ = 0;
  uint32_t min_length_ = 0;
  uint32_t max_length_ = 0;
  bool prefix_fits_ = false;  // frames are written by PacketTemplate::write_prepared
  double tsc_hz_ = 0.0;
  double ns_per_tick_ = 0.0;
  double ticks_per_ns_ = 0.0;
  uint64_t tsc0_ = 0;
  std::optional<JobClockStamps> job_clock_;  // a rank of a multi-host job
  bool running_ = false;
  bool bound_ = false;  // this worker's thread has its lcore (bind_worker_thread)

  RingBuffer<TxDone> tx_done_;
  std::vector<uint64_t> tx_done_entry_;  // per flow: 1 + position of its latest tx_done entry
  size_t visible_tx_done_ = 0;           // front entries of tx_done_ poll() may return
  RingBuffer<RxEntry> rx_pending_;
  std::vector<RxFlow> rx_flows_;

  // Software shaper.
  std::unique_ptr<policy::TreeScheduler> shaper_;
  std::vector<RingBuffer<Message>> send_queues_;
  Message held_[kBurst];  // picked (and charged) but not yet accepted by the PMD
  uint32_t held_head_ = 0;
  uint32_t held_count_ = 0;
  std::vector<uint8_t> flow_capped_;  // per flow: an element on its leaf's path has a cap
  // Per flow: messages sent whose tx_done poll() has not handed out yet (the shaper keeps
  // these plus its queued ones within send_queue_depth, the capability's window).
  std::vector<uint32_t> unpolled_;
  uint32_t eth_l1_bytes_ = 0;  // preamble and inter-frame gap per Ethernet frame
  double ticks_per_wire_byte_ = 0.0;
  double link_next_ = 0.0;  // emulated link free again at this tick (relative to tsc0_)
  double link_slack_ = 0.0;
  double link_catch_up_ = 0.0;  // link time a late service may still use
  bool link_busy_ = false;      // the last pick found a frame (the link had a backlog)

  // rocev2.
  bool roce_ = false;
  std::vector<uint32_t> tx_psn_;  // per flow: the next PSN
  RingBuffer<rte_mbuf*> roce_backlog_;

  WorkerStats stats_;
};

}  // namespace qb::drv::dpdk
