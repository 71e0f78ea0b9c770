// Weighted max-min fair division; see water_fill.hpp.
#include "water_fill.hpp"

#include <algorithm>
#include <cmath>

namespace qb::policy {

void water_fill(std::span<WaterClaim> claims, double amount, std::span<double> out) {
  // Claims that take no part get 0 and leave the others' weight sum alone; the rest keep their
  // order at the front.
  size_t n = 0;
  for (const WaterClaim& claim : claims) {
    if (claim.weight > 0.0 && claim.demand > 0.0) {
      claims[n] = claim;
      claims[n++].level = claim.demand / claim.weight;
    } else {
      out[claim.id] = 0.0;
    }
  }
  const std::span<WaterClaim> live = claims.first(n);
  if (!(amount > 0.0)) {
    for (const WaterClaim& claim : live) out[claim.id] = 0.0;
    return;
  }
  if (std::isinf(amount)) {
    // Unlimited supply: everyone gets what it asks (avoids inf - inf).
    for (const WaterClaim& claim : live) out[claim.id] = claim.demand;
    return;
  }
  // The claim with the smallest demand per weight is the first to be satisfied.
  std::sort(live.begin(), live.end(), [](const WaterClaim& a, const WaterClaim& b) {
    return a.level < b.level || (a.level == b.level && a.id < b.id);
  });
  double remaining = amount;
  double weight_left = 0.0;
  for (const WaterClaim& claim : live) weight_left += claim.weight;
  size_t i = 0;
  for (; i < live.size(); ++i) {
    const WaterClaim& claim = live[i];
    if (claim.demand > remaining * (claim.weight / weight_left)) break;  // limited by its share
    out[claim.id] = claim.demand;
    remaining = std::max(0.0, remaining - claim.demand);
    weight_left -= claim.weight;
  }
  // Everyone left wants more than its weighted share of what is left: split it by weight.
  for (; i < live.size(); ++i) out[live[i].id] = remaining * (live[i].weight / weight_left);
}

std::vector<double> water_fill(std::span<const double> weights, std::span<const double> demands,
                               double amount) {
  std::vector<WaterClaim> claims(weights.size());
  for (size_t i = 0; i < claims.size(); ++i) {
    claims[i] = WaterClaim{static_cast<uint32_t>(i), weights[i], demands[i]};
  }
  std::vector<double> out(weights.size(), 0.0);
  water_fill(claims, amount, out);
  return out;
}

}  // namespace qb::policy
