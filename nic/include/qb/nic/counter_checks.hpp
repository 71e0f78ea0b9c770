// Reconciliation of a port's counter deltas with what the suite's flows did and what the suite
// assumes: bytes per priority against the flows of that priority (did the marking land in the
// class it was meant for?), CNPs against ECN marks, pauses on priorities the suite thinks lossy,
// receive discards on priorities it thinks lossless, retransmissions on a fabric it thinks
// lossless. Each says what went wrong in words. Per-priority counters are taken by name from
// the kernel's ethtool statistics, else from the DPDK PMD's xstats.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace qb::nic {

/// Whose traffic the port's counters see: the suite's flows leave it (a sender), arrive at it
/// (a receiver), or both stay inside the NIC (loopback: not on the wire).
enum class CounterDirection : uint8_t { loopback = 0, tx = 1, rx = 2 };

struct CounterCheckInput {
  /// "rdma.np_cnp_sent", "ethtool.tx_prio3_bytes", "dpdk.rx_prio3_buf_discard_packets" -> delta
  /// per repetition.
  std::map<std::string, double> deltas;
  CounterDirection direction = CounterDirection::loopback;
  /// Frame bytes (wire bytes less preamble and gap) the suite's flows sent per priority,
  /// over the measured window; only their shares are compared (the counters run longer).
  std::array<double, 8> flow_frame_bytes{};
  bool ethernet = true;  // priorities exist (RoCE); IB ports have none of ethtool's
  /// Priorities the suite thinks lossless; known: the suite says (`[eth] pfc`, or a lossy
  /// fabric: none).
  uint8_t lossless = 0;
  bool lossless_known = false;
  bool suite_lossy = false;  // [fabric] mode = "lossy": losses and retransmissions expected
  bool suite_ecn = false;    // [fabric.ecn]: the suite expects ECN marks
  std::string netdev;        // for the fixes, may be empty
};

struct CounterCheck {
  /// "priority_bytes", "cnp_vs_ecn", "pause_on_lossy", "discards_on_lossless", "retransmissions"
  std::string name;
  bool passed = true;
  bool checked = true;  // false: the counters or the direction do not allow it (detail: why)
  std::string detail;
};

/// Share difference (points of 1) above which bytes per priority disagree.
inline constexpr double kPriorityShareTolerance = 0.10;

std::vector<CounterCheck> check_counters(const CounterCheckInput& input);

}  // namespace qb::nic
