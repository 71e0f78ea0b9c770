// The runtime port arbiter: which arbitration class (Ethernet TC, InfiniBand VL) sends the next
// packet. Used by the simulator at every NIC egress and switch egress port, and meant for the
// DPDK software shaper. O(classes) per decision, no allocation after construction, integer math.
//
// Ethernet: strict priority between the ETS groups (ets_groups()), DWRR by percentage inside a
// group (a TC may overdraw its deficit by one packet, as TreeScheduler does), per-TC caps as token
// buckets. InfiniBand: the high and low VLArb tables, weights in 64-byte credits, the current entry
// may start a packet while it has credit left and the packet always completes (overrun); after
// high_limit x 4096 bytes of high-priority data a low-priority packet gets its chance (255 = never
// limited, 0 = one high packet).
//
// Model choices (docs/semantics.md, simulator section): ETS weights inside a group are the
// percentages; zero-percent ETS, strict and vendor TCs sharing a group split it equally. A TC cap
// is a token bucket of 20 us at the (already hw-rounded) EthPortQos::tc_max_rate_bps; a TC may
// start a packet while its bucket is not in debt. VLArb credits are ceil(wire_bytes / 64); an
// entry's weight is fresh each time it becomes current (no debt carried). The high-priority byte
// count restarts when a low packet goes or when no low VL has a packet at a decision. VLs in no
// table (or only with weight 0, or beyond the operational VLs) never send.
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
  static constexpr uint32_t kMaxTableEntries = 64;  // IBA: up to 64 entries per VLArb table

  // ETS: one DWRR group per hardware group number. Deficits are in wire bytes x the group's
  // smallest weight, so quanta are exact integers (quantum = kEtsQuantumBytes x weight).
  struct EtsGroup {
    uint32_t mask = 0;  // TCs in this group
    std::array<uint8_t, 8> members{};
    uint8_t count = 0;
    uint8_t cursor = 0;  // index into members: the TC at the head of the round
    int64_t charge_scale = 1;
  };
  struct EtsClass {
    int64_t deficit = 0;
    int64_t quantum = 0;
    int64_t charge_scale = 1;
    bool active = false;  // in its group's rotation at the last decision
    // Cap (GCRA form of a token bucket): may start a packet while tat_ps <= now.
    int64_t cap_bps = 0;  // 0 = no cap
    int64_t tat_ps = 0;
    uint64_t cost_carry = 0;  // remainder of bits x 1e12 / cap, carried to the next packet
  };
  // VLArb: one table, its current entry and that entry's remaining 64-byte credits.
  struct VlTable {
    std::array<VlArbEntry, kMaxTableEntries> entries{};
    uint32_t size = 0;
    uint32_t vl_mask = 0;  // VLs with at least one entry of weight > 0
    uint32_t cursor = 0;
    int32_t credits = 0;
  };

  int pick_ets(uint32_t backlog_mask, int64_t now_ps) noexcept;
  int pick_vlarb(uint32_t backlog_mask) noexcept;
  static int pick_table(VlTable& table, uint32_t backlog_mask) noexcept;
  void build_ets_from(const EthPortQos& eth, double rate_bps);
  void build_vlarb_from(const IbArbitration& ib);

  PortQos::Kind kind_ = PortQos::Kind::none;
  uint32_t class_count_ = 1;
  uint32_t valid_mask_ = 1;  // classes that can ever send

  std::array<EtsGroup, 8> groups_{};  // in decreasing priority
  uint32_t group_count_ = 0;
  std::array<EtsClass, 8> ets_{};
  uint32_t capped_mask_ = 0;

  VlTable high_;
  VlTable low_;
  int64_t high_limit_bytes_ = -1;  // -1: unlimited (255)
  int64_t high_bytes_ = 0;         // high-priority bytes since low last had its chance
  bool last_from_high_ = false;
};

}  // namespace qb::policy
