// The statistics behind the baseline comparison: the two-sided Mann-Whitney U test over two
// samples of repetitions, the smallest p-value a sample size allows, and the Benjamini-Hochberg
// adjustment for testing many metrics at once. Pure functions over plain numbers.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace qb::judge {

/// The two-sided Mann-Whitney U test of samples a and b. `u` is the statistic of `a`
/// (its mid-rank sum minus n(n+1)/2). Exact (the permutation distribution of the observed
/// mid-ranks, ties included) when both samples have at most kExactMaxSample values, else the
/// normal approximation with tie correction and continuity correction. p = 1 when a sample is
/// empty or every value is equal (no evidence of a difference).
struct MannWhitney {
  double u = 0.0;
  double p_value = 1.0;
  double min_p_value = 1.0;  // of the most extreme arrangement of the same pooled values
  bool exact = false;
};
inline constexpr size_t kExactMaxSample = 10;
MannWhitney mann_whitney_u(std::span<const double> a, std::span<const double> b);

/// The smallest two-sided p-value the exact test can reach with samples of n and m values
/// (2 / C(n+m, n), 1 when a sample is empty): below alpha, nothing can be significant.
double min_p_value(size_t n, size_t m);

/// True when samples a and b, each of at least 2 values, are apart by more than `factor` times
/// the larger spread (max - min) of the two: |mean(b) - mean(a)| > factor * max(range). With 2
/// or 3 repetitions no rank test can be significant, yet a deterministic simulator's runs agree
/// to 0.001 %, and a 10 % change beside them is no noise. One value per side shows no spread.
inline constexpr double kSpreadSeparationFactor = 10.0;
bool separated_beyond_spread(std::span<const double> a, std::span<const double> b,
                             double factor = kSpreadSeparationFactor);

/// Benjamini-Hochberg step-up: each p-value adjusted so that rejecting the hypotheses whose
/// adjusted value is below alpha keeps the expected share of false discoveries at alpha.
/// Returned in the order given; ties keep their order; at most 1.
std::vector<double> benjamini_hochberg(std::span<const double> p_values);

}  // namespace qb::judge
