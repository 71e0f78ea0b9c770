#include "qb/fabric/expectation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "qb/policies/class_oracle.hpp"
#include "qb/policies/oracle.hpp"
#include "water_fill.hpp"

namespace qb::fabric {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Two shares computed along different paths of the same arithmetic agree to this (relative).
constexpr double kSame = 1e-12;
// Step (2) stops when no rate moves by more than this (relative) in a sweep.
constexpr double kSettled = 1e-13;

bool same(double a, double b) { return std::fabs(a - b) <= kSame * std::max(std::fabs(a), std::fabs(b)); }

// One channel as its arbitration sees it: its flows (members), their classes and ingress ports.
struct ChannelView {
  uint32_t channel = 0;
  double capacity_bps = 0.0;
  bool at_nic = false;  // leaves a host: the NIC port (tree inside each class)
  std::vector<uint32_t> flows;
  std::vector<uint8_t> cls;
  std::vector<uint32_t> group;  // per member: its ingress port, dense 0..groups-1
  uint32_t groups = 0;
  uint32_t unfrozen = 0;  // step (1) bookkeeping
  double sum_bps = 0.0;
};

class Arbiter {
 public:
  Arbiter(std::span<const FabricFlow> flows, const PortPolicy& policy)
      : flows_(flows), policy_(policy) {}

  // out[m]: what member m gets when members ask for demand[m].
  void allocate(const ChannelView& view, std::span<const double> demand, std::span<double> out) {
    const policy::PortQos& qos = view.at_nic ? policy_.nic_qos : policy_.switch_qos;
    const uint32_t classes = policy::oracle_class_count(qos);
    class_demand_.assign(classes, policy::ClassDemand{});
    inverse_bytes_.assign(classes, 0.0);
    members_.assign(classes, 0);
    const size_t n = view.flows.size();
    for (size_t m = 0; m < n; ++m) {
      const uint32_t c = view.cls[m];
      class_demand_[c].demand_bps += demand[m] > 0.0 ? demand[m] : 0.0;
      inverse_bytes_[c] += 1.0 / flows_[view.flows[m]].packet_wire_bytes;
      ++members_[c];
    }
    // A class's packet size: its flows' bytes over their packets, the flows at equal rates.
    for (uint32_t c = 0; c < classes; ++c) {
      if (members_[c] > 0) {
        class_demand_[c].mean_packet_wire_bytes = static_cast<double>(members_[c]) /
                                                  inverse_bytes_[c];
      }
    }
    const std::vector<double> share =
        policy::arbitrate_classes(qos, class_demand_, view.capacity_bps, nullptr);
    for (uint32_t c = 0; c < classes; ++c) {
      if (members_[c] == 0) continue;
      idx_.clear();
      for (uint32_t m = 0; m < n; ++m) {
        if (view.cls[m] == c) idx_.push_back(m);
      }
      divide_class(view, c, share[c], demand, out);
    }
  }

 private:
  void divide_class(const ChannelView& view, uint32_t /*c*/, double amount,
                    std::span<const double> demand, std::span<double> out) {
    const size_t k = idx_.size();
    sub_demand_.resize(k);
    sub_out_.resize(k);
    if (view.at_nic && policy_.tree != nullptr) {
      tree_flows_.resize(k);
      for (size_t i = 0; i < k; ++i) {
        tree_flows_[i] = policy::FlowDemand{flows_[view.flows[idx_[i]]].leaf, demand[idx_[i]]};
      }
      const policy::OracleResult r = policy::expected_rates(*policy_.tree, tree_flows_, amount);
      for (size_t i = 0; i < k; ++i) out[idx_[i]] = r.flow_bps[i];
      return;
    }
    if (view.at_nic || policy_.fairness == Fairness::per_flow) {
      for (size_t i = 0; i < k; ++i) sub_demand_[i] = demand[idx_[i]];
      detail::water_fill_equal(sub_demand_, amount, sub_out_, order_);
      for (size_t i = 0; i < k; ++i) out[idx_[i]] = sub_out_[i];
      return;
    }
    // Round robin over the ingress ports with a packet of this class, then among each port's
    // flows equally.
    group_demand_.assign(view.groups, 0.0);
    group_used_.assign(view.groups, 0);
    for (size_t i = 0; i < k; ++i) {
      const uint32_t g = view.group[idx_[i]];
      group_demand_[g] += demand[idx_[i]] > 0.0 ? demand[idx_[i]] : 0.0;
      group_used_[g] = 1;
    }
    gd_.clear();
    gid_.clear();
    for (uint32_t g = 0; g < view.groups; ++g) {
      if (group_used_[g] != 0) {
        gid_.push_back(g);
        gd_.push_back(group_demand_[g]);
      }
    }
    gout_.resize(gd_.size());
    detail::water_fill_equal(gd_, amount, gout_, order_);
    group_share_.assign(view.groups, 0.0);
    for (size_t j = 0; j < gid_.size(); ++j) group_share_[gid_[j]] = gout_[j];
    for (uint32_t g : gid_) {
      sel_.clear();
      sub_demand_.clear();
      for (size_t i = 0; i < k; ++i) {
        if (view.group[idx_[i]] == g) {
          sel_.push_back(idx_[i]);
          sub_demand_.push_back(demand[idx_[i]]);
        }
      }
      sub_out_.resize(sel_.size());
      detail::water_fill_equal(sub_demand_, group_share_[g], sub_out_, order_);
      for (size_t i = 0; i < sel_.size(); ++i) out[sel_[i]] = sub_out_[i];
    }
  }

  std::span<const FabricFlow> flows_;
  const PortPolicy& policy_;
  std::vector<policy::ClassDemand> class_demand_;
  std::vector<double> inverse_bytes_;
  std::vector<uint32_t> members_, idx_, order_, gid_, sel_, group_used_;
  std::vector<double> sub_demand_, sub_out_, group_demand_, gd_, gout_, group_share_;
  std::vector<policy::FlowDemand> tree_flows_;
};

struct Views {
  std::vector<ChannelView> views;
  std::vector<int32_t> view_of_channel;
  // Per flow, along its path: (view, member) pairs.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> hops;
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
        v.views.push_back(std::move(view));
        ingress_ids.emplace_back();
      }
      const auto vi = static_cast<uint32_t>(v.view_of_channel[ch]);
      ChannelView& view = v.views[vi];
      const policy::PortQos& qos = at_nic ? policy.nic_qos : policy.switch_qos;
      const uint32_t classes = policy::oracle_class_count(qos);
      const uint32_t cls = qos.kind == policy::PortQos::Kind::none
                               ? 0
                               : (at_nic ? flows[f].nic_class : flows[f].switch_class);
      if (cls >= classes) {
        return make_error(Errc::invalid_config,
                          fmt::format("flow #{}'s class {} is beyond the port's {} classes", f, cls,
                                      classes));
      }
      auto& ids = ingress_ids[vi];
      const uint32_t key = prev == kNoChannel ? UINT32_MAX : prev;
      auto it = std::find(ids.begin(), ids.end(), key);
      if (it == ids.end()) {
        ids.push_back(key);
        it = ids.end() - 1;
      }
      const auto member = static_cast<uint32_t>(view.flows.size());
      view.flows.push_back(f);
      view.cls.push_back(static_cast<uint8_t>(cls));
      view.group.push_back(static_cast<uint32_t>(it - ids.begin()));
      view.groups = static_cast<uint32_t>(ids.size());
      v.hops[f].emplace_back(vi, member);
      prev = ch;
    }
  }
  return v;
}

}  // namespace

Result<FabricExpectation> expected_fabric_rates(const Topology& topology,
                                                std::span<const FabricFlow> flows,
                                                std::span<const Route> routes,
                                                const PortPolicy& policy) {
  const auto n = static_cast<uint32_t>(flows.size());
  if (routes.size() != n) {
    return make_error(Errc::invalid_config,
                      fmt::format("{} flows but {} routes", n, routes.size()));
  }
  FabricExpectation out;
  out.flow_bps.assign(n, 0.0);
  out.bottleneck.assign(n, kLimitedByOffered);
  out.channel_bps.assign(topology.channel_count(), 0.0);

  std::vector<bool> active(n);
  for (uint32_t f = 0; f < n; ++f) {
    const double offered = flows[f].offered_bps;
    active[f] = !flows[f].dropped && offered > 0.0;  // NaN: not active
  }
  auto built = build_views(topology, flows, routes, policy, active);
  if (!built) return built.error();
  Views& v = *built;
  Arbiter arbiter(flows, policy);

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

  // (1) Bottleneck by bottleneck.
  std::vector<std::vector<double>> alloc(v.views.size());
  std::vector<double> demand;
  std::vector<uint32_t> to_freeze;
  std::vector<uint32_t> freeze_at;
  while (unfrozen_count > 0) {
    ++out.freeze_rounds;
    std::fill(lower.begin(), lower.end(), 0.0);
    for (uint32_t f = 0; f < n; ++f) lower[f] = frozen[f] ? x[f] : upper[f];
    for (uint32_t vi = 0; vi < v.views.size(); ++vi) {
      ChannelView& view = v.views[vi];
      if (view.unfrozen == 0) continue;
      demand.resize(view.flows.size());
      for (size_t m = 0; m < view.flows.size(); ++m) {
        const uint32_t f = view.flows[m];
        demand[m] = frozen[f] ? x[f] : upper[f];
      }
      alloc[vi].assign(view.flows.size(), 0.0);
      arbiter.allocate(view, demand, alloc[vi]);
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
      if (view.unfrozen == 0) continue;
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

  // (2) The coupled remainder, flow by flow from the lower bounds.
  auto greedy = [&](uint32_t vi, uint32_t m) {
    const ChannelView& view = v.views[vi];
    demand.resize(view.flows.size());
    for (size_t k = 0; k < view.flows.size(); ++k) demand[k] = x[view.flows[k]];
    demand[m] = kInf;
    std::vector<double>& a = alloc[vi];
    a.assign(view.flows.size(), 0.0);
    arbiter.allocate(view, demand, a);
    return a[m];
  };
  if (unfrozen_count > 0) {
    std::vector<uint32_t> rest;
    for (uint32_t f = 0; f < n; ++f) {
      if (!frozen[f]) {
        rest.push_back(f);
        x[f] = lower[f];
      }
    }
    out.coupled_flows = static_cast<uint32_t>(rest.size());
    double moved = kInf;
    while (moved > kSettled && out.sweeps < kMaxSweeps) {
      ++out.sweeps;
      moved = 0.0;
      for (const uint32_t f : rest) {
        double best = flows[f].offered_bps;
        uint32_t at = kLimitedByOffered;
        for (const auto& [vi, m] : v.hops[f]) {
          const double share = greedy(vi, m);
          if (share < best) {
            best = share;
            at = v.views[vi].channel;
          }
        }
        const double scale = std::max(std::fabs(best), std::fabs(x[f]));
        if (scale > 0.0) moved = std::max(moved, std::fabs(best - x[f]) / scale);
        x[f] = best;
        out.bottleneck[f] = at;
      }
    }
    if (moved > kSettled) {
      out.notes.push_back(fmt::format(
          "the coupled bottlenecks of {} flows did not settle within {} sweeps (last move {:.2g} "
          "relative)",
          rest.size(), kMaxSweeps, moved));
    }
  }
  for (uint32_t f = 0; f < n; ++f) {
    if (!active[f]) continue;
    for (const uint32_t ch : routes[f].channels) out.channel_bps[ch] += x[f];
  }
  return out;
}

double greedy_share(const Topology& topology, std::span<const FabricFlow> flows,
                    std::span<const Route> routes, const PortPolicy& policy, uint32_t channel,
                    uint32_t flow, std::span<const double> rates) {
  std::vector<bool> active(flows.size());
  for (size_t f = 0; f < flows.size(); ++f) {
    active[f] = !flows[f].dropped && flows[f].offered_bps > 0.0;
  }
  auto built = build_views(topology, flows, routes, policy, active);
  if (!built || built->view_of_channel[channel] < 0) return 0.0;
  const ChannelView& view = built->views[static_cast<size_t>(built->view_of_channel[channel])];
  std::vector<double> demand(view.flows.size()), a(view.flows.size(), 0.0);
  size_t me = view.flows.size();
  for (size_t m = 0; m < view.flows.size(); ++m) {
    demand[m] = rates[view.flows[m]];
    if (view.flows[m] == flow) me = m;
  }
  if (me == view.flows.size()) return 0.0;
  demand[me] = kInf;
  Arbiter arbiter(flows, policy);
  arbiter.allocate(view, demand, a);
  return a[me];
}

}  // namespace qb::fabric
