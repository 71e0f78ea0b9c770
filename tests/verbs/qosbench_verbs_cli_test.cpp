// `qosbench run --driver verbs` end to end (the built binary): the shipped man-page suite on the
// fake ConnectX judged against the oracle, the same suite with no RDMA device on this machine
// (exit 3, no results), a device without NIC scheduling (exit 3 naming the element), an
// Ethernet suite (exit 2 at its transport), and Ctrl-C (incomplete results, exit 3).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/process.hpp"

namespace qb::e2e {
namespace {

const std::string kTwoGroups = std::string(QB_SOURCE_DIR) + "/configs/mlx5_two_groups.toml";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(VerbsCli, DriversListsVerbsWithWhatTheMachineHas) {
  const Outcome o = run_qosbench({"drivers"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const size_t line = o.out.find("verbs    available");
  ASSERT_NE(line, std::string::npos) << o.out;
  // This machine may or may not have a device; either way the line says which.
  const bool none = o.out.find("no RDMA device found", line) != std::string::npos;
  const bool some = o.out.find("devices: ", line) != std::string::npos;
  EXPECT_TRUE(none || some) << o.out;
}

TEST(VerbsCli, ManPageSuiteOnTheFakeIsJudgedAgainstTheOracle) {
  const std::string json_path = ::testing::TempDir() + "/verbs_fake_two_groups.json";
  std::filesystem::remove(json_path);
  const Outcome o = run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option",
                                  "provider=fake", "--repetitions", "1", "--json", json_path,
                                  "--quiet"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto results = read_json(json_path);
  EXPECT_EQ(results["driver"], "verbs");
  EXPECT_EQ(results["complete"], true);
  EXPECT_EQ(results["clock"], "virtual");
  const auto& scenario = results["scenarios"][0];
  ASSERT_EQ(scenario["flows"].size(), 8u);
  for (const auto& flow : scenario["flows"]) {
    EXPECT_LT(std::abs(flow["error"].get<double>()), 0.01) << flow["name"];
    EXPECT_GT(flow["messages"].get<double>(), 0.0);
  }
  EXPECT_EQ(scenario["driver_stats"]["nic_sched_tree"], 1.0);
  EXPECT_EQ(scenario["driver_stats"]["error_completions"], 0.0);
  EXPECT_EQ(scenario["driver_stats"]["teardown_failures"], 0.0);
}

TEST(VerbsCli, WithoutAnRdmaDeviceExitsThreeAndWritesNoResults) {
  // rdma-core on this machine: skip when it does have a device.
  const Outcome listed = run_qosbench({"drivers"});
  if (listed.out.find("no RDMA device found") == std::string::npos) {
    GTEST_SKIP() << "this machine has an RDMA device";
  }
  const std::string json_path = ::testing::TempDir() + "/verbs_no_device.json";
  std::filesystem::remove(json_path);
  const Outcome o =
      run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--json", json_path, "--quiet"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("no RDMA device found"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(json_path));
}

TEST(VerbsCli, DeviceWithoutSchedulingElementsExitsThreeNamingTheElement) {
  const std::string json_path = ::testing::TempDir() + "/verbs_no_sched.json";
  std::filesystem::remove(json_path);
  const Outcome o = run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option",
                                  "provider=fake", "--driver-option", "fake_sched_support=false",
                                  "--json", json_path, "--quiet"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("mlx5dv_sched_node_create for node 'root' failed"), std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(json_path));
}

TEST(VerbsCli, EthernetSuiteIsRefusedAtItsTransport) {
  const std::string path = std::string(QB_SOURCE_DIR) + "/configs/imix_256_flows.toml";
  const Outcome o = run_qosbench({"run", path, "--driver", "verbs", "--driver-option",
                                  "provider=fake", "--quiet"});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find(path + ":14:13: error: port.transport"), std::string::npos) << o.err;
}

TEST(VerbsCli, UnknownOptionIsAUsageErrorNamingIt) {
  const Outcome o = run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option",
                                  "fake_timing=instant", "--quiet"});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("fake_timing"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("provider = \"fake\""), std::string::npos) << o.err;
}

TEST(VerbsCli, InterruptWritesIncompleteResults) {
  const std::string json_path = ::testing::TempDir() + "/verbs_interrupted.json";
  std::filesystem::remove(json_path);
  const Outcome o = run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option",
                                  "provider=fake", "--driver-option", "fake_timing=instant",
                                  "--duration", "60s", "--json", json_path, "--quiet"},
                                 /*interrupt_after_ms=*/1000);
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  ASSERT_TRUE(std::filesystem::exists(json_path)) << o.err;
  const auto results = read_json(json_path);
  EXPECT_EQ(results["complete"], false);
  EXPECT_EQ(results["clock"], "nic");  // the fake has completion timestamps
  EXPECT_GT(results["scenarios"][0]["driver_stats"]["posted_messages"].get<double>(), 0.0);
  EXPECT_EQ(results["scenarios"][0]["driver_stats"]["teardown_failures"], 0.0);
}

}  // namespace
}  // namespace qb::e2e
