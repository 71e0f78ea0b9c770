// Weighted max-min fair division ("water-filling"), the one rule both oracles use wherever a
// parent's bandwidth is divided among contenders: a tree node among its children and flows,
// an ETS group among its TCs, a VLArb table among its VLs, a switch class among its hosts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace qb::policy {

/// One contender for an amount of bandwidth.
struct WaterClaim {
  uint32_t id;         // where the share goes (out[id]); also breaks ties between equal levels
  double weight;       // <= 0 (or NaN): takes no part, gets 0
  double demand;       // <= 0 (or NaN): gets 0; may be +inf
  double level = 0.0;  // demand / weight, set by water_fill (the sort key, computed once)
};

/// Divides `amount` (bit/s; may be +inf; not > 0 gives everyone 0) among `claims` by weighted
/// max-min: claims are satisfied in increasing order of demand / weight while their weighted
/// share of what is left covers their demand; the rest split what is left by weight. Writes
/// every claim's share into out[claim.id]. Reorders `claims`.
void water_fill(std::span<WaterClaim> claims, double amount, std::span<double> out);

/// The same with claim i = (weights[i], demands[i]); returns the shares by index.
std::vector<double> water_fill(std::span<const double> weights, std::span<const double> demands,
                               double amount);

}  // namespace qb::policy
