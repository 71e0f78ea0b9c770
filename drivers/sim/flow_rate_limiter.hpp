// Per-flow rate limiters of the rate-control seam (rate_control.hpp): a token bucket on wire
// bytes per flow, in GCRA form (a flow may start a packet while its theoretical arrival time is
// not in the future), as deep as a capped tree element's bucket. Integer picoseconds; the cost
// of a packet carries its remainder, so a saturating flow gets exactly its rate.
#pragma once

#include <cstdint>
#include <vector>

namespace qb::drv::sim {

class FlowRateLimiter {
 public:
  /// `flows` flows, all unlimited; buckets hold at least two packets of `largest_packet_bytes`.
  void configure(uint32_t flows, uint32_t largest_packet_bytes);
  /// Every flow unlimited again.
  void start() noexcept;

  /// Limits `flow` to `rate_bps` (0: unlimited) from `now_ps`; what it still owes is rescaled
  /// to the new rate.
  void set_rate(uint32_t flow, uint64_t rate_bps, int64_t now_ps) noexcept;
  uint64_t rate_bps(uint32_t flow) const noexcept { return limits_[flow].rate_bps; }
  /// When `flow`'s next packet may start (any time <= now means now).
  int64_t ready_ps(uint32_t flow) const noexcept { return limits_[flow].tat_ps; }
  /// Charges a packet of `wire_bytes` that `flow` started at `now_ps`.
  void charge(uint32_t flow, uint32_t wire_bytes, int64_t now_ps) noexcept;

 private:
  struct Limit {
    uint64_t rate_bps = 0;       // 0: unlimited
    int64_t tat_ps = INT64_MIN;  // theoretical arrival time of the next packet
    int64_t depth_ps = 0;        // bucket depth, in time at the rate
    uint64_t carry = 0;          // remainder of bits * 1e12 / rate
  };

  std::vector<Limit> limits_;
  uint32_t largest_packet_bytes_ = 1;
};

}  // namespace qb::drv::sim
