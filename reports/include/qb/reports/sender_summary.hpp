// What a send-only run (a driver with no receiver, e.g. DPDK with rx_port = "none") can say:
// per flow the messages posted and how many were posted late, and the driver's Tx counters.
// Its receiver, in another process or host, measures and judges the traffic.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "qb/engine/run.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

struct SenderFlowTotals {
  std::string name;
  /// Its sender-side counters (engine/counters.hpp), merged over the repetitions, warm-up
  /// included; the receiver's stay 0.
  engine::Counters counts;
  // What the posted messages carry at the flow's mean message size (its size distribution):
  // payload, wire bytes (every byte on the link) and packets.
  double posted_payload_bytes = 0.0;
  double posted_wire_bytes = 0.0;
  double posted_packets = 0.0;
};

struct SenderScenarioTotals {
  std::string name;
  uint32_t repetitions_ran = 0;
  int64_t repetition_ns = 0;  // warm-up + duration asked of each repetition
  double sent_seconds = 0.0;  // summed over the repetitions (an interrupted one: its wall time)
  double tx_frames = 0.0;     // the driver's Tx counters, summed (0 when it reports none)
  double tx_bytes = 0.0;
  double tx_mpps() const { return sent_seconds > 0.0 ? tx_frames / sent_seconds / 1e6 : 0.0; }
  /// Wire bytes a frame costs besides its own bytes (Ethernet: preamble, SFD and inter-frame
  /// gap); empty when the driver's byte counter is not of frames.
  std::optional<double> frame_overhead_bytes;
  /// The driver's Tx rates over the time sent: frame bytes (the payload a flow's size names on
  /// Ethernet) and wire bytes (empty when frame_overhead_bytes is).
  double tx_goodput_bps() const { return sent_seconds > 0.0 ? tx_bytes * 8.0 / sent_seconds : 0.0; }
  std::optional<double> tx_wire_bps() const {
    if (!frame_overhead_bytes || sent_seconds <= 0.0) return std::nullopt;
    return (tx_bytes + tx_frames * *frame_overhead_bytes) * 8.0 / sent_seconds;
  }
  std::vector<SenderFlowTotals> flows;
  Starvation starvation;  // the worst repetition's (starvation_verdict.hpp)
};

std::vector<SenderScenarioTotals> sender_totals(const engine::SuiteRun& run);

/// Prints, per scenario, the warning of a starved sender too.
void print_sender_summary(const engine::SuiteRun& run, std::ostream& out);

/// Whether a sender's worker was starved past the invalid-measurement bound (exit 3).
bool sender_starved_invalid(const engine::SuiteRun& run);

}  // namespace qb::report
