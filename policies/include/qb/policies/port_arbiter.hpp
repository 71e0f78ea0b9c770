// The runtime port arbiter: which arbitration class (Ethernet TC, InfiniBand VL) sends the next
// packet. Used by the simulator at every NIC egress and switch egress port, and meant for the
// DPDK software shaper. O(classes) per decision, no allocation after construction, integer math.
//
// Ethernet (reference §3): strict priority between the ETS groups (ets_groups()), DWRR by
// percentage inside a group (a TC may overdraw its deficit by one packet, as TreeScheduler does),
// per-TC caps as token buckets. InfiniBand (reference §4): the high and low VLArb tables, weights
// in 64-byte credits, the current entry may start a packet while it has credit left and the
// packet always completes (overrun); after high_limit x 4096 bytes of high-priority data a
// low-priority packet gets its chance (255 = never limited, 0 = one high packet).
#pragma once

#include <array>
#include <cstdint>

#include "qb/policies/port_qos.hpp"

namespace qb::policy {

class PortArbiter {
 public:
  static constexpr int kNone = -1;

  /// `rate_bps` is the port's line rate (for the per-TC token buckets). kind none: one class 0.
  PortArbiter(const PortQos& qos, double rate_bps);

  /// The class whose packet goes next, among those whose bit is set in `backlog_mask`
  /// (bit c = class c has a packet waiting), or kNone when every backlogged class is held by
  /// its cap at `now_ps` (then next_eligible_ps() says when one frees up).
  int pick(uint32_t backlog_mask, int64_t now_ps) noexcept;
  /// Accounts a packet of `wire_bytes` that class `arb_class` started sending at `now_ps`.
  /// Must follow the pick() that returned `arb_class`.
  void sent(uint32_t arb_class, uint32_t wire_bytes, int64_t now_ps) noexcept;
  /// Earliest time a capped backlogged class may send again (INT64_MAX: none is capped).
  int64_t next_eligible_ps(uint32_t backlog_mask) const noexcept;

  uint32_t class_count() const noexcept { return class_count_; }

 private:
  // Implementation state is private to port_arbiter.cpp's design; kept here by value so the
  // arbiter never allocates.
  PortQos qos_;
  uint32_t class_count_ = 1;
  // (implementation members follow; see port_arbiter.cpp)
};

}  // namespace qb::policy
