// The one water-filling rule both oracles use (policies/src/water_fill.hpp, private).
#include "water_fill.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace qb::policy {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(WaterFill, SmallDemandsAreMetAndTheRestSplitByWeight) {
  // 10 to share: the 1 is met, 9 left for weights 1 and 2 (both want more): 3 and 6.
  const std::vector<double> shares =
      water_fill(std::vector<double>{1, 1, 2}, std::vector<double>{1, 100, kInf}, 10.0);
  ASSERT_EQ(shares.size(), 3u);
  EXPECT_DOUBLE_EQ(shares[0], 1.0);
  EXPECT_DOUBLE_EQ(shares[1], 3.0);
  EXPECT_DOUBLE_EQ(shares[2], 6.0);
}

TEST(WaterFill, ClaimsWithoutWeightOrDemandGetNothingAndCostNothing) {
  const std::vector<double> shares =
      water_fill(std::vector<double>{0, 1, 1, -1}, std::vector<double>{5, 0, kInf, 5}, 8.0);
  EXPECT_EQ(shares, (std::vector<double>{0, 0, 8, 0}));
}

TEST(WaterFill, NoSupplyGivesNothingAndUnlimitedSupplyMeetsEveryDemand) {
  const std::vector<double> weights{1, 3};
  const std::vector<double> demands{2, 7};
  EXPECT_EQ(water_fill(weights, demands, 0.0), (std::vector<double>{0, 0}));
  EXPECT_EQ(water_fill(weights, demands, std::nan("")), (std::vector<double>{0, 0}));
  EXPECT_EQ(water_fill(weights, demands, kInf), (std::vector<double>{2, 7}));
}

TEST(WaterFill, SharesGoToTheClaimIdsAndUntouchedSlotsStay) {
  std::vector<WaterClaim> claims{{4, 3.0, kInf}, {1, 1.0, kInf}, {2, 1.0, 0.0}};
  std::vector<double> out(5, -1.0);
  water_fill(claims, 8.0, out);
  EXPECT_EQ(out, (std::vector<double>{-1, 2, 0, -1, 6}));
}

}  // namespace
}  // namespace qb::policy
