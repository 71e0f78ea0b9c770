// Port arbitration between classes (ETS groups, VLArb tables); see the header for the rules.
#include "qb/policies/port_arbiter.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace qb::policy {
namespace {

constexpr uint64_t kPsPerSecond = 1'000'000'000'000;
// DWRR quantum of a weight-1 TC: one 4 KiB packet per round keeps the interleaving fine;
// larger packets are served fairly by skipping rounds (the deficit carries the debt).
constexpr int64_t kEtsQuantumBytes = 4096;
// A capped TC's bucket holds 20 us of its rate (the TreeScheduler default depth).
constexpr int64_t kCapDepthPs = 20'000'000;
constexpr int64_t kCreditBytes = 64;           // IBA VLArb weight unit
constexpr int64_t kHighLimitUnitBytes = 4096;  // IBA Limit of High-Priority unit
constexpr uint8_t kUnlimitedHighLimit = 255;
constexpr uint32_t kEthTcs = 8;
constexpr uint32_t kIbDataVls = 15;

}  // namespace

PortArbiter::PortArbiter(const PortQos& qos, double rate_bps) : kind_(qos.kind) {
  switch (kind_) {
    case PortQos::Kind::none:
      class_count_ = 1;
      valid_mask_ = 1;
      break;
    case PortQos::Kind::ets:
      class_count_ = kEthTcs;
      build_ets_from(qos.eth, rate_bps);
      break;
    case PortQos::Kind::vlarb:
      class_count_ = kIbDataVls;
      build_vlarb_from(qos.ib);
      break;
  }
}

void PortArbiter::build_ets_from(const EthPortQos& eth, double rate_bps) {
  const std::array<uint8_t, 8> group_of = ets_groups(eth);
  // Weight inside a group: the ETS percentage; zero-percent ETS, strict and vendor TCs split
  // their group equally (weight 1).
  std::array<int64_t, 8> weight{};
  for (uint32_t tc = 0; tc < kEthTcs; ++tc) {
    weight[tc] =
        (eth.tsa[tc] == TcSelect::ets && eth.ets_percent[tc] > 0) ? eth.ets_percent[tc] : 1;
  }
  group_count_ = 0;
  for (int g = 7; g >= 0; --g) {
    EtsGroup group;
    int64_t min_weight = INT64_MAX;
    for (uint32_t tc = 0; tc < kEthTcs; ++tc) {
      if (group_of[tc] != g) continue;
      group.mask |= 1U << tc;
      group.members[group.count++] = static_cast<uint8_t>(tc);
      min_weight = std::min(min_weight, weight[tc]);
    }
    if (group.count == 0) continue;
    group.charge_scale = min_weight;
    for (uint32_t i = 0; i < group.count; ++i) {
      EtsClass& cls = ets_[group.members[i]];
      cls.charge_scale = min_weight;
      cls.quantum = kEtsQuantumBytes * weight[group.members[i]];
    }
    groups_[group_count_++] = group;
  }
  valid_mask_ = (1U << kEthTcs) - 1;

  const auto line_bps = static_cast<int64_t>(std::llround(rate_bps));
  for (uint32_t tc = 0; tc < kEthTcs; ++tc) {
    const auto cap = static_cast<int64_t>(std::llround(eth.tc_max_rate_bps[tc]));
    // A cap at or above the line rate never binds.
    if (cap <= 0 || (line_bps > 0 && cap >= line_bps)) continue;
    ets_[tc].cap_bps = cap;
    ets_[tc].tat_ps = INT64_MIN / 4;  // a full bucket at time zero
    capped_mask_ |= 1U << tc;
  }
}

void PortArbiter::build_vlarb_from(const IbArbitration& ib) {
  // VLs the port does not operate are never arbitrated (OpenSM masks them; so do we).
  const uint8_t top_vl = max_data_vl(ib.op_vls);
  auto fill = [top_vl](VlTable& table, const std::vector<VlArbEntry>& entries) {
    table.size = static_cast<uint32_t>(std::min<size_t>(entries.size(), kMaxTableEntries));
    for (uint32_t i = 0; i < table.size; ++i) {
      table.entries[i] = entries[i];
      if (entries[i].weight > 0 && entries[i].vl <= top_vl && entries[i].vl < kIbDataVls) {
        table.vl_mask |= 1U << entries[i].vl;
      } else {
        table.entries[i].weight = 0;  // skipped for ever
      }
    }
    table.cursor = 0;
    table.credits = table.size > 0 ? table.entries[0].weight : 0;
  };
  fill(high_, ib.tables.vlarb_high);
  fill(low_, ib.tables.vlarb_low);
  valid_mask_ = high_.vl_mask | low_.vl_mask;
  high_limit_bytes_ = ib.tables.high_limit == kUnlimitedHighLimit
                          ? -1
                          : int64_t{ib.tables.high_limit} * kHighLimitUnitBytes;
}

int PortArbiter::pick(uint32_t backlog_mask, int64_t now_ps) noexcept {
  switch (kind_) {
    case PortQos::Kind::none:
      return (backlog_mask & 1U) != 0 ? 0 : kNone;
    case PortQos::Kind::ets:
      return pick_ets(backlog_mask, now_ps);
    case PortQos::Kind::vlarb:
      return pick_vlarb(backlog_mask);
  }
  return kNone;
}

int PortArbiter::pick_ets(uint32_t backlog_mask, int64_t now_ps) noexcept {
  uint32_t eligible = backlog_mask & valid_mask_;
  for (uint32_t held = eligible & capped_mask_; held != 0; held &= held - 1) {
    const auto tc = static_cast<uint32_t>(__builtin_ctz(held));
    if (ets_[tc].tat_ps > now_ps) eligible &= ~(1U << tc);
  }
  for (uint32_t g = 0; g < group_count_; ++g) {
    EtsGroup& group = groups_[g];
    const uint32_t ready = eligible & group.mask;
    if (ready == 0) continue;
    // TCs that left the rotation (idle or capped) drop their credit and keep their debt.
    for (uint32_t i = 0; i < group.count; ++i) {
      EtsClass& cls = ets_[group.members[i]];
      const bool now_active = (ready >> group.members[i]) & 1U;
      if (cls.active && !now_active) cls.deficit = std::min<int64_t>(cls.deficit, 0);
      cls.active = now_active;
    }
    // Deficit round robin with overdraft: the head TC sends while its deficit is > 0; when
    // it is spent the TC gets its quantum and the round moves on.
    while (true) {
      const uint8_t tc = group.members[group.cursor];
      if ((ready >> tc) & 1U) {
        EtsClass& cls = ets_[tc];
        if (cls.deficit > 0) return tc;
        cls.deficit += cls.quantum;
      }
      group.cursor = static_cast<uint8_t>(group.cursor + 1 == group.count ? 0 : group.cursor + 1);
    }
  }
  return kNone;
}

int PortArbiter::pick_table(VlTable& table, uint32_t backlog_mask) noexcept {
  // The current entry keeps the turn while it has credit and its VL has a packet; otherwise
  // the next entry with weight and a waiting VL takes it with a fresh weight.
  while (true) {
    const VlArbEntry& entry = table.entries[table.cursor];
    if (table.credits > 0 && entry.weight > 0 && ((backlog_mask >> entry.vl) & 1U)) return entry.vl;
    table.cursor = table.cursor + 1 == table.size ? 0 : table.cursor + 1;
    table.credits = table.entries[table.cursor].weight;
  }
}

int PortArbiter::pick_vlarb(uint32_t backlog_mask) noexcept {
  const uint32_t high_ready = backlog_mask & high_.vl_mask;
  const uint32_t low_ready = backlog_mask & low_.vl_mask;
  if (high_ready != 0) {
    // Model choice: the high-priority byte count restarts whenever low has nothing waiting
    // (it had its chance and declined).
    if (low_ready == 0) high_bytes_ = 0;
    // A high packet may start while the count is below the limit (the packet that crosses it
    // completes), and the first one always may: limit 0 lets exactly one packet through.
    if (low_ready == 0 || high_limit_bytes_ < 0 || high_bytes_ == 0 ||
        high_bytes_ < high_limit_bytes_) {
      last_from_high_ = true;
      return pick_table(high_, high_ready);
    }
  }
  if (low_ready == 0) return kNone;
  last_from_high_ = false;
  return pick_table(low_, low_ready);
}

void PortArbiter::sent(uint32_t arb_class, uint32_t wire_bytes, int64_t now_ps) noexcept {
  switch (kind_) {
    case PortQos::Kind::none:
      return;
    case PortQos::Kind::ets: {
      if (arb_class >= kEthTcs) return;
      EtsClass& cls = ets_[arb_class];
      cls.deficit -= static_cast<int64_t>(wire_bytes) * cls.charge_scale;
      if (cls.cap_bps > 0) {
        // bits x 1e12 / cap with the remainder carried: the cap holds exactly.
        const auto cap = static_cast<uint64_t>(cls.cap_bps);
        const uint64_t numerator = uint64_t{wire_bytes} * 8U * kPsPerSecond + cls.cost_carry;
        cls.cost_carry = numerator % cap;
        const auto cost_ps = static_cast<int64_t>(numerator / cap);
        cls.tat_ps = std::max(cls.tat_ps, now_ps - kCapDepthPs) + cost_ps;
      }
      return;
    }
    case PortQos::Kind::vlarb: {
      const auto credits =
          static_cast<int32_t>((int64_t{wire_bytes} + kCreditBytes - 1) / kCreditBytes);
      if (last_from_high_) {
        high_.credits -= credits;
        high_bytes_ += wire_bytes;
      } else {
        low_.credits -= credits;
        high_bytes_ = 0;
      }
      return;
    }
  }
}

int64_t PortArbiter::next_eligible_ps(uint32_t backlog_mask) const noexcept {
  int64_t next = INT64_MAX;
  for (uint32_t held = backlog_mask & capped_mask_; held != 0; held &= held - 1) {
    next = std::min(next, ets_[static_cast<uint32_t>(__builtin_ctz(held))].tat_ps);
  }
  return next;
}

}  // namespace qb::policy
