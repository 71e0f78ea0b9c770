// The oracle: hierarchical weighted max-min (water-filling) with caps over offered loads.
#include "qb/policies/oracle.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "water_fill.hpp"

namespace qb::policy {

namespace {

double cap_of(const SchedTree::Element& element) {
  return element.max_avg_bw_bps > 0.0 ? element.max_avg_bw_bps : kUnlimited;
}

double weight_of(const SchedTree::Element& element) {
  return static_cast<double>(element.weight != 0 ? element.weight : SchedTree::kDefaultWeight);
}

/// NaN and negative offered loads count as 0.
double sanitize(double offered_bps) {
  return offered_bps > 0.0 ? offered_bps : 0.0;
}

}  // namespace

OracleResult expected_rates(const SchedTree& tree, std::span<const FlowDemand> flows,
                            double capacity_bps) {
  const size_t element_count = tree.elements.size();
  OracleResult result;
  result.flow_bps.assign(flows.size(), 0.0);
  result.element_bps.assign(element_count, 0.0);
  result.element_demand_bps.assign(element_count, 0.0);
  if (element_count == 0) return result;

  // Flows per leaf (CSR). Flows naming a non-leaf or an out-of-range element get nothing.
  std::vector<uint32_t> first_flow(element_count + 1, 0);
  for (const auto& flow : flows) {
    if (flow.leaf < element_count && tree.elements[flow.leaf].is_leaf) ++first_flow[flow.leaf + 1];
  }
  std::partial_sum(first_flow.begin(), first_flow.end(), first_flow.begin());
  std::vector<uint32_t> leaf_flows(first_flow[element_count]);
  {
    std::vector<uint32_t> fill(first_flow.begin(),
                               first_flow.begin() + static_cast<std::ptrdiff_t>(element_count));
    for (uint32_t f = 0; f < flows.size(); ++f) {
      const uint32_t leaf = flows[f].leaf;
      if (leaf < element_count && tree.elements[leaf].is_leaf) leaf_flows[fill[leaf]++] = f;
    }
  }

  // Breadth-first from the root (parents before children); elements off the root get nothing.
  // `seen` keeps a malformed hand-built tree (a child listed twice, a loop) from looping.
  std::vector<uint32_t> order;
  order.reserve(element_count);
  std::vector<uint8_t> seen(element_count, 0);
  order.push_back(tree.root());
  seen[tree.root()] = 1;
  for (size_t k = 0; k < order.size(); ++k) {
    const auto& element = tree.elements[order[k]];
    if (element.is_leaf) continue;
    for (const uint32_t child : element.children) {
      if (child < element_count && seen[child] == 0) {
        seen[child] = 1;
        order.push_back(child);
      }
    }
  }

  // Bottom-up demand: min(cap, sum of what is below).
  auto& demand = result.element_demand_bps;
  for (size_t k = order.size(); k-- > 0;) {
    const uint32_t e = order[k];
    const auto& element = tree.elements[e];
    double sum = 0.0;
    if (element.is_leaf) {
      for (uint32_t j = first_flow[e]; j < first_flow[e + 1]; ++j) {
        sum += sanitize(flows[leaf_flows[j]].offered_bps);
      }
    } else {
      for (const uint32_t child : element.children) sum += demand[child];
    }
    demand[e] = std::min(cap_of(element), sum);
  }

  // Top-down: each element divides what it got among its children (or flows).
  std::vector<double> granted(element_count, 0.0);
  const double capacity = capacity_bps > 0.0 ? capacity_bps : 0.0;  // NaN -> 0
  granted[tree.root()] = std::min(capacity, demand[tree.root()]);
  std::vector<WaterClaim> claims;
  for (const uint32_t e : order) {
    const auto& element = tree.elements[e];
    claims.clear();
    if (element.is_leaf) {
      for (uint32_t j = first_flow[e]; j < first_flow[e + 1]; ++j) {
        const uint32_t f = leaf_flows[j];
        claims.push_back(WaterClaim{f, 1.0, sanitize(flows[f].offered_bps)});
      }
      water_fill(claims, granted[e], result.flow_bps);
    } else {
      for (const uint32_t child : element.children) {
        claims.push_back(WaterClaim{child, weight_of(tree.elements[child]), demand[child]});
      }
      water_fill(claims, granted[e], granted);
    }
  }

  // element_bps: the sum of the flows below each element (bottom-up).
  for (uint32_t e = 0; e < element_count; ++e) {
    if (!tree.elements[e].is_leaf) continue;
    for (uint32_t j = first_flow[e]; j < first_flow[e + 1]; ++j) {
      result.element_bps[e] += result.flow_bps[leaf_flows[j]];
    }
  }
  for (size_t k = order.size(); k-- > 0;) {
    const auto& element = tree.elements[order[k]];
    if (element.is_leaf) continue;
    double sum = 0.0;
    for (const uint32_t child : element.children) sum += result.element_bps[child];
    result.element_bps[order[k]] = sum;
  }
  return result;
}

}  // namespace qb::policy
