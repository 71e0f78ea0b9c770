// The class oracle: hand-computed expected rates for each arbitration rule.
#include "qb/policies/class_oracle.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace qb::policy {
namespace {

constexpr double kGbps = 1e9;

// Root with two leaves weighted 3:1; one flow each.
QosPlan two_leaf_plan(double port_bps) {
  QosPlan plan;
  plan.tree = SchedTree::with_root();
  const uint32_t a = plan.tree.add_child(0, "a", true, 3);
  const uint32_t b = plan.tree.add_child(0, "b", true, 1);
  plan.port_rate_bps = port_bps;
  plan.flows.resize(2);
  plan.flows[0].name = "fa";
  plan.flows[0].leaf = a;
  plan.flows[1].name = "fb";
  plan.flows[1].leaf = b;
  return plan;
}

TEST(ClassOracleTest, NoClassesOneHostEqualsTreeOracle) {
  const QosPlan plan = two_leaf_plan(100 * kGbps);
  const std::vector<double> offered = {kUnlimited, kUnlimited};
  const std::vector<double> packet = {4096.0, 4096.0};
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, packet);
  ASSERT_EQ(result.flows.flow_bps.size(), 2u);
  EXPECT_DOUBLE_EQ(result.flows.flow_bps[0], 75 * kGbps);
  EXPECT_DOUBLE_EQ(result.flows.flow_bps[1], 25 * kGbps);
  ASSERT_EQ(result.class_bps.size(), 1u);
  EXPECT_DOUBLE_EQ(result.class_bps[0], 100 * kGbps);
  EXPECT_TRUE(result.notes.empty());
}

}  // namespace
}  // namespace qb::policy
