// The DPA emulator behind the simulator's rate-control seam: the sender NICs' DPA runs the
// suite's program ([dpa] program), the receiver NIC's DPA optionally its own (receiver_program,
// e.g. the reflector answering RTT probes). Events from the simulator become device-API events
// (qb_dpa_event), posted to the emulator (dpa/emulator), whose actions apply when their handler
// ends (a wake-up when that is later than the event). See docs/dpa.md.
//
// Also here: the periodic Tx byte-counter samples (tx_sample_interval) the program sees as
// TX_SAMPLE events and in every event's port_utilisation, and the RTT samples it was given
// (for the results).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "qb/dpa/emulator.hpp"
#include "qb/drivers/backend.hpp"
#include "qb/policies/congestion.hpp"
#include "rate_control.hpp"

namespace qb::drv::sim {

class DpaRateControl final : public RateControl {
 public:
  /// The programs of `plan` (checked by the suite; an unknown name or bad parameter throws
  /// std::invalid_argument) over `flows` flows on ports of `line_rate_bps`.
  DpaRateControl(const policy::DpaPlan& plan, uint32_t flows, double line_rate_bps);

  uint32_t event_mask() const noexcept override { return event_mask_; }
  void on_start(const RateStart& start, RateActions& actions) noexcept override;
  void on_event(const RateEvent& event, RateActions& actions) noexcept override;

  /// The emulators' counters and the RTT samples, as driver stats ("dpa_*").
  void add_stats(DriverStats& stats, int64_t virtual_ns) const;

 private:
  enum class Side : uint8_t { sender, receiver };
  struct Pending {
    uint64_t apply_ns = 0;
    uint64_t order = 0;  // post order: equal times apply in it (deterministic)
    uint32_t flow = 0;
    Side side = Side::sender;
    qb_dpa_actions actions{};
  };

  void post(Side side, qb_dpa_event event, RateActions& actions) noexcept;
  void apply(const Pending& pending, RateActions& actions) noexcept;
  void apply_due(uint64_t now_ns, RateActions& actions) noexcept;
  void sample_tx(uint64_t now_ns, RateActions& actions) noexcept;
  void arm_wakeup(uint64_t now_ns, RateActions& actions) noexcept;
  void push_pending(const Pending& pending);
  Pending pop_pending() noexcept;

  dpa::Emulator sender_;
  std::optional<dpa::Emulator> receiver_;
  uint32_t event_mask_ = 0;
  uint32_t sender_mask_ = 0;  // QB_DPA_EVENT_BIT of the sender program's kinds
  double line_rate_bps_ = 0.0;
  bool every_event_ = false;  // every_event_for_tests(): a handler that did nothing still ends
  int64_t tx_sample_interval_ns_ = 0;
  uint32_t threads_ = 1;  // per DPA

  // Per run.
  std::vector<Pending> pending_;  // min-heap by (apply_ns, order); capacity fixed at start
  uint64_t order_ = 0;
  uint64_t next_sample_ns_ = UINT64_MAX;
  std::vector<uint32_t> host_of_flow_;
  std::vector<uint8_t> started_;            // per flow: had its FLOW_START
  std::vector<uint64_t> host_tx_bytes_;     // per host, at the last sample
  std::vector<uint32_t> host_utilisation_;  // per host, fixed point of line rate
  uint64_t rtt_samples_ = 0;
  uint64_t rtt_total_ns_ = 0;
  uint64_t rtt_min_ns_ = UINT64_MAX;
  uint64_t rtt_max_ns_ = 0;
};

}  // namespace qb::drv::sim
