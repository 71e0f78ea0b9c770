// The oracle: the rate every flow *should* get from the scheduling tree.
//
// Work-conserving hierarchical weighted max-min ("water-filling") with caps: a parent's
// bandwidth is divided among its children by weight; a child that needs less than its share
// (its own demand, or its cap) keeps only what it needs and the rest is redistributed by weight
// among the others, recursively. QPs on one leaf share it equally (model choice: round robin).
// All figures are wire bit/s (see wire.hpp).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "qb/policies/sched_tree.hpp"

namespace qb::policy {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct FlowDemand {
  uint32_t leaf = 0;                // element index in the SchedTree
  double offered_bps = kUnlimited;  // wire bit/s the flow would send alone; +inf = saturating
};

struct OracleResult {
  std::vector<double> flow_bps;            // per FlowDemand, in order
  std::vector<double> element_bps;         // per SchedTree element: sum of its subtree's flows
  std::vector<double> element_demand_bps;  // per element: min(cap, sum of children demand)
};

/// `tree` is a well-formed tree (as compile_sched_tree() makes it); capacity_bps is what the port
/// arbitrates (the line rate in wire bit/s; +inf allowed). Demand bottom-up: a leaf's is
/// min(cap, sum of its flows' offered), a node's min(cap, sum of its children's). Top-down: the
/// root gets min(capacity, its demand); every node water-fills what it got among its children by
/// weight (bw_share, 0 counting as kDefaultWeight); a leaf water-fills among its flows with equal
/// weights. So the total is min(capacity, root demand) (work-conserving up to the caps) and
/// nobody gets more than its demand. Exact with saturating (+inf) flows; never NaN.
/// A flow whose `leaf` is not a leaf of the tree, and an offered load that is NaN or <= 0, get 0.
OracleResult expected_rates(const SchedTree& tree, std::span<const FlowDemand> flows,
                            double capacity_bps);

}  // namespace qb::policy
