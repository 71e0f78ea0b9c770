#include "qb/fabric/expectation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <utility>

#include "qb/fabric/channel_qos.hpp"
#include "qb/policies/class_oracle.hpp"
#include "qb/policies/oracle.hpp"
#include "water_fill.hpp"

namespace qb::fabric {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Two shares computed along different paths of the same arithmetic agree to this (relative).
constexpr double kSame = 1e-12;
// Step (2) is settled when the bounds (or, inside them, the rates) are this close (relative).
constexpr double kSettled = 1e-13;
// A bound that moves by less than this (relative) does not make its neighbours look again.
constexpr double kMoved = 1e-15;
// The bounds stall when kStallSweeps sweeps in a row shrink the gap by less than kStallGain.
constexpr double kStallGain = 1e-3;
constexpr uint32_t kStallSweeps = 20;
// The Gauss-Seidel phase inside stalled bounds gets this many sweeps before the Jacobi one.
constexpr uint32_t kSeidelSweeps = 500;
// Rounding's floor: a Gauss-Seidel phase whose largest step stalls (kStallGain, kStallSweeps)
// at most this far (relative) from the flows' right-hand sides has settled. A NIC's greedy
// share is its rate minus the others' sum, so its rounding grows as its flows squared (about
// 1e-12 at 32 flows a NIC): kSettled is out of reach there. As kOverload, far below anything
// a measurement resolves.
constexpr double kRoundingFloor = 1e-9;
// Two fixed points this close (relative, every flow) are one: far above rounding's floor, far
// below anything a measurement resolves.
constexpr double kUnique = 1e-6;
// A channel's expected load may exceed its rate by this much (relative) from rounding alone.
constexpr double kOverload = 1e-9;

bool same(double a, double b) {
  if (a == b) return true;  // also both +inf
  return std::isfinite(a) && std::isfinite(b) &&
         std::fabs(a - b) <= kSame * std::max(std::fabs(a), std::fabs(b));
}

// One channel as its arbitration sees it: its flows (members), their classes and ingress ports.
struct ChannelView {
  uint32_t channel = 0;
  double capacity_bps = 0.0;
  bool at_nic = false;  // leaves a host: the NIC port (tree inside each class)
  const policy::PortQos* qos = nullptr;  // what the port arbitrates by
  std::vector<uint32_t> flows;
  std::vector<uint8_t> cls;
  std::vector<uint32_t> group;  // per member: its ingress port, dense 0..groups-1
  uint32_t groups = 0;
  // Per member: the view and member of the flow's previous hop (at_nic: none).
  std::vector<uint32_t> up_view, up_member;
  std::vector<uint32_t> all;  // 0..members-1
  uint32_t unfrozen = 0;  // step (1) bookkeeping
  double sum_bps = 0.0;
  // For a flow's greedy share (Arbiter::greedy), fixed once the members are known: per class,
  // its members in member order (CSR) and the class's mean packet size; per (class, ingress
  // port), its members and their members upstream; and where the sums of what they ask start
  // in a SumCache (classes, then classes x groups).
  uint32_t classes = 1;
  std::vector<uint32_t> class_start, class_members;
  std::vector<double> class_packet_bytes;
  std::vector<uint32_t> group_start, group_members, group_up;
  uint32_t slot = 0;
  // One port further up, where the port's channel U has one class and divides by its own
  // ingress ports (round robin, not a NIC): per (class, port) cell, its members split by their
  // ingress port at U (cells x U's groups, CSR in member order), each part's flows and members
  // upstream of U, and where their sums start in a SumCache. sub_base: per cell, its first part
  // (none where U does not qualify).
  std::vector<uint32_t> sub_base, sub_start, sub_flow, sub_up;
  uint32_t sub_slot = 0;
};

// What the members of a class, and of a class from one ingress port, ask in total, for one
// array of rates: each recomputed in member order (the arithmetic of Arbiter::allocate) when a
// member's rate has changed since.
// And, where a class's members divide equally (a NIC port, per-flow fairness), the members
// sorted by what they ask, kept sorted as rates change (the greedy share reads the others
// ascending, as water-filling sorts them, without sorting them per call).
struct SortedClass {
  bool built = false;
  std::vector<double> key;       // ascending; -1: takes no part (the one-leaf tree's rule)
  std::vector<uint32_t> member;  // key[i] is member[i]'s
  std::vector<uint32_t> pos;     // per member of the view: its index in key (if in the class)
  std::vector<uint32_t> stale;   // members whose rate changed since
  uint32_t live = 0;             // keys > 0
};
struct SumCache {
  const double* rates = nullptr;
  std::vector<double> sum;
  std::vector<char> valid;
  std::vector<int32_t> sorted_at;  // per class slot: index in `sorted`, or -1
  std::vector<SortedClass> sorted;
};

// A channel's arbitration over some of its members, reading each flow's demand from a per-flow
// array and writing its share into another (a flow crosses a channel once, so per-flow arrays
// serve every channel and the recursion below).
class Arbiter {
 public:
  /// `max_hops`: the longest route (the recursion upstream is at most that deep).
  Arbiter(std::span<const FabricFlow> flows, const PortPolicy& policy,
          const std::vector<ChannelView>& views, size_t max_hops)
      : flows_(flows),
        policy_(policy),
        views_(views),
        scratch_(max_hops + 1),
        one_leaf_(policy.tree != nullptr ? only_leaf(*policy.tree) : kNoLeaf) {}

  /// Members `members` of `view` divide `capacity_bps`; demand[f] in, share[f] out (per flow).
  void allocate(const ChannelView& view, std::span<const uint32_t> members, double capacity_bps,
                std::span<const double> demand, std::span<double> share) const {
    allocate_at(0, view, members, capacity_bps, demand, share);
  }

  /// What member `member` (flow f) of `view` gets when it asks for everything (+inf) and every
  /// other member asks rates[g]: allocate() with demand[f] = +inf, read at f. The same arithmetic,
  /// but only along f's own class, ingress group and upstream chain (the other members' shares
  /// are not needed), and without copying the demands.
  double greedy(const ChannelView& view, uint32_t member, std::span<const double> rates,
                SumCache& sums) const {
    const Demand demand{rates, view.flows[member]};
    const policy::PortQos& qos = *view.qos;
    const uint32_t cf = view.cls[member];
    if (qos.kind == policy::PortQos::Kind::none) {
      return greedy_top(view, member, cf, positive(view.capacity_bps), demand, sums);
    }
    Scratch& s = scratch(0);
    s.class_demand.assign(view.classes, policy::ClassDemand{});
    for (uint32_t c = 0; c < view.classes; ++c) {
      if (view.class_start[c] == view.class_start[c + 1]) continue;
      // f's class asks +inf with it.
      s.class_demand[c].demand_bps =
          c == cf ? kInf
                  : cached_sum(sums, view.slot + c, view.class_members, view.class_start[c],
                               view.class_start[c + 1], view, rates);
      s.class_demand[c].mean_packet_wire_bytes = view.class_packet_bytes[c];
    }
    s.class_share = policy::arbitrate_classes(qos, s.class_demand, view.capacity_bps, nullptr);
    return greedy_top(view, member, cf, s.class_share[cf], demand, sums);
  }

  /// The mean packet size of each class of `view` (the flows at equal rates), as allocate()
  /// computes it over all the members.
  std::vector<double> class_packet_bytes(const ChannelView& view) const {
    std::vector<double> inverse_bytes(view.classes, 0.0), bytes(view.classes, 0.0);
    std::vector<uint32_t> count(view.classes, 0);
    for (const uint32_t m : view.all) {
      inverse_bytes[view.cls[m]] += 1.0 / flows_[view.flows[m]].packet_wire_bytes;
      ++count[view.cls[m]];
    }
    for (uint32_t c = 0; c < view.classes; ++c) {
      if (count[c] > 0) bytes[c] = static_cast<double>(count[c]) / inverse_bytes[c];
    }
    return bytes;
  }

 private:
  // rates[g], except flow `f` asks for everything.
  struct Demand {
    std::span<const double> rates;
    uint32_t f = 0;
    double operator[](uint32_t g) const { return g == f ? kInf : rates[g]; }
  };

  // Scratch per recursion depth (a group's share recurses into the channel upstream), so an
  // allocation allocates nothing once the vectors have grown.
  struct Scratch {
    std::vector<policy::ClassDemand> class_demand;
    std::vector<double> inverse_bytes, class_share, sub_demand, sub_share, group_demand,
        used_demand, group_share;
    std::vector<uint32_t> count, in_class, order, used, group_any;
    std::vector<std::vector<uint32_t>> upstream;
    std::vector<policy::FlowDemand> tree_flows;
  };

  static double positive(double value) { return value > 0.0 ? value : 0.0; }

  static constexpr uint32_t kNoLeaf = UINT32_MAX;

  // A tree that is a root over one leaf, or a root leaf, nothing capped: its leaf (kNoLeaf for
  // any other tree). Through it a flow's share is one water-filling of the leaf's flows.
  static uint32_t only_leaf(const policy::SchedTree& tree) {
    const auto& e = tree.elements;
    if (e.empty() || e[0].max_avg_bw_bps > 0.0) return kNoLeaf;
    if (e.size() == 1) return e[0].is_leaf ? 0 : kNoLeaf;
    if (e.size() != 2 || e[0].is_leaf || e[0].children != std::vector<uint32_t>{1} ||
        !e[1].is_leaf || e[1].parent != 0 || e[1].max_avg_bw_bps > 0.0) {
      return kNoLeaf;
    }
    return 1;
  }

  // What policy::expected_rates through the one-leaf tree gives flow demand.f (asking +inf)
  // among `members`: the root passes the leaf `amount` whole (one child asking +inf: remaining
  // x (w / w)), and the leaf water-fills its flows with weight 1 (policy::water_fill: flows
  // asking nothing take no part; the others ascending, each against remaining x (1 / weights
  // left)). The same arithmetic, without building the tree's result.
  double one_leaf_greedy(size_t depth, const ChannelView& view, std::span<const uint32_t> members,
                         double amount, const Demand& demand) const {
    if (flows_[demand.f].leaf != one_leaf_) return 0.0;   // a flow off the leaf gets nothing
    const double capacity = amount > 0.0 ? amount : 0.0;  // NaN -> 0
    if (!(capacity > 0.0)) return 0.0;
    if (std::isinf(capacity)) return kInf;  // every flow gets what it asks
    std::vector<double>& others = scratch(depth).sub_demand;
    others.clear();
    for (const uint32_t m : members) {
      const uint32_t g = view.flows[m];
      if (g == demand.f || flows_[g].leaf != one_leaf_) continue;
      const double d = demand.rates[g];
      if (d > 0.0) others.push_back(d);  // NaN and <= 0 take no part
    }
    std::sort(others.begin(), others.end());
    double remaining = capacity;
    double weight_left = static_cast<double>(others.size() + 1);
    for (const double d : others) {
      if (d > remaining * (1.0 / weight_left)) break;
      remaining = std::max(0.0, remaining - d);
      weight_left -= 1.0;
    }
    return remaining * (1.0 / weight_left);
  }

  // Sized once (never resized, so a depth's references stay valid while deeper ones work).
  Scratch& scratch(size_t depth) const { return scratch_[depth]; }

  // The port's classes among `members` (each class's demand, and its packet size: its flows'
  // bytes over their packets, the flows at equal rates) and what its arbitration gives each
  // class (class_share), into this depth's scratch.
  template <class Demands>
  Scratch& arbitrate_members(size_t depth, const ChannelView& view,
                             std::span<const uint32_t> members, double capacity_bps,
                             const Demands& demand) const {
    const policy::PortQos& qos = *view.qos;
    const uint32_t classes = policy::oracle_class_count(qos);
    Scratch& s = scratch(depth);
    s.class_demand.assign(classes, policy::ClassDemand{});
    s.inverse_bytes.assign(classes, 0.0);
    s.count.assign(classes, 0);
    for (const uint32_t m : members) {
      const uint32_t c = view.cls[m];
      const uint32_t f = view.flows[m];
      s.class_demand[c].demand_bps += positive(demand[f]);
      s.inverse_bytes[c] += 1.0 / flows_[f].packet_wire_bytes;
      ++s.count[c];
    }
    for (uint32_t c = 0; c < classes; ++c) {
      if (s.count[c] > 0) {
        s.class_demand[c].mean_packet_wire_bytes =
            static_cast<double>(s.count[c]) / s.inverse_bytes[c];
      }
    }
    s.class_share = policy::arbitrate_classes(qos, s.class_demand, capacity_bps, nullptr);
    return s;
  }

  void allocate_at(size_t depth, const ChannelView& view, std::span<const uint32_t> members,
                   double capacity_bps, std::span<const double> demand,
                   std::span<double> share) const {
    const policy::PortQos& qos = *view.qos;
    if (qos.kind == policy::PortQos::Kind::none) {  // one class: it takes what it needs
      double total = 0.0;
      for (const uint32_t m : members) total += positive(demand[view.flows[m]]);
      divide_class(depth, view, members, std::min(positive(capacity_bps), total), demand, share);
      return;
    }
    const uint32_t classes = policy::oracle_class_count(qos);
    Scratch& s = arbitrate_members(depth, view, members, capacity_bps, demand);
    for (uint32_t c = 0; c < classes; ++c) {
      if (s.count[c] == 0) continue;
      s.in_class.clear();
      for (const uint32_t m : members) {
        if (view.cls[m] == c) s.in_class.push_back(m);
      }
      divide_class(depth, view, s.in_class, s.class_share[c], demand, share);
    }
  }

  void divide_class(size_t depth, const ChannelView& view, std::span<const uint32_t> members,
                    double amount, std::span<const double> demand, std::span<double> share) const {
    Scratch& s = scratch(depth);
    const size_t k = members.size();
    if (view.at_nic && policy_.tree != nullptr) {
      s.tree_flows.resize(k);
      for (size_t i = 0; i < k; ++i) {
        const uint32_t f = view.flows[members[i]];
        s.tree_flows[i] = policy::FlowDemand{flows_[f].leaf, demand[f]};
      }
      const policy::OracleResult r = policy::expected_rates(*policy_.tree, s.tree_flows, amount);
      for (size_t i = 0; i < k; ++i) share[view.flows[members[i]]] = r.flow_bps[i];
      return;
    }
    if (view.at_nic || policy_.fairness == Fairness::per_flow) {
      s.sub_demand.resize(k);
      s.sub_share.resize(k);
      for (size_t i = 0; i < k; ++i) s.sub_demand[i] = demand[view.flows[members[i]]];
      detail::water_fill_equal(s.sub_demand, amount, s.sub_share, s.order);
      for (size_t i = 0; i < k; ++i) share[view.flows[members[i]]] = s.sub_share[i];
      return;
    }
    // Round robin over the ingress ports with a packet of this class: each port's share is
    // water-filled by the ports' demands; inside a port, the flows divide it as the port they
    // came from arbitrates them (back-pressure hands the port's share upstream: a host's NIC
    // divides it by its classes and tree, as the one-switch model does).
    s.group_demand.assign(view.groups, 0.0);
    s.group_any.assign(view.groups, UINT32_MAX);
    if (s.upstream.size() < view.groups) s.upstream.resize(view.groups);
    for (uint32_t g = 0; g < view.groups; ++g) s.upstream[g].clear();
    for (const uint32_t m : members) {
      const uint32_t g = view.group[m];
      s.group_demand[g] += positive(demand[view.flows[m]]);
      s.upstream[g].push_back(view.up_member[m]);
      s.group_any[g] = m;
    }
    s.used.clear();
    s.used_demand.clear();
    for (uint32_t g = 0; g < view.groups; ++g) {
      if (!s.upstream[g].empty()) {
        s.used.push_back(g);
        s.used_demand.push_back(s.group_demand[g]);
      }
    }
    s.group_share.resize(s.used.size());
    detail::water_fill_equal(s.used_demand, amount, s.group_share, s.order);
    for (size_t j = 0; j < s.used.size(); ++j) {
      const uint32_t g = s.used[j];
      // Every member of a group came through the same channel: the group's up_view.
      const ChannelView& up = views_[view.up_view[s.group_any[g]]];
      allocate_at(depth + 1, up, s.upstream[g], s.group_share[j], demand, share);
    }
  }

  static double cached_sum(SumCache& sums, uint32_t slot, const std::vector<uint32_t>& members,
                           uint32_t begin, uint32_t end, const ChannelView& view,
                           std::span<const double> rates) {
    if (sums.valid[slot] == 0) {
      double total = 0.0;
      for (uint32_t i = begin; i < end; ++i) total += positive(rates[view.flows[members[i]]]);
      sums.sum[slot] = total;
      sums.valid[slot] = 1;
    }
    return sums.sum[slot];
  }

  // divide_class at the top of the recursion for member fm of class cf: the class's members and
  // (round robin) its ingress ports' sums from the view's lists and the cache.
  double greedy_top(const ChannelView& view, uint32_t fm, uint32_t cf, double amount,
                    const Demand& demand, SumCache& sums) const {
    const std::span<const uint32_t> in_class(view.class_members.data() + view.class_start[cf],
                                             view.class_start[cf + 1] - view.class_start[cf]);
    if (view.at_nic && policy_.tree != nullptr && one_leaf_ == kNoLeaf) {
      return greedy_class(0, view, in_class, fm, amount, demand);  // the whole tree oracle
    }
    if (view.at_nic || policy_.fairness == Fairness::per_flow) {
      SortedClass& sorted = sorted_class(sums, view, cf, demand.rates);
      return view.at_nic && one_leaf_ != kNoLeaf ? sorted_one_leaf(sorted, fm, amount, demand.f)
                                                 : sorted_equal(sorted, fm, amount);
    }
    Scratch& s = scratch(0);
    const uint32_t gf = view.group[fm];
    s.used_demand.clear();  // the other ports with this class; f's asks +inf with it
    for (uint32_t g = 0; g < view.groups; ++g) {
      const uint32_t cg = cf * view.groups + g;
      const uint32_t begin = view.group_start[cg], end = view.group_start[cg + 1];
      if (begin == end || g == gf) continue;
      s.used_demand.push_back(cached_sum(sums, view.slot + view.classes + cg, view.group_members,
                                         begin, end, view, demand.rates));
    }
    const double port_share =
        detail::water_fill_equal_greedy(s.used_demand, s.used_demand.size() + 1, amount);
    const uint32_t cg = cf * view.groups + gf;
    const ChannelView& up = views_[view.up_view[fm]];
    if (view.sub_base.size() > cg + 1 && view.sub_base[cg] != view.sub_base[cg + 1]) {
      // greedy_at(1, up, ...) with up's ports' sums from the cache: up has one class (it takes
      // the whole port_share) and its round robin gives f's port there port_share_up.
      const uint32_t mu = view.up_member[fm];
      const uint32_t base = view.sub_base[cg];
      const uint32_t gu = up.group[mu];
      s.used_demand.clear();
      for (uint32_t g = 0; g < up.groups; ++g) {
        const uint32_t begin = view.sub_start[base + g], end = view.sub_start[base + g + 1];
        if (begin == end || g == gu) continue;
        const uint32_t slot = view.sub_slot + base + g;
        if (sums.valid[slot] == 0) {
          double total = 0.0;
          for (uint32_t i = begin; i < end; ++i) total += positive(demand.rates[view.sub_flow[i]]);
          sums.sum[slot] = total;
          sums.valid[slot] = 1;
        }
        s.used_demand.push_back(sums.sum[slot]);
      }
      const double port_share_up = detail::water_fill_equal_greedy(
          s.used_demand, s.used_demand.size() + 1, positive(port_share));
      const std::span<const uint32_t> upstream(
          view.sub_up.data() + view.sub_start[base + gu],
          view.sub_start[base + gu + 1] - view.sub_start[base + gu]);
      return greedy_at(2, views_[up.up_view[mu]], upstream, up.up_member[mu], port_share_up,
                       demand);
    }
    const std::span<const uint32_t> upstream(view.group_up.data() + view.group_start[cg],
                                             view.group_start[cg + 1] - view.group_start[cg]);
    return greedy_at(1, up, upstream, view.up_member[fm], port_share, demand);
  }

  // What member m asks in the sorted order: equal division counts every member (<= 0 as 0); the
  // one-leaf tree only the leaf's flows that ask something.
  double sort_key(const ChannelView& view, uint32_t m, std::span<const double> rates) const {
    const uint32_t g = view.flows[m];
    const double d = rates[g];
    if (view.at_nic && one_leaf_ != kNoLeaf) {
      return flows_[g].leaf == one_leaf_ && d > 0.0 ? d : -1.0;
    }
    return positive(d);
  }

  SortedClass& sorted_class(SumCache& sums, const ChannelView& view, uint32_t c,
                            std::span<const double> rates) const {
    int32_t& at = sums.sorted_at[view.slot + c];
    if (at < 0) {
      at = static_cast<int32_t>(sums.sorted.size());
      sums.sorted.emplace_back();
    }
    SortedClass& sorted = sums.sorted[static_cast<size_t>(at)];
    if (!sorted.built) {
      const uint32_t begin = view.class_start[c], end = view.class_start[c + 1];
      std::vector<std::pair<double, uint32_t>> keyed;
      keyed.reserve(end - begin);
      for (uint32_t i = begin; i < end; ++i) {
        const uint32_t m = view.class_members[i];
        keyed.emplace_back(sort_key(view, m, rates), m);
      }
      std::sort(keyed.begin(), keyed.end());
      sorted.key.resize(keyed.size());
      sorted.member.resize(keyed.size());
      sorted.pos.resize(view.all.size());
      sorted.live = 0;
      for (uint32_t i = 0; i < keyed.size(); ++i) {
        sorted.key[i] = keyed[i].first;
        sorted.member[i] = keyed[i].second;
        sorted.pos[keyed[i].second] = i;
        sorted.live += keyed[i].first > 0.0 ? 1 : 0;
      }
      sorted.built = true;
      sorted.stale.clear();
      return sorted;
    }
    for (const uint32_t m : sorted.stale) {  // move each to its new place
      const double key = sort_key(view, m, rates);
      uint32_t i = sorted.pos[m];
      sorted.live -= sorted.key[i] > 0.0 ? 1 : 0;
      sorted.live += key > 0.0 ? 1 : 0;
      for (; i > 0 && sorted.key[i - 1] > key; --i) {
        sorted.key[i] = sorted.key[i - 1];
        sorted.member[i] = sorted.member[i - 1];
        sorted.pos[sorted.member[i]] = i;
      }
      for (; i + 1 < sorted.key.size() && sorted.key[i + 1] < key; ++i) {
        sorted.key[i] = sorted.key[i + 1];
        sorted.member[i] = sorted.member[i + 1];
        sorted.pos[sorted.member[i]] = i;
      }
      sorted.key[i] = key;
      sorted.member[i] = m;
      sorted.pos[m] = i;
    }
    sorted.stale.clear();
    return sorted;
  }

  // water_fill_equal_greedy over the sorted members but fm.
  static double sorted_equal(const SortedClass& sorted, uint32_t fm, double amount) {
    const size_t n = sorted.key.size();
    double left = amount > 0.0 ? amount : 0.0;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (sorted.member[i] == fm) continue;
      const double d = sorted.key[i];
      if (d > left / static_cast<double>(n - k)) break;
      left -= d;
      if (left < 0.0) left = 0.0;
      ++k;
    }
    return left / static_cast<double>(n - k);
  }

  // one_leaf_greedy over the sorted members but fm.
  double sorted_one_leaf(const SortedClass& sorted, uint32_t fm, double amount, uint32_t f) const {
    if (flows_[f].leaf != one_leaf_) return 0.0;
    const double capacity = amount > 0.0 ? amount : 0.0;
    if (!(capacity > 0.0)) return 0.0;
    if (std::isinf(capacity)) return kInf;
    const uint32_t own = sorted.key[sorted.pos[fm]] > 0.0 ? 1 : 0;
    double remaining = capacity;
    double weight_left = static_cast<double>(sorted.live - own + 1);
    for (size_t i = 0; i < sorted.key.size(); ++i) {
      const double d = sorted.key[i];
      if (!(d > 0.0) || sorted.member[i] == fm) continue;
      if (d > remaining * (1.0 / weight_left)) break;
      remaining = std::max(0.0, remaining - d);
      weight_left -= 1.0;
    }
    return remaining * (1.0 / weight_left);
  }

  // allocate_at for one member `fm` (flow demand.f, in `members`), which asks for +inf.
  double greedy_at(size_t depth, const ChannelView& view, std::span<const uint32_t> members,
                   uint32_t fm, double capacity_bps, const Demand& demand) const {
    const policy::PortQos& qos = *view.qos;
    if (qos.kind == policy::PortQos::Kind::none) {
      // The members' total is +inf (f is one of them): the class takes the capacity.
      return greedy_class(depth, view, members, fm, positive(capacity_bps), demand);
    }
    Scratch& s = arbitrate_members(depth, view, members, capacity_bps, demand);
    const uint32_t cf = view.cls[fm];
    s.in_class.clear();
    for (const uint32_t m : members) {
      if (view.cls[m] == cf) s.in_class.push_back(m);
    }
    return greedy_class(depth, view, s.in_class, fm, s.class_share[cf], demand);
  }

  // divide_class for one member `fm`.
  double greedy_class(size_t depth, const ChannelView& view, std::span<const uint32_t> members,
                      uint32_t fm, double amount, const Demand& demand) const {
    Scratch& s = scratch(depth);
    const size_t k = members.size();
    if (view.at_nic && one_leaf_ != kNoLeaf) {
      return one_leaf_greedy(depth, view, members, amount, demand);
    }
    if (view.at_nic && policy_.tree != nullptr) {
      s.tree_flows.resize(k);
      size_t at = 0;
      for (size_t i = 0; i < k; ++i) {
        const uint32_t f = view.flows[members[i]];
        s.tree_flows[i] = policy::FlowDemand{flows_[f].leaf, demand[f]};
        if (members[i] == fm) at = i;
      }
      return policy::expected_rates(*policy_.tree, s.tree_flows, amount).flow_bps[at];
    }
    if (view.at_nic || policy_.fairness == Fairness::per_flow) {
      s.sub_demand.clear();
      for (const uint32_t m : members) {
        if (m != fm) s.sub_demand.push_back(demand.rates[view.flows[m]]);
      }
      return detail::water_fill_equal_greedy(s.sub_demand, k, amount);
    }
    // Round robin over the ingress ports (divide_class): f's port's share, then f's share of it
    // as the port upstream arbitrates the flows of this port.
    const uint32_t gf = view.group[fm];
    s.group_demand.assign(view.groups, 0.0);
    s.group_any.assign(view.groups, UINT32_MAX);
    std::vector<uint32_t>& upstream =
        s.upstream.empty() ? s.upstream.emplace_back() : s.upstream.front();
    upstream.clear();
    for (const uint32_t m : members) {
      const uint32_t g = view.group[m];
      s.group_demand[g] += positive(demand[view.flows[m]]);
      s.group_any[g] = m;
      if (g == gf) upstream.push_back(view.up_member[m]);
    }
    s.used_demand.clear();  // the other ports; f's asks +inf with it
    for (uint32_t g = 0; g < view.groups; ++g) {
      if (s.group_any[g] != UINT32_MAX && g != gf) s.used_demand.push_back(s.group_demand[g]);
    }
    const double port_share =
        detail::water_fill_equal_greedy(s.used_demand, s.used_demand.size() + 1, amount);
    const ChannelView& up = views_[view.up_view[fm]];
    return greedy_at(depth + 1, up, upstream, view.up_member[fm], port_share, demand);
  }

  std::span<const FabricFlow> flows_;
  const PortPolicy& policy_;
  const std::vector<ChannelView>& views_;
  mutable std::vector<Scratch> scratch_;
  uint32_t one_leaf_ = kNoLeaf;
};

// The QoS of channel `ch`'s port.
const policy::PortQos& port_qos(const PortPolicy& policy, const Topology& t, uint32_t ch) {
  if (!policy.channel_qos.empty()) return policy.channel_qos[ch];
  return t.nodes()[t.channel(ch).from].kind == NodeKind::host ? policy.nic_qos : policy.switch_qos;
}

// Flows that send: offered load above 0 (NaN is not), not dropped, and (per-channel QoS) no port
// of the path whose SL2VL sends the flow's SL to VL15.
std::vector<bool> active_flows(const Topology& t, std::span<const FabricFlow> flows,
                               std::span<const Route> routes, const PortPolicy& policy) {
  std::vector<bool> active(flows.size());
  for (size_t f = 0; f < flows.size(); ++f) {
    active[f] = !flows[f].dropped && flows[f].offered_bps > 0.0;
    if (!active[f] || policy.channel_qos.empty() || f >= routes.size()) continue;
    for (const uint32_t ch : routes[f].channels) {
      if (ch >= t.channel_count()) break;  // build_views reports it
      const policy::PortQos& qos = policy.channel_qos[ch];
      if (qos.kind == policy::PortQos::Kind::vlarb &&
          port_class(qos, flows[f].sl, flows[f].dscp) == policy::kDropVl) {
        active[f] = false;
      }
    }
  }
  return active;
}

struct Views {
  std::vector<ChannelView> views;
  std::vector<int32_t> view_of_channel;
  // Per flow, along its path: (view, member) pairs.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> hops;
  size_t max_hops = 1;
};

Result<Views> build_views(const Topology& t, std::span<const FabricFlow> flows,
                          std::span<const Route> routes, const PortPolicy& policy,
                          const std::vector<bool>& active) {
  Views v;
  v.view_of_channel.assign(t.channel_count(), -1);
  v.hops.resize(flows.size());
  // Ingress ports per view: channel id -> dense group index.
  std::vector<std::vector<uint32_t>> ingress_ids;
  for (uint32_t f = 0; f < flows.size(); ++f) {
    if (!active[f]) continue;
    const Route& route = routes[f];
    if (route.channels.empty()) {
      return make_error(Errc::invalid_config, fmt::format("flow #{} has an empty route", f));
    }
    uint32_t prev = kNoChannel;
    for (const uint32_t ch : route.channels) {
      if (ch >= t.channel_count()) {
        return make_error(Errc::invalid_config,
                          fmt::format("flow #{}'s route names channel {}, which does not exist", f,
                                      ch));
      }
      const Channel c = t.channel(ch);
      const bool at_nic = t.nodes()[c.from].kind == NodeKind::host;
      if ((prev == kNoChannel) != at_nic) {
        return make_error(Errc::invalid_config,
                          fmt::format("flow #{}'s route does not start at a host, or crosses one",
                                      f));
      }
      if (prev != kNoChannel && t.channel(prev).to != c.from) {
        return make_error(Errc::invalid_config,
                          fmt::format("flow #{}'s route is not a path", f));
      }
      if (v.view_of_channel[ch] < 0) {
        v.view_of_channel[ch] = static_cast<int32_t>(v.views.size());
        ChannelView view;
        view.channel = ch;
        view.capacity_bps = c.rate_bps;
        view.at_nic = at_nic;
        view.qos = &port_qos(policy, t, ch);
        v.views.push_back(std::move(view));
        ingress_ids.emplace_back();
      }
      const auto vi = static_cast<uint32_t>(v.view_of_channel[ch]);
      ChannelView& view = v.views[vi];
      const policy::PortQos& qos = *view.qos;
      const uint32_t classes = policy::oracle_class_count(qos);
      const uint32_t cls = qos.kind == policy::PortQos::Kind::none ? 0
                           : !policy.channel_qos.empty()
                               ? port_class(qos, flows[f].sl, flows[f].dscp)
                               : (at_nic ? flows[f].nic_class : flows[f].switch_class);
      if (cls >= classes) {
        return make_error(Errc::invalid_config,
                          fmt::format("flow #{}'s class {} is beyond the port's {} classes", f, cls,
                                      classes));
      }
      auto& ids = ingress_ids[vi];
      const uint32_t key = prev == kNoChannel ? UINT32_MAX : prev;
      if (v.hops[f].empty()) {
        view.up_view.push_back(UINT32_MAX);
        view.up_member.push_back(UINT32_MAX);
      } else {
        view.up_view.push_back(v.hops[f].back().first);
        view.up_member.push_back(v.hops[f].back().second);
      }
      auto it = std::find(ids.begin(), ids.end(), key);
      if (it == ids.end()) {
        ids.push_back(key);
        it = ids.end() - 1;
      }
      const auto member = static_cast<uint32_t>(view.flows.size());
      view.all.push_back(member);
      view.flows.push_back(f);
      view.cls.push_back(static_cast<uint8_t>(cls));
      view.group.push_back(static_cast<uint32_t>(it - ids.begin()));
      view.groups = static_cast<uint32_t>(ids.size());
      v.hops[f].emplace_back(vi, member);
      v.max_hops = std::max(v.max_hops, v.hops[f].size());
      prev = ch;
    }
  }
  return v;
}

// Fills the views' per-class and per-(class, ingress port) lists and their sum slots; returns
// the number of slots.
uint32_t index_views(Views& v, const Arbiter& arbiter, Fairness fairness) {
  uint32_t slots = 0;
  for (ChannelView& view : v.views) {
    view.classes = std::max(1u, policy::oracle_class_count(*view.qos));
    const uint32_t cells = view.classes * view.groups;
    view.class_start.assign(view.classes + 1, 0);
    view.group_start.assign(cells + 1, 0);
    for (const uint32_t m : view.all) {
      ++view.class_start[view.cls[m] + 1];
      ++view.group_start[view.cls[m] * view.groups + view.group[m] + 1];
    }
    for (uint32_t c = 0; c < view.classes; ++c) view.class_start[c + 1] += view.class_start[c];
    for (uint32_t i = 0; i < cells; ++i) view.group_start[i + 1] += view.group_start[i];
    view.class_members.resize(view.all.size());
    view.group_members.resize(view.all.size());
    view.group_up.resize(view.all.size());
    std::vector<uint32_t> class_fill(view.class_start.begin(), view.class_start.end() - 1);
    std::vector<uint32_t> group_fill(view.group_start.begin(), view.group_start.end() - 1);
    for (const uint32_t m : view.all) {  // member order inside each list
      view.class_members[class_fill[view.cls[m]]++] = m;
      const uint32_t at = group_fill[view.cls[m] * view.groups + view.group[m]]++;
      view.group_members[at] = m;
      view.group_up[at] = view.up_member[m];
    }
    view.class_packet_bytes = arbiter.class_packet_bytes(view);
    view.slot = slots;
    slots += view.classes + cells;
    if (fairness != Fairness::per_ingress || view.at_nic) continue;
    // The parts one port up: members of each cell by their ingress port at U.
    view.sub_base.assign(cells + 1, 0);
    for (uint32_t cell = 0; cell < cells; ++cell) {
      uint32_t parts = 0;
      if (view.group_start[cell] != view.group_start[cell + 1]) {
        const ChannelView& up = v.views[view.up_view[view.group_members[view.group_start[cell]]]];
        if (up.qos->kind == policy::PortQos::Kind::none && !up.at_nic) parts = up.groups;
      }
      view.sub_base[cell + 1] = view.sub_base[cell] + parts;
    }
    view.sub_start.assign(view.sub_base[cells] + 1, 0);
    for (uint32_t cell = 0; cell < cells; ++cell) {
      if (view.sub_base[cell] == view.sub_base[cell + 1]) continue;
      for (uint32_t i = view.group_start[cell]; i < view.group_start[cell + 1]; ++i) {
        const ChannelView& up = v.views[view.up_view[view.group_members[i]]];
        ++view.sub_start[view.sub_base[cell] + up.group[view.group_up[i]] + 1];
      }
    }
    for (uint32_t i = 0; i + 1 < view.sub_start.size(); ++i) {
      view.sub_start[i + 1] += view.sub_start[i];
    }
    view.sub_flow.resize(view.sub_start.back());
    view.sub_up.resize(view.sub_start.back());
    std::vector<uint32_t> fill(view.sub_start.begin(), view.sub_start.end() - 1);
    for (uint32_t cell = 0; cell < cells; ++cell) {
      if (view.sub_base[cell] == view.sub_base[cell + 1]) continue;
      for (uint32_t i = view.group_start[cell]; i < view.group_start[cell + 1]; ++i) {
        const uint32_t m = view.group_members[i];
        const ChannelView& up = v.views[view.up_view[m]];
        const uint32_t mu = view.group_up[i];
        const uint32_t at = fill[view.sub_base[cell] + up.group[mu]]++;
        view.sub_flow[at] = view.flows[m];
        view.sub_up[at] = up.up_member[mu];
      }
    }
    view.sub_slot = slots;
    slots += view.sub_base[cells];
  }
  return slots;
}

// The right-hand side of the definition for one flow: the least of its offered load and what
// each channel of its path (idle ones arbitrate nothing) gives it when it asks for everything and
// every other flow there asks for its rate in `rates`.
class RightHandSide {
 public:
  RightHandSide(const Views& v, std::span<const FabricFlow> flows, const Arbiter& arbiter,
                const std::vector<char>& idle, uint32_t slots)
      : v_(v), flows_(flows), arbiter_(arbiter), idle_(idle), slots_(slots) {}

  /// rates[f] has changed (the sums over `rates` that count it are stale).
  void changed(std::span<const double> rates, uint32_t f) {
    SumCache& sums = sums_for(rates);
    const auto& hops = v_.hops[f];
    for (size_t j = 0; j < hops.size(); ++j) {
      const auto [vi, m] = hops[j];
      const ChannelView& view = v_.views[vi];
      const uint32_t c = view.cls[m];
      const uint32_t cell = c * view.groups + view.group[m];
      if (view.sub_base.size() > cell + 1 && view.sub_base[cell] != view.sub_base[cell + 1]) {
        const auto [ui, mu] = hops[j - 1];  // qualifying parts have a channel upstream
        sums.valid[view.sub_slot + view.sub_base[cell] + v_.views[ui].group[mu]] = 0;
      }
      sums.valid[view.slot + c] = 0;
      sums.valid[view.slot + view.classes + c * view.groups + view.group[m]] = 0;
      if (const int32_t at = sums.sorted_at[view.slot + c]; at >= 0) {
        SortedClass& sorted = sums.sorted[static_cast<size_t>(at)];
        if (sorted.built) sorted.stale.push_back(m);
      }
    }
  }
  /// Any of `rates` may have changed.
  void changed_all(std::span<const double> rates) {
    SumCache& sums = sums_for(rates);
    std::fill(sums.valid.begin(), sums.valid.end(), 0);
    for (SortedClass& sorted : sums.sorted) sorted.built = false;
  }

  /// `at`: the channel that gives the least, or kLimitedByOffered.
  double operator()(uint32_t f, std::span<const double> rates, uint32_t& at) {
    double best = flows_[f].offered_bps;
    at = kLimitedByOffered;
    SumCache& sums = sums_for(rates);
    for (const auto& [vi, m] : v_.hops[f]) {
      if (idle_[vi] != 0) continue;
      const ChannelView& view = v_.views[vi];
      const double got = arbiter_.greedy(view, m, rates, sums);
      if (got < best) {
        best = got;
        at = view.channel;
      }
    }
    return best;
  }

 private:
  const Views& v_;
  std::span<const FabricFlow> flows_;
  const Arbiter& arbiter_;
  // The cache for the array `rates` (the solver's bounds and rates: a few arrays that live as
  // long as this object), made empty the first time.
  SumCache& sums_for(std::span<const double> rates) {
    for (SumCache& sums : caches_) {
      if (sums.rates == rates.data()) return sums;
    }
    SumCache& sums = caches_.emplace_back();
    sums.rates = rates.data();
    sums.sum.assign(slots_, 0.0);
    sums.valid.assign(slots_, 0);
    sums.sorted_at.assign(slots_, -1);
    return sums;
  }

  const std::vector<char>& idle_;
  uint32_t slots_ = 0;
  std::deque<SumCache> caches_;  // references stay valid as it grows
};

// Which flows must look again: those marked, and those on whose channels another flow moved
// since they last looked. Each channel keeps the times of its last mover's move and of the last
// move by any other flow, so a move costs O(hops) and so does the question (marking every
// member of every channel of the mover's path cost O(members) per move).
class Dirty {
 public:
  Dirty(const Views& v, size_t flows)
      : v_(v), marked_(flows, 0), looked_(flows, 0), last_(v.views.size()) {}

  void mark(uint32_t f) { marked_[f] = 1; }
  bool is(uint32_t f) const { return marked_[f] != 0 || moved_near(f); }
  /// Whether f must look again; from now on it has looked.
  bool take(uint32_t f) {
    const bool dirty = is(f);
    marked_[f] = 0;
    looked_[f] = ++now_;
    return dirty;
  }
  /// f moved: the other flows on its channels must look again.
  void moved(uint32_t f) {
    ++now_;
    for (const auto& [vi, m] : v_.hops[f]) {
      Last& last = last_[vi];
      if (last.who != f) {
        last.other_at = last.at;
        last.who = f;
      }
      last.at = now_;
    }
  }

 private:
  struct Last {
    uint32_t who = UINT32_MAX;  // the last flow that moved here
    uint64_t at = 0;            // when
    uint64_t other_at = 0;      // the last move here by a flow other than `who`
  };

  bool moved_near(uint32_t f) const {
    for (const auto& [vi, m] : v_.hops[f]) {
      const Last& last = last_[vi];
      if ((last.who == f ? last.other_at : last.at) > looked_[f]) return true;
    }
    return false;
  }

  const Views& v_;
  std::vector<char> marked_;
  std::vector<uint64_t> looked_;
  std::vector<Last> last_;
  uint64_t now_ = 0;
};

double midpoint(double low, double high) {
  return std::isfinite(high) ? low + (high - low) / 2 : low;
}

double relative_gap(double low, double high) {
  if (low >= high) return 0.0;
  if (!std::isfinite(high)) return kInf;
  return high > 0.0 ? (high - low) / high : 0.0;
}

// The largest relative gap between a flow of `rest` and its right-hand side at `x`.
double residual(std::span<const uint32_t> rest, std::span<const double> lo,
                std::span<const double> hi, RightHandSide& rhs, const std::vector<double>& x) {
  rhs.changed_all(x);
  uint32_t at = kLimitedByOffered;
  double largest = 0.0;
  for (const uint32_t f : rest) {
    const double target = std::clamp(rhs(f, x, at), lo[f], hi[f]);
    largest = std::max(largest, relative_gap(std::min(x[f], target), std::max(x[f], target)));
  }
  return largest;
}

// Inside bounds that stalled apart, first flow by flow (Gauss-Seidel, the newest rates of the
// others): each steps towards its right-hand side, halving its steps when it turns back and
// regaining them while it keeps its direction, kept within [lo, hi]; only flows whose channels
// changed look again. Fast where it settles; on some coupled fabrics it swings for ever, so it
// has kSeidelSweeps. Settled when no flow moves by more than kSettled in a sweep; at the floor
// when the largest step stalls below kRoundingFloor (the rounding of the right-hand sides) and
// every flow, evaluated afresh, is that close to its right-hand side.
enum class SeidelEnd { not_settled, settled, at_floor };
SeidelEnd seidel_inside(std::span<const uint32_t> rest, std::span<const double> lo,
                        std::span<const double> hi, RightHandSide& rhs, Dirty& dirty,
                        FabricExpectation& out) {
  std::vector<double>& x = out.flow_bps;
  std::vector<double> gain(x.size(), 1.0), last_step(x.size(), 0.0);
  for (const uint32_t f : rest) dirty.mark(f);
  rhs.changed_all(x);
  uint32_t at = kLimitedByOffered;
  const uint32_t until = std::min(kMaxSweeps, out.sweeps + kSeidelSweeps);
  bool pending = true;
  double best_gap = kInf;
  uint32_t stalled = 0;
  while (pending && out.sweeps < until) {
    ++out.sweeps;
    double sweep_gap = 0.0;  // the largest step this sweep (relative)
    for (const uint32_t f : rest) {
      if (!dirty.take(f)) continue;
      const double target = std::clamp(rhs(f, x, at), lo[f], hi[f]);
      const double step = target - x[f];
      const double gap = relative_gap(std::min(x[f], target), std::max(x[f], target));
      sweep_gap = std::max(sweep_gap, gap);
      if (gap <= kSettled) {
        x[f] = target;
        rhs.changed(x, f);
        last_step[f] = 0.0;
        continue;
      }
      gain[f] = step * last_step[f] < 0.0 ? gain[f] * 0.5 : std::min(1.0, gain[f] * 2.0);
      last_step[f] = step;
      x[f] += gain[f] * step;
      rhs.changed(x, f);
      if (gain[f] < 1.0) dirty.mark(f);  // short of its target: look again
      dirty.moved(f);
    }
    pending = false;
    for (const uint32_t f : rest) pending = pending || dirty.is(f);
    if (sweep_gap < best_gap * (1.0 - kStallGain)) {
      best_gap = sweep_gap;
      stalled = 0;
    } else if (++stalled >= kStallSweeps && sweep_gap <= kRoundingFloor) {
      return residual(rest, lo, hi, rhs, x) <= kRoundingFloor ? SeidelEnd::at_floor
                                                                : SeidelEnd::not_settled;
    }
  }
  return pending ? SeidelEnd::not_settled : SeidelEnd::settled;
}

// Then, from the bounds' midpoint again, all flows at once (Jacobi) step a
// fraction `alpha` towards their right-hand sides, kept within [lo, hi]; a sweep whose largest
// residual does not fall halves alpha (whole steps swing on coupled channels). True when every
// flow is within kSettled of its right-hand side.
bool jacobi_inside(std::span<const uint32_t> rest, std::span<const double> lo,
                   std::span<const double> hi, RightHandSide& rhs, FabricExpectation& out) {
  std::vector<double>& x = out.flow_bps;
  std::vector<double> target(x.size(), 0.0);
  for (const uint32_t f : rest) {
    x[f] = midpoint(lo[f], hi[f]);
  }
  uint32_t at = kLimitedByOffered;
  double alpha = 0.5, last = kInf;
  while (out.sweeps < kMaxSweeps) {
    ++out.sweeps;
    rhs.changed_all(x);
    double residual = 0.0;
    for (const uint32_t f : rest) {
      target[f] = std::clamp(rhs(f, x, at), lo[f], hi[f]);  // x as the sweep began
      residual =
          std::max(residual, relative_gap(std::min(x[f], target[f]), std::max(x[f], target[f])));
    }
    if (residual <= kSettled) {
      for (const uint32_t f : rest) x[f] = target[f];
      return true;
    }
    alpha = residual < last ? std::min(0.5, alpha * 1.2) : alpha * 0.5;
    last = residual;
    for (const uint32_t f : rest) x[f] += alpha * (target[f] - x[f]);
  }
  return false;
}

// Inside stalled bounds there may be more than one fixed point (T is antitone, not a
// contraction), and then the expectation is not defined. The flow-by-flow phase runs from the
// bounds' midpoint and, when it settles, again from the lower bounds: two fixed points more
// than kUnique apart prove there are several (the result is flagged not settled, with a note
// naming the flow on which they differ most); the same one twice is taken as the expectation
// (the midpoint's). A flow-by-flow phase that does not settle leaves it to the all-at-once
// phase (from the midpoint), as does one that only reached rounding's floor from the midpoint.
bool settle_inside(std::span<const uint32_t> rest, std::span<const double> lo,
                   std::span<const double> hi, RightHandSide& rhs, Dirty& dirty,
                   FabricExpectation& out) {
  std::vector<double>& x = out.flow_bps;
  const SeidelEnd from_middle = seidel_inside(rest, lo, hi, rhs, dirty, out);
  if (from_middle == SeidelEnd::not_settled) return jacobi_inside(rest, lo, hi, rhs, out);
  const std::vector<double> middle = x;
  for (const uint32_t f : rest) x[f] = lo[f];
  const SeidelEnd from_low = seidel_inside(rest, lo, hi, rhs, dirty, out);
  if (from_low != SeidelEnd::not_settled) {
    double widest = 0.0;
    uint32_t widest_flow = rest.front();
    for (const uint32_t f : rest) {
      const double apart = relative_gap(std::min(x[f], middle[f]), std::max(x[f], middle[f]));
      if (apart > widest) {
        widest = apart;
        widest_flow = f;
      }
    }
    if (widest > kUnique) {
      out.notes.push_back(fmt::format(
          "the coupled bottlenecks of {} flows have more than one fixed point (bounds {:.2g} "
          "apart, relative): two differ by up to {:.2g} % (flow {}: {:.6g} or {:.6g} bit/s), "
          "so the expectation is not defined; their rates are lower bounds",
          rest.size(), out.bracket_gap, 100.0 * widest, widest_flow, middle[widest_flow],
          x[widest_flow]));
      out.fixed_points = {middle, x};
      return false;
    }
  }
  x = middle;
  if (from_middle == SeidelEnd::settled) return true;
  // Only at rounding's floor: the all-at-once phase (as before the floor was known), and
  // the floor's result when that does not settle.
  if (jacobi_inside(rest, lo, hi, rhs, out)) return true;
  x = middle;
  out.rounding_floor = residual(rest, lo, hi, rhs, x);
  return true;
}

// Step (2). The right-hand side T is antitone: a flow's greedy share can only fall when the
// others ask more. So from bounds lo <= x* <= hi of every fixed point x*, T(hi) <= x* <= T(lo):
// raising lo to T(hi) and lowering hi to T(lo) keeps every fixed point inside, and both move
// monotonically. Gauss-Seidel (the newest bounds of the other flows) is as valid and faster.
// When the gap closes, the fixed point is unique and found. When it stalls open (lo and hi a
// 2-cycle of T), a damped iteration inside [lo, hi] looks for a fixed point there; if none
// settles, the result is the lower bounds, flagged not settled.
void solve_coupled(const Views& v, uint32_t slots, std::span<const FabricFlow> flows,
                   const Arbiter& arbiter, const std::vector<char>& idle,
                   const std::vector<bool>& frozen, const std::vector<double>& lower,
                   FabricExpectation& out) {
  const auto n = static_cast<uint32_t>(flows.size());
  std::vector<double>& x = out.flow_bps;
  std::vector<uint32_t> rest;
  for (uint32_t f = 0; f < n; ++f) {
    if (!frozen[f]) rest.push_back(f);
  }
  out.coupled_flows = static_cast<uint32_t>(rest.size());
  RightHandSide rhs(v, flows, arbiter, idle, slots);
  std::vector<double> lo = x, hi = x;  // frozen (and inactive) flows: their exact rate
  for (const uint32_t f : rest) {
    lo[f] = lower[f];
    hi[f] = flows[f].offered_bps;
  }
  // A flow's bounds depend only on the flows it shares a channel with: recompute those whose
  // neighbours' bounds moved since.
  Dirty dirty(v, n);
  for (const uint32_t f : rest) dirty.mark(f);
  uint32_t at = kLimitedByOffered;
  double gap = kInf, best_gap = kInf;
  uint32_t stalled = 0;
  while (out.sweeps < kMaxSweeps) {
    ++out.sweeps;
    bool moved = false;
    for (const uint32_t f : rest) {
      if (!dirty.take(f)) continue;
      const double new_hi = rhs(f, lo, at);
      const double new_lo = std::min(rhs(f, hi, at), std::min(hi[f], new_hi));
      bool changed = false;
      if (new_hi < hi[f]) {
        changed = changed || relative_gap(new_hi, hi[f]) > kMoved;
        hi[f] = new_hi;
      }
      if (new_lo > lo[f]) {
        changed = changed || relative_gap(lo[f], new_lo) > kMoved;
        lo[f] = new_lo;
      }
      lo[f] = std::min(lo[f], hi[f]);  // rounding must not cross them
      rhs.changed(lo, f);
      rhs.changed(hi, f);
      if (changed) {
        moved = true;
        dirty.moved(f);
      }
    }
    gap = 0.0;
    for (const uint32_t f : rest) gap = std::max(gap, relative_gap(lo[f], hi[f]));
    if (gap <= kSettled || !moved) break;
    // The gap shrinks geometrically while the bounds converge; a sweep that gains less than
    // kStallGain on the best gap so far, kStallSweeps times in a row, is a 2-cycle.
    if (gap < best_gap * (1.0 - kStallGain)) {
      best_gap = gap;
      stalled = 0;
    } else if (++stalled >= kStallSweeps) {
      break;
    }
  }
  out.bracket_sweeps = out.sweeps;
  out.bracket_gap = gap;
  if (gap <= kSettled) {
    for (const uint32_t f : rest) x[f] = lo[f];
  } else {
    for (const uint32_t f : rest) x[f] = midpoint(lo[f], hi[f]);
    out.settled = settle_inside(rest, lo, hi, rhs, dirty, out);
    if (!out.settled && out.fixed_points.empty()) {  // (two fixed points: noted already)
      out.notes.push_back(fmt::format(
          "the coupled bottlenecks of {} flows did not settle within {} sweeps (bounds {:.2g} "
          "apart, relative): their rates are lower bounds",
          rest.size(), kMaxSweeps, gap));
      for (const uint32_t f : rest) x[f] = lo[f];
    }
  }
  rhs.changed_all(x);
  for (const uint32_t f : rest) rhs(f, x, out.bottleneck[f]);
}

// The channels' expected loads, and the promise that none is over its rate: a channel above it
// (relative kOverload; only a solver fault could do that) flags the result not settled, and its
// flows are scaled down to fit (scaling only lowers the other channels' loads).
void check_channels(const Topology& topology, std::span<const Route> routes,
                    const std::vector<bool>& active, FabricExpectation& out) {
  std::vector<double>& x = out.flow_bps;
  std::vector<std::vector<uint32_t>> crossing(topology.channel_count());
  for (uint32_t f = 0; f < x.size(); ++f) {
    if (!active[f]) continue;
    for (const uint32_t ch : routes[f].channels) crossing[ch].push_back(f);
  }
  for (uint32_t ch = 0; ch < crossing.size(); ++ch) {
    double sum = 0.0;
    for (const uint32_t f : crossing[ch]) sum += x[f];
    const double rate = topology.channel(ch).rate_bps;
    if (sum > rate * (1 + kOverload)) {
      out.settled = false;
      out.notes.push_back(fmt::format(
          "channel {} was expected to carry {:.6g} bit/s over its {:.6g} bit/s: its {} flows are "
          "scaled down to fit",
          ch, sum, rate, crossing[ch].size()));
      for (const uint32_t f : crossing[ch]) x[f] *= rate / sum;
    }
  }
  for (uint32_t ch = 0; ch < crossing.size(); ++ch) {
    out.channel_bps[ch] = 0.0;
    for (const uint32_t f : crossing[ch]) out.channel_bps[ch] += x[f];
  }
}

}  // namespace

// Long on purpose: one solver whose two phases (bottleneck by bottleneck, then the coupled
// sweeps) share a dozen per-flow and per-channel arrays; split, every step would take them all.
// A solver object is the way to split it, once issue 29 part 3 (per-port QoS) has landed here.
Result<FabricExpectation> expected_fabric_rates(const Topology& topology,
                                                std::span<const FabricFlow> flows,
                                                std::span<const Route> routes,
                                                const PortPolicy& policy) {
  const auto n = static_cast<uint32_t>(flows.size());
  if (routes.size() != n) {
    return make_error(Errc::invalid_config,
                      fmt::format("{} flows but {} routes", n, routes.size()));
  }
  if (!policy.channel_qos.empty() && policy.channel_qos.size() != topology.channel_count()) {
    return make_error(Errc::invalid_config,
                      fmt::format("{} channels but QoS for {}", topology.channel_count(),
                                  policy.channel_qos.size()));
  }
  FabricExpectation out;
  out.flow_bps.assign(n, 0.0);
  out.bottleneck.assign(n, kLimitedByOffered);
  out.channel_bps.assign(topology.channel_count(), 0.0);

  const std::vector<bool> active = active_flows(topology, flows, routes, policy);
  auto built = build_views(topology, flows, routes, policy, active);
  if (!built) return built.error();
  Views& v = *built;
  const Arbiter arbiter(flows, policy, v.views, v.max_hops);
  // Per flow: what a channel's arbitration is asked for, and what it gives.
  std::vector<double> ask(n, 0.0), got(n, 0.0);

  std::vector<double>& x = out.flow_bps;
  std::vector<bool> frozen(n, true);
  std::vector<double> upper(n, 0.0), lower(n, 0.0);
  uint32_t unfrozen_count = 0;
  for (uint32_t f = 0; f < n; ++f) {
    if (!active[f]) continue;
    frozen[f] = false;
    upper[f] = flows[f].offered_bps;
    ++unfrozen_count;
  }
  for (auto& view : v.views) {
    view.unfrozen = 0;
    for (const uint32_t f : view.flows) view.unfrozen += frozen[f] ? 0 : 1;
  }
  auto freeze = [&](uint32_t f, double rate, uint32_t bottleneck) {
    frozen[f] = true;
    x[f] = rate;
    out.bottleneck[f] = bottleneck;
    --unfrozen_count;
    for (const auto& [vi, m] : v.hops[f]) --v.views[vi].unfrozen;
  };

  // A channel that what can reach it never overloads holds no queue and arbitrates nothing:
  // its unfixed flows, grouped by the channel they entered the fabric on (their NIC) or by the
  // channel they arrive from, cannot bring more than those channels' rates left (or than they
  // offer). Once idle, a channel stays idle as flows are fixed (both sides fall by at least the
  // fixed rate). Where the same flows fill two channels, this leaves the split to the upstream
  // one, whose arrivals the downstream one carries as they come.
  std::vector<char> idle(v.views.size(), 0);
  std::vector<double> residual(v.views.size(), 0.0), cover(v.views.size(), 0.0);
  auto find_idle = [&] {
    for (uint32_t vi = 0; vi < v.views.size(); ++vi) {
      const ChannelView& view = v.views[vi];
      residual[vi] = view.capacity_bps;
      for (const uint32_t f : view.flows) {
        if (frozen[f]) residual[vi] -= x[f];
      }
    }
    for (uint32_t vi = 0; vi < v.views.size(); ++vi) {
      const ChannelView& view = v.views[vi];
      if (idle[vi] != 0 || view.unfrozen == 0 || view.at_nic) continue;
      for (const bool by_nic : {true, false}) {
        double arriving = 0.0;
        for (size_t m = 0; m < view.flows.size(); ++m) {
          const uint32_t f = view.flows[m];
          if (frozen[f]) continue;
          const uint32_t from = by_nic ? v.hops[f].front().first : view.up_view[m];
          cover[from] += upper[f];
        }
        for (size_t m = 0; m < view.flows.size(); ++m) {
          const uint32_t f = view.flows[m];
          if (frozen[f]) continue;
          const uint32_t from = by_nic ? v.hops[f].front().first : view.up_view[m];
          if (cover[from] < 0.0) continue;  // counted
          arriving += std::min(std::max(residual[from], 0.0), cover[from]);
          cover[from] = -1.0;
        }
        for (size_t m = 0; m < view.flows.size(); ++m) {
          const uint32_t f = view.flows[m];
          cover[by_nic ? v.hops[f].front().first : view.up_view[m]] = 0.0;
        }
        if (arriving <= residual[vi] * (1 + kSame)) idle[vi] = 1;
      }
    }
  };

  // (1) Bottleneck by bottleneck.
  std::vector<std::vector<double>> alloc(v.views.size());
  std::vector<uint32_t> to_freeze;
  std::vector<uint32_t> freeze_at;
  while (unfrozen_count > 0) {
    ++out.freeze_rounds;
    find_idle();
    std::fill(lower.begin(), lower.end(), 0.0);
    for (uint32_t f = 0; f < n; ++f) lower[f] = frozen[f] ? x[f] : upper[f];
    for (uint32_t vi = 0; vi < v.views.size(); ++vi) {
      ChannelView& view = v.views[vi];
      if (view.unfrozen == 0 || idle[vi] != 0) continue;
      for (const uint32_t f : view.flows) ask[f] = frozen[f] ? x[f] : upper[f];
      arbiter.allocate(view, view.all, view.capacity_bps, ask, got);
      alloc[vi].resize(view.flows.size());
      for (size_t m = 0; m < view.flows.size(); ++m) alloc[vi][m] = got[view.flows[m]];
      view.sum_bps = 0.0;
      for (size_t m = 0; m < view.flows.size(); ++m) {
        view.sum_bps += alloc[vi][m];
        const uint32_t f = view.flows[m];
        if (!frozen[f]) lower[f] = std::min(lower[f], alloc[vi][m]);
      }
    }
    to_freeze.clear();
    freeze_at.clear();
    std::vector<bool> marked(n, false);
    for (uint32_t f = 0; f < n; ++f) {
      if (!frozen[f] && (lower[f] >= upper[f] || same(lower[f], upper[f]))) {
        to_freeze.push_back(f);
        freeze_at.push_back(kLimitedByOffered);
        marked[f] = true;
      }
    }
    for (uint32_t vi = 0; vi < v.views.size(); ++vi) {
      const ChannelView& view = v.views[vi];
      if (view.unfrozen == 0 || idle[vi] != 0) continue;
      if (!(view.sum_bps >= view.capacity_bps || same(view.sum_bps, view.capacity_bps))) continue;
      bool tight = true;
      for (size_t m = 0; m < view.flows.size() && tight; ++m) {
        const uint32_t f = view.flows[m];
        if (!frozen[f] && !same(alloc[vi][m], lower[f])) tight = false;
      }
      if (!tight) continue;
      for (const uint32_t f : view.flows) {
        if (!frozen[f] && !marked[f]) {
          to_freeze.push_back(f);
          freeze_at.push_back(view.channel);
          marked[f] = true;
        }
      }
    }
    if (to_freeze.empty()) break;
    for (size_t i = 0; i < to_freeze.size(); ++i) {
      freeze(to_freeze[i], lower[to_freeze[i]], freeze_at[i]);
    }
  }

  // (2) The coupled remainder: two-sided bounds, then (if they stall apart) a damped iteration
  // inside them.
  if (unfrozen_count > 0) {
    solve_coupled(v, index_views(v, arbiter, policy.fairness), flows, arbiter, idle, frozen, lower,
                  out);
  }
  check_channels(topology, routes, active, out);
  return out;
}

double greedy_share(const Topology& topology, std::span<const FabricFlow> flows,
                    std::span<const Route> routes, const PortPolicy& policy, uint32_t channel,
                    uint32_t flow, std::span<const double> rates) {
  if (!policy.channel_qos.empty() && policy.channel_qos.size() != topology.channel_count()) {
    return 0.0;
  }
  const std::vector<bool> active = active_flows(topology, flows, routes, policy);
  auto built = build_views(topology, flows, routes, policy, active);
  if (!built || built->view_of_channel[channel] < 0) return 0.0;
  const ChannelView& view = built->views[static_cast<size_t>(built->view_of_channel[channel])];
  bool crosses = false;
  std::vector<double> ask(flows.size(), 0.0), got(flows.size(), 0.0);
  for (const uint32_t f : view.flows) {
    ask[f] = rates[f];
    crosses = crosses || f == flow;
  }
  if (!crosses) return 0.0;
  ask[flow] = kInf;
  const Arbiter arbiter(flows, policy, built->views, built->max_hops);
  arbiter.allocate(view, view.all, view.capacity_bps, ask, got);
  return got[flow];
}

}  // namespace qb::fabric
