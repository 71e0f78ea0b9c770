// The oracle with traffic classes and a fabric (composition: class_oracle.hpp and
// docs/semantics.md "The oracle with classes and a fabric").
#include "qb/policies/class_oracle.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "water_fill.hpp"

namespace qb::policy {

namespace {

constexpr double kVlCreditBytes = 64.0;
constexpr double kHighLimitUnitBytes = 4096.0;
constexpr uint8_t kHighLimitUnbounded = 255;
constexpr uint32_t kMaxDataVls = 15;
// Back-pressure fixed point: each round can only lower a flow's demand, so it settles; this
// bounds the work on pathological inputs.
constexpr int kMaxFabricRounds = 64;

double positive_or_zero(double value) {
  return value > 0.0 ? value : 0.0;  // NaN -> 0
}

// ---- Ethernet ETS ------------------------------------------------------------------------------

std::vector<double> arbitrate_ets(const EthPortQos& eth, std::span<const ClassDemand> classes,
                                  double capacity_bps) {
  const size_t n = std::min<size_t>(classes.size(), 8);
  std::vector<double> out(classes.size(), 0.0);
  const std::array<uint8_t, 8> groups = ets_groups(eth);
  double left = capacity_bps;
  // Strict priority between groups, the highest group first.
  for (int group = 7; group >= 0 && left > 0.0; --group) {
    std::vector<size_t> members;
    for (size_t tc = 0; tc < n; ++tc) {
      if (groups[tc] == group) members.push_back(tc);
    }
    if (members.empty()) continue;
    std::vector<double> weights, demands;
    for (const size_t tc : members) {
      // DWRR by percentage among non-zero ETS TCs; zero-percent ETS, vendor and strict TCs
      // that share a group split equally (the driver gives each the same bw allocation).
      const bool by_percent = eth.tsa[tc] == TcSelect::ets && eth.ets_percent[tc] > 0;
      weights.push_back(by_percent ? static_cast<double>(eth.ets_percent[tc]) : 1.0);
      const double cap = eth.tc_max_rate_bps[tc] > 0.0 ? eth.tc_max_rate_bps[tc] : kUnlimited;
      demands.push_back(std::min(cap, positive_or_zero(classes[tc].demand_bps)));
    }
    const std::vector<double> shares = water_fill(weights, demands, left);
    for (size_t k = 0; k < members.size(); ++k) {
      out[members[k]] = shares[k];
      left = std::max(0.0, left - shares[k]);
    }
  }
  return out;
}

// ---- InfiniBand VL arbitration -----------------------------------------------------------------

double credits_per_packet(double packet_bytes) {
  return std::max(1.0, std::ceil(packet_bytes / kVlCreditBytes));
}

/// What one VL does in one pass over a table: packets (credit rule) and weight (as written).
struct VlTurn {
  double packets = 0.0;
  double weight = 0.0;
};

std::array<VlTurn, kMaxDataVls> table_turns(const std::vector<VlArbEntry>& table,
                                            std::span<const ClassDemand> classes) {
  std::array<VlTurn, kMaxDataVls> turns{};
  for (const VlArbEntry& entry : table) {
    if (entry.weight == 0 || entry.vl >= kMaxDataVls || entry.vl >= classes.size()) continue;
    // A started packet completes: an entry of w credits sends ceil(w / c) packets of c credits.
    const double credits = credits_per_packet(classes[entry.vl].mean_packet_wire_bytes);
    turns[entry.vl].packets += std::ceil(static_cast<double>(entry.weight) / credits);
    turns[entry.vl].weight += entry.weight;
  }
  return turns;
}

std::string format_ratio_part(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", value);
  return buf;
}

/// "VLArb credit rule (low table): VL1:VL2 = 1:1 by packets, 1:2 by weights" when the byte
/// shares of the contending VLs differ from the weight shares by more than 1 %.
void note_credit_rule(const char* table_name, const std::array<VlTurn, kMaxDataVls>& turns,
                      std::span<const ClassDemand> classes, std::vector<std::string>* notes) {
  if (notes == nullptr) return;
  std::vector<uint32_t> vls;
  double byte_sum = 0.0, weight_sum = 0.0;
  for (uint32_t vl = 0; vl < kMaxDataVls && vl < classes.size(); ++vl) {
    if (turns[vl].weight <= 0.0 || !(classes[vl].demand_bps > 0.0)) continue;
    vls.push_back(vl);
    byte_sum += turns[vl].packets * classes[vl].mean_packet_wire_bytes;
    weight_sum += turns[vl].weight;
  }
  if (vls.size() < 2 || byte_sum <= 0.0) return;
  bool differs = false;
  for (const uint32_t vl : vls) {
    const double by_bytes = turns[vl].packets * classes[vl].mean_packet_wire_bytes / byte_sum;
    const double by_weight = turns[vl].weight / weight_sum;
    if (std::abs(by_bytes - by_weight) > 0.01 * by_weight) differs = true;
  }
  if (!differs) return;
  bool same_size = true;
  for (const uint32_t vl : vls) {
    same_size = same_size &&
                classes[vl].mean_packet_wire_bytes == classes[vls.front()].mean_packet_wire_bytes;
  }
  // Each ratio normalised to its smallest term; "by packets" counts bytes when sizes differ.
  double min_amount = kUnlimited, min_weight = kUnlimited;
  for (const uint32_t vl : vls) {
    min_amount = std::min(min_amount, turns[vl].packets * classes[vl].mean_packet_wire_bytes);
    min_weight = std::min(min_weight, turns[vl].weight);
  }
  std::string names, by_packets, by_weights;
  for (size_t k = 0; k < vls.size(); ++k) {
    const uint32_t vl = vls[k];
    const char* sep = k == 0 ? "" : ":";
    names += sep + std::string("VL") + std::to_string(vl);
    by_packets += sep + format_ratio_part(turns[vl].packets * classes[vl].mean_packet_wire_bytes /
                                          min_amount);
    by_weights += sep + format_ratio_part(turns[vl].weight / min_weight);
  }
  notes->push_back(std::string("VLArb credit rule (") + table_name + " table): " + names + " = " +
                   by_packets + (same_size ? " by packets, " : " by bytes, ") + by_weights +
                   " by weights");
}

/// Mean wire bytes of the packets one pass over a table sends (0 when it sends none).
double mean_turn_packet_bytes(const std::array<VlTurn, kMaxDataVls>& turns,
                              std::span<const double> demand,
                              std::span<const ClassDemand> classes) {
  double packets = 0.0, bytes = 0.0;
  for (uint32_t vl = 0; vl < kMaxDataVls && vl < classes.size(); ++vl) {
    if (turns[vl].packets <= 0.0 || !(demand[vl] > 0.0)) continue;
    packets += turns[vl].packets;
    bytes += turns[vl].packets * classes[vl].mean_packet_wire_bytes;
  }
  return packets > 0.0 ? bytes / packets : 0.0;
}

/// Water-fills `amount` among the VLs of one table by bytes per pass (the credit rule).
std::vector<double> fill_table(const std::array<VlTurn, kMaxDataVls>& turns,
                               std::span<const double> demand, std::span<const ClassDemand> classes,
                               double amount) {
  std::vector<double> weights(demand.size(), 0.0);
  for (uint32_t vl = 0; vl < kMaxDataVls && vl < demand.size(); ++vl) {
    // A VL without a packet size still gets turns: count one credit per packet.
    const double bytes = classes[vl].mean_packet_wire_bytes > 0.0
                             ? classes[vl].mean_packet_wire_bytes
                             : kVlCreditBytes;
    weights[vl] = turns[vl].packets * bytes;
  }
  return water_fill(weights, demand, amount);
}

std::vector<double> arbitrate_vlarb(const IbArbitration& ib, std::span<const ClassDemand> classes,
                                    double capacity_bps, std::vector<std::string>* notes) {
  const size_t n = classes.size();
  std::vector<double> out(n, 0.0);
  const auto high = table_turns(ib.tables.vlarb_high, classes);
  const auto low = table_turns(ib.tables.vlarb_low, classes);
  note_credit_rule("high", high, classes, notes);
  note_credit_rule("low", low, classes, notes);

  // A VL is served by the high table when it has a high entry; its low entries serve what the
  // high table leaves of its demand (model choice).
  std::vector<double> high_demand(n, 0.0), low_demand(n, 0.0);
  for (uint32_t vl = 0; vl < kMaxDataVls && vl < n; ++vl) {
    const double demand = positive_or_zero(classes[vl].demand_bps);
    if (high[vl].packets > 0.0) {
      high_demand[vl] = demand;
    } else if (low[vl].packets > 0.0) {
      low_demand[vl] = demand;
    }
  }
  // Low demand of a VL in both tables counts too: it makes the low table backlogged.
  std::vector<double> low_claim = low_demand;
  for (uint32_t vl = 0; vl < kMaxDataVls && vl < n; ++vl) {
    if (high[vl].packets > 0.0 && low[vl].packets > 0.0) low_claim[vl] = high_demand[vl];
  }
  const double high_total = std::accumulate(high_demand.begin(), high_demand.end(), 0.0);
  const double low_total = std::accumulate(low_claim.begin(), low_claim.end(), 0.0);

  // Between the tables: with both backlogged, high sends high_limit x 4096 bytes of whole packets
  // (at least one; a started packet completes), then one low packet. 255: high is strict.
  double high_amount = 0.0;
  if (ib.tables.high_limit == kHighLimitUnbounded || !(low_total > 0.0)) {
    high_amount = std::min(capacity_bps, high_total);
  } else if (high_total > 0.0) {
    const double high_bytes = mean_turn_packet_bytes(high, high_demand, classes);
    const double low_bytes = mean_turn_packet_bytes(low, low_claim, classes);
    const double limit_bytes = ib.tables.high_limit * kHighLimitUnitBytes;
    const double high_packets =
        high_bytes > 0.0 ? std::max(1.0, std::ceil(limit_bytes / high_bytes)) : 1.0;
    const double high_cycle = high_packets * high_bytes;
    const double fraction =
        high_cycle + low_bytes > 0.0 ? high_cycle / (high_cycle + low_bytes) : 0.5;
    const std::array<double, 2> weights = {fraction, 1.0 - fraction};
    const std::array<double, 2> demands = {high_total, low_total};
    high_amount = water_fill(weights, demands, capacity_bps)[0];
    if (notes != nullptr && high_total > high_amount && fraction < 1.0) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "VLArb high_limit %u: with the low table backlogged, %.0f high packet%s of "
                    "%.0f B then one low packet of %.0f B: high gets at most %.1f %%",
                    static_cast<unsigned>(ib.tables.high_limit), high_packets,
                    high_packets == 1.0 ? "" : "s", high_bytes, low_bytes, 100.0 * fraction);
      notes->push_back(buf);
    }
  }
  const std::vector<double> high_share = fill_table(high, high_demand, classes, high_amount);
  double left = std::max(0.0, capacity_bps - high_amount);
  for (uint32_t vl = 0; vl < n; ++vl) {
    out[vl] = high_share[vl];
    if (high[vl].packets > 0.0 && low[vl].packets > 0.0) {
      low_demand[vl] = std::max(0.0, high_demand[vl] - high_share[vl]);
    }
  }
  const std::vector<double> low_share = fill_table(low, low_demand, classes, left);
  for (uint32_t vl = 0; vl < n; ++vl) {
    out[vl] += low_share[vl];
    left = std::max(0.0, left - low_share[vl]);
  }
  // Work-conserving: what low could not use goes back to high VLs still wanting more.
  if (left > 0.0) {
    std::vector<double> rest(n, 0.0);
    for (uint32_t vl = 0; vl < n; ++vl) {
      if (high[vl].packets > 0.0) rest[vl] = std::max(0.0, high_demand[vl] - out[vl]);
    }
    const std::vector<double> extra = fill_table(high, rest, classes, left);
    for (uint32_t vl = 0; vl < n; ++vl) out[vl] += extra[vl];
  }
  return out;
}

void add_notes(std::vector<std::string>& into, const std::vector<std::string>& notes,
               const std::string& prefix) {
  for (const std::string& note : notes) {
    std::string line = prefix + note;
    if (std::find(into.begin(), into.end(), line) == into.end()) into.push_back(std::move(line));
  }
}

/// Mean wire bytes per packet of a set of flows, as the port sees them: total bytes over total
/// packets (saturating flows count as equal rates).
double class_packet_bytes(std::span<const uint32_t> members, std::span<const double> rate,
                          std::span<const double> packet_bytes) {
  bool any_unlimited = false;
  for (const uint32_t f : members) any_unlimited = any_unlimited || std::isinf(rate[f]);
  double bytes = 0.0, packets = 0.0;
  for (const uint32_t f : members) {
    const double size = f < packet_bytes.size() ? packet_bytes[f] : 0.0;
    if (!(size > 0.0) || !(rate[f] > 0.0)) continue;
    const double r = any_unlimited ? (std::isinf(rate[f]) ? 1.0 : 0.0) : rate[f];
    bytes += r;
    packets += r / size;
  }
  return packets > 0.0 ? bytes / packets : 0.0;
}

/// The NIC stage of one host, or the switch stage of one (host, class): the tree water-fills
/// `capacity_bps` among `members` with their demands. Adds into `flow_bps` and `element_bps`.
void fill_tree(const QosPlan& plan, std::span<const uint32_t> members,
               std::span<const double> demand, double capacity_bps, std::vector<double>& flow_bps,
               OracleResult* totals) {
  if (members.empty()) return;
  std::vector<FlowDemand> demands(members.size());
  for (size_t k = 0; k < members.size(); ++k) {
    demands[k] = FlowDemand{plan.flows[members[k]].leaf, demand[members[k]]};
  }
  const OracleResult part = expected_rates(plan.tree, demands, capacity_bps);
  for (size_t k = 0; k < members.size(); ++k) flow_bps[members[k]] = part.flow_bps[k];
  if (totals != nullptr) {
    for (size_t e = 0; e < part.element_bps.size(); ++e) {
      totals->element_bps[e] += part.element_bps[e];
      totals->element_demand_bps[e] += part.element_demand_bps[e];
    }
  }
}

/// Demand of a set of flows through the tree (caps applied), with no port limit.
double tree_demand(const QosPlan& plan, std::span<const uint32_t> members,
                   std::span<const double> demand) {
  if (members.empty()) return 0.0;
  std::vector<FlowDemand> demands(members.size());
  for (size_t k = 0; k < members.size(); ++k) {
    demands[k] = FlowDemand{plan.flows[members[k]].leaf, demand[members[k]]};
  }
  const OracleResult part = expected_rates(plan.tree, demands, kUnlimited);
  return part.element_demand_bps.empty() ? 0.0 : part.element_demand_bps[plan.tree.root()];
}

uint32_t class_of(const FlowPlan& flow, bool at_switch, uint32_t class_count) {
  const uint32_t c = at_switch ? flow.switch_arb_class : flow.arb_class;
  return c < class_count ? c : class_count;  // out of range: no class (gets nothing)
}

/// Every host's NIC: its classes' demands through the tree, the port's arbitration, then the
/// tree inside each class. Returns the NIC rate per flow; class totals summed over hosts.
std::vector<double> nic_stage(const QosPlan& plan, std::span<const double> demand,
                              std::span<const double> packet_bytes, std::vector<double>& class_bps,
                              OracleResult* totals, std::vector<std::string>& notes) {
  const uint32_t classes = oracle_class_count(plan.nic_qos);
  std::vector<double> rate(plan.flows.size(), 0.0);
  class_bps.assign(classes, 0.0);
  const uint32_t hosts = plan.host_count();
  for (uint32_t host = 0; host < hosts; ++host) {
    std::vector<std::vector<uint32_t>> members(classes);
    for (uint32_t f = 0; f < plan.flows.size(); ++f) {
      const uint32_t c = class_of(plan.flows[f], false, classes);
      if (plan.flows[f].host == host && c < classes) members[c].push_back(f);
    }
    std::vector<ClassDemand> class_demand(classes);
    for (uint32_t c = 0; c < classes; ++c) {
      class_demand[c].demand_bps = tree_demand(plan, members[c], demand);
      class_demand[c].mean_packet_wire_bytes = class_packet_bytes(members[c], demand, packet_bytes);
    }
    std::vector<std::string> port_notes;
    const std::vector<double> share =
        arbitrate_classes(plan.nic_qos, class_demand, plan.port_rate_bps, &port_notes);
    add_notes(notes, port_notes, plan.switched ? "NIC: " : "");
    for (uint32_t c = 0; c < classes; ++c) {
      fill_tree(plan, members[c], demand, share[c], rate, totals);
      class_bps[c] += share[c];
    }
  }
  return rate;
}

/// The switch egress: its classes over all hosts, then hosts equally inside a class (water-filled
/// by demand), then each host's share through the tree among its flows of the class.
std::vector<double> switch_stage(const QosPlan& plan, std::span<const double> nic_rate,
                                 std::span<const double> packet_bytes,
                                 std::vector<double>& class_bps, OracleResult* totals,
                                 std::vector<std::string>& notes) {
  const uint32_t classes = oracle_class_count(plan.switch_qos);
  const uint32_t hosts = plan.host_count();
  std::vector<double> rate(plan.flows.size(), 0.0);
  std::vector<std::vector<uint32_t>> members(classes);
  for (uint32_t f = 0; f < plan.flows.size(); ++f) {
    const uint32_t c = class_of(plan.flows[f], true, classes);
    if (c < classes) members[c].push_back(f);
  }
  std::vector<ClassDemand> class_demand(classes);
  for (uint32_t c = 0; c < classes; ++c) {
    for (const uint32_t f : members[c]) class_demand[c].demand_bps += nic_rate[f];
    class_demand[c].mean_packet_wire_bytes = class_packet_bytes(members[c], nic_rate, packet_bytes);
  }
  std::vector<std::string> port_notes;
  const std::vector<double> share =
      arbitrate_classes(plan.switch_qos, class_demand, plan.switch_rate_bps, &port_notes);
  add_notes(notes, port_notes, "switch egress: ");
  class_bps = share;
  for (uint32_t c = 0; c < classes; ++c) {
    std::vector<std::vector<uint32_t>> by_host(hosts);
    std::vector<double> host_demand(hosts, 0.0);
    for (const uint32_t f : members[c]) {
      const uint32_t host = std::min(plan.flows[f].host, hosts - 1);
      by_host[host].push_back(f);
      host_demand[host] += nic_rate[f];
    }
    const std::vector<double> equal(hosts, 1.0);
    const std::vector<double> host_share = water_fill(equal, host_demand, share[c]);
    for (uint32_t host = 0; host < hosts; ++host) {
      fill_tree(plan, by_host[host], nic_rate, host_share[host], rate, totals);
    }
  }
  return rate;
}

}  // namespace

uint32_t oracle_class_count(const PortQos& qos) noexcept {
  switch (qos.kind) {
    case PortQos::Kind::ets:
      return 8;
    case PortQos::Kind::vlarb:
      return kMaxDataVls;
    case PortQos::Kind::none:
      break;
  }
  return 1;
}

std::vector<double> arbitrate_classes(const PortQos& qos, std::span<const ClassDemand> classes,
                                      double capacity_bps, std::vector<std::string>* notes) {
  const double capacity = positive_or_zero(capacity_bps);
  switch (qos.kind) {
    case PortQos::Kind::ets:
      return arbitrate_ets(qos.eth, classes, capacity);
    case PortQos::Kind::vlarb:
      return arbitrate_vlarb(qos.ib, classes, capacity, notes);
    case PortQos::Kind::none:
      break;
  }
  // One class: it takes what it needs.
  std::vector<double> out(classes.size(), 0.0);
  if (!classes.empty()) out[0] = std::min(capacity, positive_or_zero(classes[0].demand_bps));
  return out;
}

ClassOracleResult expected_rates_with_classes(const QosPlan& plan,
                                              std::span<const double> offered_bps,
                                              std::span<const double> mean_packet_wire_bytes) {
  ClassOracleResult result;
  const size_t n = plan.flows.size();
  std::vector<double> offered(n, 0.0);
  for (size_t i = 0; i < n; ++i) {
    if (i < offered_bps.size() && !plan.flows[i].dropped) offered[i] = offered_bps[i];
  }
  const size_t elements = plan.tree.elements.size();
  result.flows.element_bps.assign(elements, 0.0);
  result.flows.element_demand_bps.assign(elements, 0.0);

  if (!plan.switched) {
    result.flows.flow_bps = nic_stage(plan, offered, mean_packet_wire_bytes, result.class_bps,
                                      &result.flows, result.notes);
    return result;
  }

  // Lossless back-pressure: a flow the switch holds below its NIC rate sends only what the switch
  // takes, and its NIC gives the rest to the host's other flows. Iterate: lower such a flow's
  // demand to its switch rate and recompute NIC and switch, until no demand changes. Demands
  // only fall, so this settles.
  std::vector<double> demand = offered;
  std::vector<double> rate(n, 0.0);
  std::vector<double> nic_class_bps;
  for (int round = 0; round < kMaxFabricRounds; ++round) {
    std::vector<std::string> round_notes;
    const std::vector<double> nic_rate =
        nic_stage(plan, demand, mean_packet_wire_bytes, nic_class_bps, nullptr, round_notes);
    rate = switch_stage(plan, nic_rate, mean_packet_wire_bytes, result.class_bps, nullptr,
                        round_notes);
    result.notes = std::move(round_notes);
    bool lowered = false;
    for (size_t i = 0; i < n; ++i) {
      if (rate[i] < nic_rate[i] * (1.0 - 1e-9) && rate[i] < demand[i]) {
        demand[i] = rate[i];
        lowered = true;
      }
    }
    if (!lowered) break;
  }
  // Element totals from the settled rates.
  for (uint32_t host = 0; host < plan.host_count(); ++host) {
    std::vector<uint32_t> members;
    for (uint32_t f = 0; f < n; ++f) {
      if (plan.flows[f].host == host) members.push_back(f);
    }
    std::vector<double> ignored(n, 0.0);
    fill_tree(plan, members, rate, kUnlimited, ignored, &result.flows);
  }
  result.flows.flow_bps = std::move(rate);
  return result;
}

}  // namespace qb::policy
