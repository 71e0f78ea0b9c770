// tree = "software" on a device without mlx5dv_sched (the fake with fake_sched_support =
// false: its QPs share the port round robin, as on Soft-RoCE): each QP paced at its oracle
// share lands the shipped trees on the oracle, and the results say the tree was software;
// without the option the run stops naming the device, the capability and the option.
#include "software_tree.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "fake_mlx5.hpp"
#include "loaded_suite.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/judge/run_metadata.hpp"
#include "qb/policies/oracle.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

// The fake without NIC scheduling elements, with the options given.
Result<DriverFactory> fake_without_sched(std::vector<ConfigOverride> more = {}) {
  std::vector<ConfigOverride> overrides = {
      {"provider", "fake", "--driver-option"},
      {"fake_sched_support", "false", "--driver-option"},
  };
  for (auto& o : more) overrides.push_back(std::move(o));
  return configure_driver("verbs", ConfigTable("driver.verbs"), overrides);
}

// The man page's tree (7:3, g2 capped at 4096 Mbit/s, 4 QPs a leaf, all saturating): every QP
// is paced at the oracle's rate for it.
TEST(VerbsSoftwareTree, PacesEveryHeldBackFlowAtItsOracleShare) {
  const auto loaded = load("mlx5_two_groups.toml");
  const policy::QosPlan& plan = loaded.compiled[0].plan;
  const std::vector<double> pace = software_pace_bps(plan);
  ASSERT_EQ(pace.size(), 8u);
  std::vector<policy::FlowDemand> demands;
  for (const auto& flow : plan.flows) demands.push_back({flow.leaf, flow.offered_wire_bps});
  const auto oracle = policy::expected_rates(plan.tree, demands, plan.port_rate_bps);
  for (size_t f = 0; f < pace.size(); ++f) {
    EXPECT_DOUBLE_EQ(pace[f], oracle.flow_bps[f]) << plan.flows[f].name;
  }
  EXPECT_NEAR(pace[7], 4096e6 / 4, 1.0);  // g2's cap shared by its 4 QPs
}

// CBR and Poisson flows below their share are left to their own generator (0: not paced);
// the saturating ones are paced.
TEST(VerbsSoftwareTree, FlowsWithinTheirShareAreNotPaced) {
  const auto loaded = load("cbr_redistribution.toml");
  const policy::QosPlan& plan = loaded.compiled[0].plan;
  const std::vector<double> pace = software_pace_bps(plan);
  size_t paced = 0;
  size_t unpaced = 0;
  for (size_t f = 0; f < pace.size(); ++f) {
    if (std::isfinite(plan.flows[f].offered_wire_bps)) {
      EXPECT_EQ(pace[f], 0.0) << plan.flows[f].name;
      ++unpaced;
    } else {
      EXPECT_GT(pace[f], 0.0) << plan.flows[f].name;
      ++paced;
    }
  }
  EXPECT_GT(paced, 0u);
  EXPECT_GT(unpaced, 0u);
}

// End to end on the fake's simulated timing: without the NIC tree the QPs would share the port
// equally (the man-page tree's g1 QPs would get 12.5 % each instead of 24 %); paced in software
// every flow lands within 2 % of the oracle, and the results say the tree was software.
TEST(VerbsSoftwareTree, ShippedTreesLandOnTheOracleWithoutNicScheduling) {
  for (const char* file :
       {"mlx5_two_groups.toml", "three_level_caps.toml", "cbr_redistribution.toml"}) {
    SCOPED_TRACE(file);
    const auto loaded = load(file);
    auto factory = fake_without_sched({{"tree", "software", "--driver-option"}});
    ASSERT_TRUE(factory.ok()) << factory.error().to_string();
    engine::RunOptions options;
    options.repetitions = 1;
    auto run = engine::run_suite(loaded.suite, loaded.compiled, *factory, options);
    ASSERT_TRUE(run.ok()) << run.error().to_string();
    std::map<std::string, double> stats(run->scenarios[0].reps[0].driver_stats.begin(),
                                        run->scenarios[0].reps[0].driver_stats.end());
    EXPECT_EQ(stats["software_tree"], 1.0);
    EXPECT_EQ(stats["nic_sched_tree"], 0.0);
    EXPECT_GT(stats["software_paced_flows"], 0.0);
    auto results = judge::judge_run(loaded.suite, *run, engine::measure(*run),
                                    judge::current_run_metadata({}));
    ASSERT_TRUE(results.ok()) << results.error().to_string();
    for (const auto& scenario : results->scenarios) {
      for (const auto& flow : scenario.flows) {
        EXPECT_LT(std::abs(flow.error), 0.02)
            << flow.name << ": measured " << flow.measured_bps << " expected " << flow.expected_bps;
      }
    }
  }
}

// Without tree = "software", a device without mlx5dv_sched stops the run (exit 3) naming the
// device, the capability and the option.
TEST(VerbsSoftwareTree, WithoutTheOptionNoSchedIsExitThreeNamingDeviceCapabilityAndOption) {
  const auto loaded = load("mlx5_two_groups.toml");
  auto factory = fake_without_sched();
  ASSERT_TRUE(factory.ok()) << factory.error().to_string();
  engine::RunOptions options;
  options.repetitions = 1;
  auto run = engine::run_suite(loaded.suite, loaded.compiled, *factory, options);
  ASSERT_FALSE(run.ok());
  const Error& error = run.error();
  EXPECT_EQ(error.code, Errc::unavailable);  // exit 3
  EXPECT_EQ(error.where, "driver.verbs.tree");
  EXPECT_NE(error.message.find("mlx5_0 has no NIC scheduling elements"), std::string::npos)
      << error.message;
  EXPECT_NE(error.message.find("nic_qp_scheduling"), std::string::npos) << error.message;
  EXPECT_NE(error.message.find("tree = \"software\""), std::string::npos) << error.message;
}

}  // namespace
}  // namespace qb::drv::verbs
