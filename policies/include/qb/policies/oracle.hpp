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
  uint32_t leaf = 0;                  // element index in the SchedTree
  double offered_bps = kUnlimited;    // wire bit/s the flow would send alone; +inf = saturating
};

struct OracleResult {
  std::vector<double> flow_bps;       // per FlowDemand, in order
  std::vector<double> element_bps;    // per SchedTree element: sum of its subtree's flows
  std::vector<double> element_demand_bps;  // per element: min(cap, sum of children demand)
};

OracleResult expected_rates(const SchedTree& tree, std::span<const FlowDemand> flows,
                            double capacity_bps);

}  // namespace qb::policy
