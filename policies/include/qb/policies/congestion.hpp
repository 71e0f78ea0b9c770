// Congestion settings of a plan (suite [fabric] ECN/CNP keys and [dpa]): what the simulated
// switch marks, how the receiver answers marks, and which DPA program sets the senders' rates.
// Pure data; built by suite::compile_scenario().
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qb/policies/port_qos.hpp"

namespace qb::policy {

/// ECN marking at a switch egress class (RED on the class's queued bytes, as switches and the
/// HPCC ns-3 model do): no mark below min_bytes, a mark with probability rising linearly to
/// max_probability at max_bytes, every packet marked above it. min == max is a plain threshold.
struct EcnMarking {
  bool enabled = false;
  int64_t min_bytes = 0;
  int64_t max_bytes = 0;
  double max_probability = 1.0;
};

/// A DPA program and its runtime (the emulator in the simulator).
struct DpaPlan {
  std::string program;           // a shipped program's name; empty: no program
  std::vector<int64_t> params;   // in the program's param order, defaults filled in
  std::string receiver_program;  // e.g. "reflector": answers RTT probes on the receiver's DPA
  std::vector<int64_t> receiver_params;
  uint32_t threads = 1;
  int64_t handler_cost_ns = 0;
  uint32_t queue_events = 64;         // per DPA thread
  int64_t tx_sample_interval_ns = 0;  // Tx byte-counter samples to the program; 0: none
};

struct CongestionPlan {
  std::array<EcnMarking, kMaxArbClasses> ecn{};  // per switch egress class
  int64_t cnp_interval_ns = 0;  // the receiver sends at most one CNP per flow per interval
  uint64_t seed = 1;            // marking decisions (deterministic per seed)
  bool report_queue = false;    // a gate needs the switch queue depth (max_queue_depth)
  // Lossy fabric ([fabric] mode = "lossy"): the switch tail-drops a packet that does not fit
  // its egress class's buffer (no back-pressure), the receiver NACKs the first out-of-sequence
  // packet and the sender goes back to the lost packet (RC go-back-N).
  bool lossy = false;
  int64_t buffer_bytes = 0;                   // lossy: per switch egress class
  int64_t retransmit_timeout_ns = 1'048'576;  // lossy: a silent flow's transport timer
  // The switch queue depth series: `series_bins` bins of `series_bin_ns` from
  // `series_start_ns` (the measured window); 0 bins: none.
  int64_t series_start_ns = 0;
  int64_t series_bin_ns = 0;
  uint32_t series_bins = 0;
  DpaPlan dpa;

  /// Whether the switch's queue figures are reported (marking, a program, a queue gate, drops).
  bool reports_switch_queue() const noexcept {
    return any_ecn() || report_queue || lossy || !dpa.program.empty();
  }
  bool any_ecn() const noexcept {
    for (const EcnMarking& e : ecn) {
      if (e.enabled) return true;
    }
    return false;
  }
};

}  // namespace qb::policy
