// The simulated switch: every host's link ends at one switch, whose egress port forwards to
// the receiver. Per (ingress host, switch class) a buffer with credit (lossless
// back-pressure: a NIC may start a packet only when it fits), store and forward, the egress
// port arbitrating by class (PortArbiter) and round robin over the ingress hosts inside a
// class. Which flows wait for credit is the NIC's business (SimModel); here are the buffers, the
// credits on their way back to the NICs, and the egress link.
//
// Congestion signals (docs/semantics.md, "Congestion"): a packet is ECN-marked when it enters
// the switch, by RED on the bytes its egress class holds then (policy::EcnMarking; the bytes
// still on their way from the NICs count: they hold credit). The receiver answers a marked
// packet with a CNP when the flow had none for cnp_interval (mlx5's min_time_between_cnps);
// the CNP takes the ACK's way back. The egress class queue depth an arriving packet sees is
// counted for the results.
//
// Lossy mode (docs/dpa.md, "Lossy mode"): no credit, a NIC sends whenever its link is free;
// a packet that does not fit its egress class's buffer (`lossy_buffer_bytes`, the bytes of the
// class queued or on their way, as ECN counts them) is tail-dropped when it enters. The
// receiver takes packets in PSN order (GoBackNReceiver) and NACKs a gap; the NACK takes the
// ACK's way back.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "go_back_n.hpp"
#include "qb/common/ring_buffer.hpp"
#include "qb/policies/congestion.hpp"
#include "qb/policies/port_arbiter.hpp"
#include "queue_depth_recorder.hpp"
#include "sim_events.hpp"
#include "sim_stats.hpp"

namespace qb::drv::sim {

class SimSwitch {
 public:
  /// A packet in a switch buffer.
  struct Packet {
    int64_t arrive_ps = 0;  // fully received by the switch (store and forward)
    uint32_t flow = 0;
    uint16_t slot = 0;
    bool last = false;
    bool ecn = false;  // marked Congestion Experienced
    uint32_t payload_bytes = 0;
    uint32_t wire_bytes = 0;
    uint32_t psn = 0;    // the flow's packet sequence number (lossy: the receiver checks it)
    uint32_t epoch = 0;  // lossy: how often the sender went back before sending it
  };
  struct Config {
    policy::PortQos qos;
    int64_t rate_bps = 1;  // egress
    uint32_t hosts = 1;
    int64_t nic_rate_bps = 1;
    int64_t nic_propagation_ps = 0;       // NIC -> switch, and a credit's way back
    int64_t receiver_propagation_ps = 0;  // switch -> receiver
    int64_t ack_propagation_ps = 0;       // receiver -> sender
    uint32_t largest_packet_bytes = 1;
    uint32_t smallest_packet_bytes = 1;
    uint32_t flows = 0;
    std::array<policy::EcnMarking, policy::kMaxArbClasses> ecn{};  // per switch class
    int64_t cnp_interval_ps = 0;
    uint64_t seed = 1;
    bool queue_cnps = false;  // keep CNPs for pop_cnp() (a rate-control program listens)
    bool lossy = false;
    int64_t lossy_buffer_bytes = 0;  // lossy: per egress class
    // The egress class depth per time bin (QueueDepthRecorder); 0 bins: not recorded.
    int64_t series_start_ps = 0;
    int64_t series_bin_ps = 0;
    uint32_t series_bins = 0;
  };
  /// A NACK on its way to the sender (lossy).
  struct Nack {
    int64_t time_ps = 0;  // reaches the sender
    uint32_t flow = 0;
    uint32_t psn = 0;  // the receiver's expected PSN: the sender goes back to it
  };
  /// A CNP on its way to the sender.
  struct Cnp {
    int64_t time_ps = 0;  // reaches the sender
    uint32_t flow = 0;
  };

  void configure(const Config& config);
  /// Time zero: empty buffers, every credit home.
  void start() noexcept;

  uint32_t class_count() const noexcept { return classes_; }
  /// Classes that have flows (the only ones forward() looks at).
  void set_class_mask(uint32_t mask) noexcept { class_mask_ = mask; }
  uint32_t class_mask() const noexcept { return class_mask_; }
  uint32_t buffer_of(uint32_t host, uint32_t switch_class) const noexcept {
    return host * classes_ + switch_class;
  }
  uint32_t host_of(uint32_t buffer) const noexcept { return buffer / classes_; }
  uint32_t buffer_count() const noexcept { return static_cast<uint32_t>(queues_.size()); }
  /// Bytes of buffer per (ingress host, switch class).
  int64_t buffer_bytes() const noexcept { return buffer_bytes_; }
  /// Lossy: bytes of each egress class's buffer (0 when lossless).
  int64_t lossy_buffer_bytes() const noexcept { return lossy_ ? lossy_buffer_bytes_ : 0; }

  /// Whether `bytes` more fit in `buffer` as the NIC sees it (credit not yet back counts);
  /// always in lossy mode (no back-pressure).
  bool has_room(uint32_t buffer, int64_t bytes) const noexcept {
    return lossy_ || credit_used_[buffer] + bytes <= buffer_bytes_;
  }
  bool lossy() const noexcept { return lossy_; }
  /// Wire bytes in `buffer` (arrived or on their way).
  int64_t queued_bytes(uint32_t buffer) const noexcept { return queue_bytes_[buffer]; }
  /// Bytes the egress sends before a probe entering `buffer` now: its buffer's, and as much of
  /// every other ingress buffer of its class (served round robin with it), at most as much as
  /// its own. Other classes are not counted. O(hosts).
  int64_t bytes_ahead_of_probe(uint32_t buffer) const noexcept;
  int64_t rate_bps() const noexcept { return rate_bps_; }
  /// A NIC started `packet` towards `buffer` at `now_ps` (it has room). Lossy: false when it
  /// was dropped.
  bool accept(uint32_t buffer, const Packet& packet, int64_t now_ps, PortStats& stats) noexcept;
  /// Class `c`'s depth per bin up to `end_ps` (empty when not recorded).
  void depth_series(uint32_t c, int64_t end_ps, std::vector<double>& max_bytes,
                    std::vector<double>& mean_bytes) const {
    depth_series_.series(c, end_ps, max_bytes, mean_bytes);
  }
  /// Credit back at the NICs by `now_ps`: frees it and calls on_freed(buffer) for each return.
  template <class OnFreed>
  void return_credits(int64_t now_ps, OnFreed&& on_freed) noexcept {
    while (!credits_.empty() && credits_.front().time_ps <= now_ps) {
      const CreditEvent credit = credits_.front();
      credits_.pop();
      credit_used_[credit.buffer] -= credit.bytes;
      on_freed(credit.buffer);
    }
  }
  /// Starts the next packet on the egress link when it is idle; its rx and tx_done go to
  /// `lane`. Returns false when a full completion ring held the link.
  bool forward(int64_t now_ps, Lane& lane, PortStats& stats) noexcept;
  /// The earliest future instant at which the switch has something to do (INT64_MAX: none).
  /// Credit returns count only when `credit_awaited` (someone waits for room).
  int64_t next_event_ps(int64_t now_ps, bool credit_awaited) const noexcept;

  /// CNPs that reached their senders by `now_ps`, in time order (queue_cnps only).
  template <class OnCnp>
  void deliver_cnps(int64_t now_ps, OnCnp&& on_cnp) noexcept {
    while (!cnps_.empty() && cnps_.front().time_ps <= now_ps) {
      const Cnp cnp = cnps_.front();
      cnps_.pop();
      on_cnp(cnp);
    }
  }
  /// NACKs that reached their senders by `now_ps`, in time order (lossy).
  template <class OnNack>
  void deliver_nacks(int64_t now_ps, OnNack&& on_nack) noexcept {
    while (!nacks_.empty() && nacks_.front().time_ps <= now_ps) {
      const Nack nack = nacks_.front();
      nacks_.pop();
      on_nack(nack);
    }
  }
  /// The PSN the receiver expects next from `flow`.
  uint32_t expected_psn(uint32_t flow) const noexcept { return receiver_.expected_psn(flow); }
  /// Egress class queue depth (bytes) arriving packets saw: the value below which `fraction`
  /// of them fell (1 KiB resolution, rounded up), and the largest.
  int64_t queue_depth_percentile_bytes(double fraction) const noexcept;
  int64_t queue_depth_max_bytes() const noexcept { return queue_depth_max_bytes_; }

 private:
  struct CreditEvent {
    int64_t time_ps = 0;  // the credit is back at the NIC
    uint32_t buffer = 0;
    uint32_t bytes = 0;
  };

  uint32_t classes_ = 1;
  uint32_t class_mask_ = 0;
  uint32_t hosts_ = 1;
  int64_t rate_bps_ = 1;
  int64_t buffer_bytes_ = 0;
  int64_t nic_propagation_ps_ = 0;
  int64_t receiver_propagation_ps_ = 0;
  int64_t ack_propagation_ps_ = 0;
  std::optional<policy::PortArbiter> arbiter_;
  std::vector<RingBuffer<Packet>> queues_;  // per (host, switch class)
  std::vector<int64_t> credit_used_;        // per (host, switch class): the NICs' view (lossless)
  std::vector<int64_t> queue_bytes_;        // per (host, switch class): wire bytes in queues_
  RingBuffer<CreditEvent> credits_;
  std::array<uint32_t, policy::kMaxArbClasses> rr_{};  // next ingress host per class
  int64_t free_ps_ = 0;
  uint64_t carry_ = 0;
  uint32_t held_mask_ = 0;  // ready classes the arbiter held at the last decision

  // Congestion signals.
  static constexpr int64_t kDepthBucketBytes = 1024;
  bool marks_ecn(uint32_t switch_class, int64_t queued_bytes) noexcept;
  void answer_mark(const Packet& packet, int64_t arrive_ps, PortStats& stats) noexcept;
  std::array<policy::EcnMarking, policy::kMaxArbClasses> ecn_{};
  std::array<int64_t, policy::kMaxArbClasses> class_queued_bytes_{};  // egress, per class
  int64_t cnp_interval_ps_ = 0;
  uint64_t seed_ = 1;
  uint64_t random_state_ = 1;  // xorshift64*, from the seed at start()
  bool queue_cnps_ = false;
  std::vector<int64_t> last_cnp_ps_;  // per flow: the receiver's last CNP (INT64_MIN: none)
  RingBuffer<Cnp> cnps_;
  // Lossy mode.
  bool lossy_ = false;
  int64_t lossy_buffer_bytes_ = 0;
  GoBackNReceiver receiver_;
  RingBuffer<Nack> nacks_;  // at most one per flow in flight (one per sender round)
  QueueDepthRecorder depth_series_;
  std::vector<uint64_t> depth_counts_;  // per kDepthBucketBytes of egress class depth
  uint64_t depth_samples_ = 0;
  int64_t queue_depth_max_bytes_ = 0;
};

}  // namespace qb::drv::sim
