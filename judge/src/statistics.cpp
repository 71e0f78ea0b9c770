#include "qb/judge/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <numeric>

namespace qb::judge {
namespace {

// Positions 1..N of the pooled, sorted sample; a block of ties shares the mean of its
// positions. Doubled, so that every mid-rank is an integer and the exact test counts in
// integers: a block over positions i..j gets i + j.
std::vector<int64_t> doubled_mid_ranks(const std::vector<double>& pooled,
                                       std::vector<int64_t>* tie_sizes) {
  const size_t n = pooled.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return pooled[x] < pooled[y]; });
  std::vector<int64_t> ranks(n);
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && pooled[order[j + 1]] == pooled[order[i]]) ++j;
    const auto doubled = static_cast<int64_t>(i + 1 + j + 1);
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = doubled;
    if (tie_sizes != nullptr) tie_sizes->push_back(static_cast<int64_t>(j - i + 1));
    i = j + 1;
  }
  return ranks;
}

// The largest distance from the mean (doubled) any n of the pooled ranks can reach: the n
// smallest or the n largest.
int64_t extreme_distance(std::vector<int64_t> ranks, size_t n) {
  std::sort(ranks.begin(), ranks.end());
  const auto center = static_cast<int64_t>(n) * static_cast<int64_t>(ranks.size() + 1);
  const int64_t low =
      std::accumulate(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(n), int64_t{0});
  const int64_t high =
      std::accumulate(ranks.end() - static_cast<std::ptrdiff_t>(n), ranks.end(), int64_t{0});
  return std::max(center - low, high - center);
}

// Exact two-sided p: the share of all C(N, n) ways to pick n of the pooled mid-ranks whose
// sum is at least as far from its mean as the observed one. Counting subsets by (size, sum)
// is a knapsack over at most 20 items and sums up to N(N+1) doubled: a few thousand cells.
// `min_p` receives the p of the most extreme arrangement.
double exact_p_value(const std::vector<int64_t>& ranks, size_t n, int64_t observed, double& min_p) {
  const size_t total = ranks.size();
  const int64_t max_sum = std::accumulate(ranks.begin(), ranks.end(), int64_t{0});
  std::vector<std::vector<double>> ways(n + 1,
                                        std::vector<double>(static_cast<size_t>(max_sum) + 1));
  ways[0][0] = 1.0;
  for (size_t item = 0; item < total; ++item) {
    const auto rank = static_cast<size_t>(ranks[item]);
    for (size_t k = std::min(n, item + 1); k >= 1; --k) {
      for (size_t s = static_cast<size_t>(max_sum); s >= rank; --s)
        ways[k][s] += ways[k - 1][s - rank];
    }
  }
  // Mean of the doubled sum: n * (N + 1).
  const auto center = static_cast<int64_t>(n) * static_cast<int64_t>(total + 1);
  const int64_t distance = std::llabs(observed - center);
  const int64_t max_distance = extreme_distance(ranks, n);
  double extreme = 0.0, most_extreme = 0.0, all = 0.0;
  for (size_t s = 0; s < ways[n].size(); ++s) {
    all += ways[n][s];
    const int64_t d = std::llabs(static_cast<int64_t>(s) - center);
    if (d >= distance) extreme += ways[n][s];
    if (d >= max_distance) most_extreme += ways[n][s];
  }
  if (!(all > 0.0)) return 1.0;
  min_p = std::min(1.0, most_extreme / all);
  return std::min(1.0, extreme / all);
}

// Normal approximation with the tie-corrected variance and a continuity correction of 1/2.
double normal_p_value(double u, size_t n, size_t m, const std::vector<int64_t>& tie_sizes) {
  const double nn = static_cast<double>(n), mm = static_cast<double>(m), total = nn + mm;
  double ties = 0.0;
  for (int64_t t : tie_sizes) {
    const double td = static_cast<double>(t);
    ties += td * td * td - td;
  }
  const double variance = nn * mm / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
  if (!(variance > 0.0)) return 1.0;
  const double z = std::max(0.0, std::fabs(u - nn * mm / 2.0) - 0.5) / std::sqrt(variance);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace

double min_p_value(size_t n, size_t m) {
  if (n == 0 || m == 0) return 1.0;
  double combinations = 1.0;  // C(n + m, n)
  for (size_t i = 1; i <= n; ++i)
    combinations = combinations * static_cast<double>(m + i) / static_cast<double>(i);
  return std::min(1.0, 2.0 / combinations);
}

MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  MannWhitney result;
  const size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return result;
  std::vector<double> pooled(a.begin(), a.end());
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::vector<int64_t> tie_sizes;
  const std::vector<int64_t> ranks = doubled_mid_ranks(pooled, &tie_sizes);
  const int64_t doubled_sum_a =
      std::accumulate(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(n), int64_t{0});
  result.u = static_cast<double>(doubled_sum_a) / 2.0 - static_cast<double>(n * (n + 1)) / 2.0;
  if (tie_sizes.size() == 1) return result;  // every value equal: no evidence either way
  if (n <= kExactMaxSample && m <= kExactMaxSample) {
    result.exact = true;
    result.p_value = exact_p_value(ranks, n, doubled_sum_a, result.min_p_value);
  } else {
    result.p_value = normal_p_value(result.u, n, m, tie_sizes);
    // U of the most extreme arrangement: the doubled distance halved, around n*m/2.
    const double max_u_distance = static_cast<double>(extreme_distance(ranks, n)) / 2.0;
    result.min_p_value =
        normal_p_value(static_cast<double>(n * m) / 2.0 - max_u_distance, n, m, tie_sizes);
  }
  return result;
}

std::vector<double> benjamini_hochberg(std::span<const double> p_values) {
  std::vector<size_t> order(p_values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  // Step-up: q_(i) = min over j >= i of p_(j) * m / j.
  std::vector<double> adjusted(p_values.size(), 1.0);
  double running = 1.0;
  for (size_t i = order.size(); i-- > 0;) {
    const double scaled =
        p_values[order[i]] * static_cast<double>(order.size()) / static_cast<double>(i + 1);
    running = std::min(running, scaled);
    adjusted[order[i]] = std::min(1.0, running);
  }
  return adjusted;
}

bool separated_beyond_spread(std::span<const double> a, std::span<const double> b, double factor) {
  if (a.size() < 2 || b.size() < 2) return false;
  const auto range = [](std::span<const double> v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return *hi - *lo;
  };
  const auto average = [](std::span<const double> v) {
    double sum = 0.0;
    for (const double x : v) sum += x;
    return sum / static_cast<double>(v.size());
  };
  const double gap = std::fabs(average(b) - average(a));
  const double spread = std::max(range(a), range(b));
  return std::isfinite(gap) && gap > 0.0 && gap > factor * spread;
}

}  // namespace qb::judge
