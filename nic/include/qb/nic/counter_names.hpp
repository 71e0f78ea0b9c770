// The counter names the reconciliation checks read, as mlx5 exposes them (the RDMA port's
// hw_counters; ethtool's per-priority statistics; the mlx5 PMD's xstats, which rename a few of
// the kernel's: rx_prio3_buf_discard is rx_prio3_buf_discard_packets there). Only these are
// named in code: every other counter is carried by the name the device gives it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace qb::nic {

/// hw_counters the checks read (mlx5 names; Soft-RoCE has some, others none).
inline constexpr std::string_view kRdmaCheckedCounters[] = {
    "np_cnp_sent",                 // CNPs this port (notification point) sent
    "np_ecn_marked_roce_packets",  // ECN-marked RoCE packets it received
    "rp_cnp_handled",              // CNPs it (reaction point) handled by lowering a QP's rate
    "rp_cnp_ignored",              // CNPs it received and ignored (roce_rp disabled)
    "out_of_sequence",             // packets received out of sequence (a loss upstream)
    "packet_seq_err",              // NAK sequence errors received (the peer saw a loss)
    "local_ack_timeout_err",       // requester retransmissions on ACK timeout
    "rnr_nak_retry_err",           // RNR NAK retries exhausted
    "implied_nak_seq_err",
    "duplicate_request",
};

/// A per-priority counter: "tx_prio3_bytes", "rx_prio0_pause", "tx_prio5_pause_duration",
/// "rx_prio3_buf_discard" (ethtool), "rx_prio3_cong_discard_packets" (DPDK mlx5 xstats).
struct PriorityCounter {
  bool tx = false;
  uint8_t priority = 0;
  /// "bytes", "packets", "pause", "pause_duration", "pause_transition", "buf_discard",
  /// "cong_discard" (the xstats' "_packets" suffix of the discards dropped)
  std::string_view kind;
};

/// The sources whose per-priority counters the checks read, in the order they are preferred:
/// the kernel's ethtool statistics, else the DPDK PMD's xstats (one source per check: a
/// bifurcated mlx5 port shows the same hardware counter in both).
inline constexpr std::string_view kPrioritySources[] = {"ethtool", "dpdk"};

constexpr std::optional<PriorityCounter> priority_counter(std::string_view name) noexcept {
  PriorityCounter out;
  if (name.starts_with("tx_prio")) {
    out.tx = true;
  } else if (!name.starts_with("rx_prio")) {
    return std::nullopt;
  }
  name.remove_prefix(7);
  if (name.size() < 3 || name[0] < '0' || name[0] > '7' || name[1] != '_') return std::nullopt;
  out.priority = static_cast<uint8_t>(name[0] - '0');
  out.kind = name.substr(2);
  if (out.kind == "buf_discard_packets" || out.kind == "cong_discard_packets") {
    out.kind.remove_suffix(8);  // "_packets"
  }
  for (std::string_view kind : {"bytes", "packets", "pause", "pause_duration", "pause_transition",
                                "buf_discard", "cong_discard"}) {
    if (out.kind == kind) return out;
  }
  return std::nullopt;
}

}  // namespace qb::nic
