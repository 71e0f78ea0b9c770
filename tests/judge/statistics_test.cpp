// The statistics of the baseline comparison: the Mann-Whitney U test against hand-computed and
// tabulated values, and the Benjamini-Hochberg adjustment against a worked example.
#include "qb/judge/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace qb::judge {
namespace {

MannWhitney mw(const std::vector<double>& a, const std::vector<double>& b) {
  return mann_whitney_u(a, b);
}

TEST(MannWhitney, FullySeparatedFiveAndFiveIsTwoOver252) {
  // Every ordering of 10 distinct values into 5 + 5 is one of C(10,5) = 252; only the two
  // extreme ones are as far from the mean rank sum as this: p = 2/252 = 0.00794 (tables).
  const MannWhitney below = mw({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(below.exact);
  EXPECT_DOUBLE_EQ(below.u, 0.0);
  EXPECT_NEAR(below.p_value, 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(below.p_value, 0.00794, 5e-6);
  const MannWhitney above = mw({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(above.u, 25.0);
  EXPECT_NEAR(above.p_value, 2.0 / 252.0, 1e-12);
}

TEST(MannWhitney, TabulatedCriticalValuesForFiveAndFive) {
  // U = 2: P(U <= 2) = 4/252, two-sided 0.0317 (the 5 % critical value); U = 3: 0.0556.
  const MannWhitney u2 = mw({1, 2, 3, 4, 7}, {5, 6, 8, 9, 10});
  EXPECT_DOUBLE_EQ(u2.u, 2.0);
  EXPECT_NEAR(u2.p_value, 8.0 / 252.0, 1e-12);
  const MannWhitney u3 = mw({1, 2, 3, 5, 7}, {4, 6, 8, 9, 10});
  EXPECT_DOUBLE_EQ(u3.u, 3.0);
  EXPECT_NEAR(u3.p_value, 14.0 / 252.0, 1e-12);
}

TEST(MannWhitney, SmallSamplesCannotBeSignificant) {
  EXPECT_NEAR(mw({1, 2, 3}, {4, 5, 6}).p_value, 0.1, 1e-12);  // 2 / C(6,3)
  EXPECT_NEAR(mw({1}, {2}).p_value, 1.0, 1e-12);
  EXPECT_NEAR(mw({1, 3}, {2, 4}).p_value, 4.0 / 6.0, 1e-12);  // rank sum 4 of {3,4,5,5,6,7}
  EXPECT_NEAR(min_p_value(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(min_p_value(4, 4), 2.0 / 70.0, 1e-12);
  EXPECT_NEAR(min_p_value(5, 5), 2.0 / 252.0, 1e-12);
  EXPECT_EQ(min_p_value(0, 5), 1.0);
}

TEST(MannWhitney, TiesUseMidRanksAndTheirExactPermutationDistribution) {
  // Pooled 1 2 3 4 5 5 6 7 8 9: the fives share rank 5.5; a's rank sum 15.5 (U = 0.5) is
  // reached by 2 of the 252 subsets and mirrored (39.5) by 2 more: p = 4/252.
  const MannWhitney tied = mw({1, 2, 3, 4, 5}, {5, 6, 7, 8, 9});
  EXPECT_TRUE(tied.exact);
  EXPECT_DOUBLE_EQ(tied.u, 0.5);
  EXPECT_NEAR(tied.p_value, 4.0 / 252.0, 1e-12);
  // Ranks {1, 2.5, 2.5, 4}: sums 3.5 3.5 5 5 6.5 6.5 around 5; 3.5 is as extreme as 4 of 6.
  EXPECT_NEAR(mw({1, 2}, {2, 3}).p_value, 4.0 / 6.0, 1e-12);
  // Unequal sizes with ties, checked by brute-force enumeration of the C(11,5) = 462 subsets.
  const MannWhitney uneven = mw({3, 1, 4, 1, 5}, {9, 2, 6, 5, 3, 5});
  EXPECT_DOUBLE_EQ(uneven.u, 6.5);
  EXPECT_NEAR(uneven.p_value, 65.0 / 462.0, 1e-12);
}

TEST(MannWhitney, MinimumAttainablePValueDependsOnThePooledValues) {
  EXPECT_NEAR(mw({3, 1, 2, 5, 4}, {9, 8, 6, 7, 10}).min_p_value, 2.0 / 252.0, 1e-12);
  EXPECT_NEAR(mw({5, 4, 3, 2, 1}, {1, 2, 3, 4, 5}).p_value, 1.0, 1e-12);
  // Pairs of ties (the same five values on both sides): the most extreme split puts both
  // copies of the two smallest and one of the third on one side: 2 ways, mirrored: 4/252.
  EXPECT_NEAR(mw({5, 4, 3, 2, 1}, {1, 2, 3, 4, 5}).min_p_value, 4.0 / 252.0, 1e-12);
  EXPECT_DOUBLE_EQ(mw({7, 7, 7}, {7, 7, 7}).min_p_value, 1.0);
  // Nine equal values and one other: at best p = 2 * 5/10 = 1, no test at all.
  EXPECT_DOUBLE_EQ(mw({7, 7, 7, 7, 7}, {7, 7, 7, 7, 8}).min_p_value, 1.0);
  // Normal approximation: the extreme U = 0 of 12 + 12 distinct values.
  std::vector<double> a, b;
  for (int i = 0; i < 12; ++i) {
    a.push_back(12 + i);
    b.push_back(i);
  }
  EXPECT_NEAR(mw(a, b).min_p_value, 3.658455e-05, 1e-10);
}

TEST(MannWhitney, IdenticalSamplesHaveNoEvidence) {
  const MannWhitney same = mw({7, 7, 7, 7, 7}, {7, 7, 7, 7, 7});
  EXPECT_DOUBLE_EQ(same.p_value, 1.0);
  EXPECT_DOUBLE_EQ(same.u, 12.5);  // n*m/2
  EXPECT_DOUBLE_EQ(mw({}, {1, 2, 3}).p_value, 1.0);
  // All baseline values equal, all current values equal but different: fully separated.
  EXPECT_NEAR(mw({7, 7, 7, 7, 7}, {6, 6, 6, 6, 6}).p_value, 2.0 / 252.0, 1e-12);
}

TEST(MannWhitney, NormalApproximationBeyondTenPerSample) {
  std::vector<double> a, b;
  for (int i = 0; i < 12; ++i) {
    a.push_back(i);
    b.push_back(12 + i);
  }
  // U = 0, mean 72, variance 12*12*25/12 = 300: z = (72 - 0.5) / sqrt(300) = 4.128.
  const MannWhitney separated = mw(a, b);
  EXPECT_FALSE(separated.exact);
  EXPECT_DOUBLE_EQ(separated.u, 0.0);
  EXPECT_NEAR(separated.p_value, 3.658455e-05, 1e-10);
  // With ties: U = 16, tie term sum(t^3 - t) = 60, variance 12*12/12 * (25 - 60/552) = 298.70.
  const MannWhitney tied =
      mw({1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6}, {3, 4, 5, 6, 7, 7, 8, 8, 9, 9, 10, 10});
  EXPECT_DOUBLE_EQ(tied.u, 16.0);
  EXPECT_NEAR(tied.p_value, 0.00128311518, 1e-10);
}

TEST(BenjaminiHochberg, StepUpAdjustmentInTheGivenOrder) {
  // Sorted 0.005 0.01 0.03 0.04, m = 4: p * m / rank = 0.02 0.02 0.04 0.04; the running
  // minimum from the largest down leaves them so. Returned in the caller's order.
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005};
  const std::vector<double> q = benjamini_hochberg(p);
  ASSERT_EQ(q.size(), 4u);
  EXPECT_DOUBLE_EQ(q[0], 0.02);
  EXPECT_DOUBLE_EQ(q[1], 0.04);
  EXPECT_DOUBLE_EQ(q[2], 0.04);
  EXPECT_DOUBLE_EQ(q[3], 0.02);
}

TEST(BenjaminiHochberg, MonotoneAndCappedAtOne) {
  // 0.02 * 3 / 1 = 0.06 would exceed the next one's 0.03 * 3 / 2 = 0.045: the step-up keeps
  // the adjusted values in the order of the raw ones. Large p-values stay at most 1.
  const std::vector<double> q = benjamini_hochberg(std::vector<double>{0.9, 0.02, 0.03});
  EXPECT_DOUBLE_EQ(q[1], 0.045);
  EXPECT_DOUBLE_EQ(q[2], 0.045);
  EXPECT_DOUBLE_EQ(q[0], 0.9);
  EXPECT_DOUBLE_EQ(benjamini_hochberg(std::vector<double>{1.0, 1.0})[0], 1.0);
  EXPECT_TRUE(benjamini_hochberg(std::vector<double>{}).empty());
}

TEST(SpreadSeparation, ClearOfTenTimesTheLargerSpreadOnly) {
  const std::vector<double> base{100.0, 100.001, 100.0005};
  EXPECT_TRUE(separated_beyond_spread(base, std::vector<double>{90.0, 90.001, 90.0}));
  EXPECT_TRUE(
      separated_beyond_spread(std::vector<double>{5.0, 5.0}, std::vector<double>{6.0, 6.0}));
  // Noisy: the gap (1) is within ten spreads (0.5 each).
  EXPECT_FALSE(separated_beyond_spread(std::vector<double>{10.0, 10.5, 10.2},
                                       std::vector<double>{11.0, 11.5, 11.2}));
  EXPECT_FALSE(separated_beyond_spread(base, base));  // no change
  // One value per side shows no spread: no rule.
  EXPECT_FALSE(separated_beyond_spread(std::vector<double>{1.0}, std::vector<double>{2.0}));
}

}  // namespace
}  // namespace qb::judge
