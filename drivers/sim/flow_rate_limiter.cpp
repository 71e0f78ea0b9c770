// Per-flow rate limiters; see flow_rate_limiter.hpp.
#include "flow_rate_limiter.hpp"

#include <algorithm>

#include "sim_time.hpp"

namespace qb::drv::sim {
namespace {

// As a capped tree element's bucket (TreeScheduler::Config::bucket_depth_s): 20 us of the rate.
constexpr int64_t kDepthPs = 20'000'000;
constexpr int64_t kUnlimitedTat = INT64_MIN / 4;  // far in the past, yet safe to subtract from

}  // namespace

void FlowRateLimiter::configure(uint32_t flows, uint32_t largest_packet_bytes) {
  limits_.assign(flows, Limit{});
  largest_packet_bytes_ = std::max(1u, largest_packet_bytes);
  start();
}

void FlowRateLimiter::start() noexcept {
  for (Limit& limit : limits_) limit = Limit{0, kUnlimitedTat, 0, 0};
}

void FlowRateLimiter::set_rate(uint32_t flow, uint64_t rate_bps, int64_t now_ps) noexcept {
  Limit& limit = limits_[flow];
  if (rate_bps == 0) {
    limit = Limit{0, kUnlimitedTat, 0, 0};
    return;
  }
  if (limit.rate_bps == 0) {
    limit.tat_ps = kUnlimitedTat;  // a new limiter starts with a full bucket
  } else if (limit.tat_ps > now_ps) {
    // The time still owed at the old rate, in time at the new one.
    __extension__ using Int128 = __int128;
    const Int128 owed = Int128{limit.tat_ps - now_ps} * static_cast<Int128>(limit.rate_bps) /
                        static_cast<Int128>(rate_bps);
    limit.tat_ps = now_ps + static_cast<int64_t>(std::min<Int128>(owed, INT64_MAX / 4));
  }
  limit.rate_bps = rate_bps;
  limit.carry = 0;
  uint64_t carry = 0;
  limit.depth_ps =
      std::max<int64_t>(kDepthPs, 2 * serialise(largest_packet_bytes_, rate_bps, carry));
}

void FlowRateLimiter::charge(uint32_t flow, uint32_t wire_bytes, int64_t now_ps) noexcept {
  Limit& limit = limits_[flow];
  if (limit.rate_bps == 0) return;
  limit.tat_ps = std::max(limit.tat_ps, now_ps - limit.depth_ps) +
                 serialise(wire_bytes, limit.rate_bps, limit.carry);
}

}  // namespace qb::drv::sim
