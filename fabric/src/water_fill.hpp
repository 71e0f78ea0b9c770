// Max-min division of an amount among claims with equal weights, the rule every level of a
// channel's arbitration uses inside a class (flows, ingress ports). Private to the fabric layer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace qb::fabric::detail {

/// out[i] = min(demand[i], level) with the level that gives away min(amount, sum of demands).
/// Demands may be +inf; amount finite and >= 0. `order` is scratch.
inline void water_fill_equal(std::span<const double> demand, double amount, std::span<double> out,
                             std::vector<uint32_t>& order) {
  const size_t n = demand.size();
  order.resize(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return demand[a] < demand[b]; });
  double left = amount > 0.0 ? amount : 0.0;
  size_t k = 0;
  for (; k < n; ++k) {
    const double d = demand[order[k]] > 0.0 ? demand[order[k]] : 0.0;
    const double share = left / static_cast<double>(n - k);
    if (d > share) break;
    out[order[k]] = d;
    left -= d;
    if (left < 0.0) left = 0.0;
  }
  if (k < n) {
    const double share = left / static_cast<double>(n - k);
    for (; k < n; ++k) out[order[k]] = share;
  }
}

/// What water_fill_equal gives a claim of +inf among `n` claims whose others ask `others` (n - 1
/// of them; reordered here): the same arithmetic (the others ascending, then the level), without
/// sorting indices or writing the others' shares.
inline double water_fill_equal_greedy(std::span<double> others, size_t n, double amount) {
  for (double& d : others) d = d > 0.0 ? d : 0.0;  // as water_fill_equal reads them
  std::sort(others.begin(), others.end());
  double left = amount > 0.0 ? amount : 0.0;
  size_t k = 0;
  for (const double d : others) {
    if (d > left / static_cast<double>(n - k)) break;
    left -= d;
    if (left < 0.0) left = 0.0;
    ++k;
  }
  return left / static_cast<double>(n - k);
}

}  // namespace qb::fabric::detail
