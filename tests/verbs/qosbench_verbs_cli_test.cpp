// `qosbench run --driver verbs` end to end (the built binary): the shipped man-page suite on the
// fake ConnectX judged against the oracle, the same suite with no RDMA device on this machine
// (exit 3, no results), a device without NIC scheduling (exit 3 naming the element and the
// option; with tree = "software" it runs), the GID picked without gid_index, an
// Ethernet suite (exit 2 at its transport), and Ctrl-C (incomplete results, exit 3).
#include <gtest/gtest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
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
  EXPECT_EQ(scenario["driver_stats"]["software_tree"], 0.0);
  EXPECT_EQ(scenario["driver_stats"]["error_completions"], 0.0);
  EXPECT_EQ(scenario["driver_stats"]["teardown_failures"], 0.0);
  // The fake's GID table is a ConnectX port's (0 RoCE v1, 1 RoCE v2, 2-3 the IPv4-mapped
  // pair): with no gid_index the run uses index 3 and says why.
  EXPECT_EQ(scenario["driver_stats"]["gid_index"], 3.0);
  EXPECT_NE(o.err.find("qosbench: verbs: mlx5_0 port 1: GID index 3 (RoCE v2, "
                       "::ffff:192.168.1.10): picked automatically"),
            std::string::npos)
      << o.err;
}

// A device without mlx5dv_sched, with tree = "software": the run passes its gates, and the
// results and stderr say the tree was paced in software.
TEST(VerbsCli, SoftwareTreeRunsOnADeviceWithoutSchedulingElements) {
  const std::string json_path = ::testing::TempDir() + "/verbs_software_tree.json";
  std::filesystem::remove(json_path);
  const Outcome o =
      run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option", "provider=fake",
                    "--driver-option", "fake_sched_support=false", "--driver-option",
                    "tree=software", "--repetitions", "1", "--json", json_path, "--quiet"});
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto results = read_json(json_path);
  const auto& stats = results["scenarios"][0]["driver_stats"];
  EXPECT_EQ(stats["software_tree"], 1.0);
  EXPECT_EQ(stats["nic_sched_tree"], 0.0);
  EXPECT_EQ(stats["software_paced_flows"], 8.0);
  EXPECT_NE(o.err.find("tree = \"software\": the scheduling tree is not built in the NIC"),
            std::string::npos)
      << o.err;
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
  // The device, the capability it lacks and the option that runs the suite anyway.
  EXPECT_NE(o.err.find("error: driver.verbs.tree: "), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("mlx5_0 has no NIC scheduling elements"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("nic_qp_scheduling"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("tree = \"software\""), std::string::npos) << o.err;
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

// rate = "auto": the driver's port speed. The fake ConnectX reports 100 Gbit/s (EDR x4), so the
// man-page suite runs as written; the simulator has no port: exit 2 at the key.
TEST(VerbsCli, AutoPortRateIsTheDriversPortSpeed) {
  std::string text = read_file(kTwoGroups);
  text.replace(text.find("rate = \"100Gbps\""), 16, "rate = \"auto\"");
  const std::string path = write_temp("verbs_auto_rate.toml", text);
  const std::string json_path = ::testing::TempDir() + "/verbs_auto_rate.json";
  std::filesystem::remove(json_path);
  const Outcome fake = run_qosbench({"run", path, "--driver", "verbs", "--driver-option",
                                     "provider=fake", "--repetitions", "1", "--json", json_path,
                                     "--quiet"});
  ASSERT_EQ(fake.exit_code, 0) << fake.out << fake.err;
  const auto results = read_json(json_path);
  EXPECT_DOUBLE_EQ(results["scenarios"][0]["capacity_bps"].get<double>(), 100e9);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"validate", path}, std::vector<std::string>{"explain", path},
        std::vector<std::string>{"run", path, "--quiet"}}) {
    const Outcome sim = run_qosbench(args);
    EXPECT_EQ(sim.exit_code, 2) << args[0] << sim.err;
    EXPECT_NE(sim.err.find(path + ":16:8: error: port.rate: rate = \"auto\""), std::string::npos)
        << sim.err;
  }
}

// A receiver waiting for its sender ends on Ctrl-C at once (the wait is up to 120 s).
TEST(VerbsCli, CtrlCEndsTheWaitForThePeer) {
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option",
                                  "provider=fake", "--driver-option", "fake_timing=instant",
                                  "--driver-option", "listen=0", "--quiet"},
                                 /*interrupt_after_ms=*/300);
  EXPECT_EQ(o.exit_code, 2) << o.err;  // listen = 0 is out of range: refused before any wait
  const std::string port = std::to_string(40000 + ::getpid() % 20000);
  const std::string json_path = ::testing::TempDir() + "/verbs_wait_interrupted.json";
  std::filesystem::remove(json_path);
  const Outcome waited = run_qosbench({"run", kTwoGroups, "--driver", "verbs", "--driver-option",
                                       "provider=fake", "--driver-option", "fake_timing=instant",
                                       "--driver-option", "listen=" + port, "--json", json_path,
                                       "--quiet"},
                                      /*interrupt_after_ms=*/300);
  // An interrupted run: exit 3, its results (nothing ran) marked incomplete.
  EXPECT_EQ(waited.exit_code, 3) << waited.err;
  ASSERT_TRUE(std::filesystem::exists(json_path)) << waited.err;
  EXPECT_EQ(read_json(json_path)["complete"], false);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

// Two qosbench processes, a receiver (listen) and a sender (peer), given different suites:
// the hello's plan hash differs and both exit 2 saying so, before any QP is connected.
TEST(VerbsCli, TwoHostsWithDifferentSuitesBothExitTwo) {
  const int probe = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(probe, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(probe, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(probe);
  const std::string port = std::to_string(ntohs(address.sin_port));
  std::string text = read_file(kTwoGroups);
  text.replace(text.find("bw_share = 7"), 12, "bw_share = 6");
  const std::string other = write_temp("verbs_two_hosts_other.toml", text);
  const std::vector<std::string> fake = {"--driver", "verbs", "--driver-option", "provider=fake",
                                         "--driver-option", "fake_timing=instant", "--quiet"};
  auto args = [&](const std::string& suite, const std::string& role) {
    std::vector<std::string> a{"run", suite};
    a.insert(a.end(), fake.begin(), fake.end());
    a.insert(a.end(), {"--driver-option", role});
    return a;
  };
  const std::string stem = ::testing::TempDir() + "/verbs_two_hosts_";
  const pid_t receiver =
      spawn_qosbench(args(kTwoGroups, "listen=" + port), stem + "rx.out", stem + "rx.err");
  const pid_t sender =
      spawn_qosbench(args(other, "peer=127.0.0.1:" + port), stem + "tx.out", stem + "tx.err");
  ASSERT_GT(receiver, 0);
  ASSERT_GT(sender, 0);
  int receiver_status = 0, sender_status = 0;
  ::waitpid(sender, &sender_status, 0);
  ::waitpid(receiver, &receiver_status, 0);
  const std::string rx_err = read_file(stem + "rx.err"), tx_err = read_file(stem + "tx.err");
  ASSERT_TRUE(WIFEXITED(receiver_status) && WIFEXITED(sender_status));
  EXPECT_EQ(WEXITSTATUS(receiver_status), 2) << rx_err;
  EXPECT_EQ(WEXITSTATUS(sender_status), 2) << tx_err;
  EXPECT_NE(rx_err.find("the peer runs a different suite"), std::string::npos) << rx_err;
  EXPECT_NE(tx_err.find("the peer runs a different suite"), std::string::npos) << tx_err;
}

}  // namespace
}  // namespace qb::e2e
