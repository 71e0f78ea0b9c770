// Multi-switch fabrics run end to end on the simulator's graph model (issue 29 part 5): the
// shipped fabric suites' verdicts, victims and hashed paths, the graph model against the
// one-switch model on the same fabric, and random permutations against the expectation.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "process.hpp"

namespace qb::e2e {
namespace {

using Json = nlohmann::json;

Json run_json(const std::string& suite, int expected_exit, std::vector<std::string> extra = {}) {
  const std::string json = ::testing::TempDir() + "/fabric_run_" + std::to_string(::getpid()) +
                           ".json";
  std::vector<std::string> args{"run", suite, "--json", json, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Outcome outcome = run_qosbench(args);
  // -1: pass or fail (1), but not an error.
  if (expected_exit >= 0) {
    EXPECT_EQ(outcome.exit_code, expected_exit) << outcome.out << outcome.err;
  } else {
    EXPECT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 1) << outcome.out << outcome.err;
  }
  return Json::parse(read_file(json));
}

std::map<std::string, double> measured_by_flow(const Json& scenario) {
  std::map<std::string, double> out;
  for (const Json& flow : scenario["flows"]) {
    out[flow["name"].get<std::string>()] = flow["measured_bps"].get<double>();
  }
  return out;
}

TEST(FabricRun, VictimSuiteNamesTheVictimAndThePausingPort) {
  const Json results = run_json(QB_SOURCE_DIR "/configs/fabrics/pfc_victim.toml", 1);
  const Json& scenario = results["scenarios"][0];
  ASSERT_EQ(scenario["victims"].size(), 1u) << scenario["victims"].dump();
  const Json& victim = scenario["victims"][0];
  EXPECT_EQ(victim["flow"], "s-to-v");
  EXPECT_EQ(victim["paused_at"], "s:1->leafA:1");
  EXPECT_GT(victim["paused_ns"].get<double>(), 0.0);
  EXPECT_LT(victim["error"].get<double>(), -0.5);
  // The flows into r are not victims: their own egress (r's 25 Gbit/s port) is the bottleneck,
  // and they get their expectation.
  for (const Json& flow : scenario["flows"]) {
    if (flow["name"] == "s-to-v") continue;
    EXPECT_NEAR(flow["error"].get<double>(), 0.0, 0.01) << flow["name"];
  }
  const std::string summary = results["verdict"]["summary"].get<std::string>();
  EXPECT_NE(summary.find("PFC victims: s-to-v paused at s:1->leafA:1"), std::string::npos)
      << summary;
}

TEST(FabricRun, EcmpSharesFollowTheHashedPaths) {
  const Json results = run_json(QB_SOURCE_DIR "/configs/fabrics/ecmp_collision.toml", 0);
  ASSERT_EQ(results["scenarios"].size(), 2u);
  const double expected_bps[] = {50e9, 100e9};  // collide on one spine; spread over two
  for (size_t s = 0; s < 2; ++s) {
    for (const Json& flow : results["scenarios"][s]["flows"]) {
      EXPECT_NEAR(flow["expected_bps"].get<double>(), expected_bps[s], 1e3) << flow["name"];
      EXPECT_NEAR(flow["measured_bps"].get<double>() / expected_bps[s], 1.0, 0.01) << flow["name"];
    }
  }
}

// The IB fat tree (configs/fabrics/ib_fat_tree.toml): every flow's SL comes from the OpenSM
// qos-policy.conf, each port maps it to its VL by its own port type's SL2VL (CA: SL n -> VL n;
// switch: SL 1/2/3 -> VL 2/1/3), and the VLArb weights decide at a leaf uplink, a spine downlink,
// a leaf downlink (4:2:1) and a CA port (3:1). Every flow within 1 % of the expectation.
TEST(FabricRun, IbFatTreeFollowsTheOpensmPolicyAtEveryHop) {
  const std::string suite = QB_SOURCE_DIR "/configs/fabrics/ib_fat_tree.toml";
  const Json results = run_json(suite, 0);
  const Json& scenario = results["scenarios"][0];
  ASSERT_EQ(scenario["flows"].size(), 12u);
  EXPECT_TRUE(scenario["victims"].empty()) << scenario["victims"].dump();
  const std::map<std::string, int> sl_of{{"storage", 1}, {"mpi", 2}, {"bulk", 3}};
  for (const Json& flow : scenario["flows"]) {
    const std::string name = flow["name"].get<std::string>();
    EXPECT_NEAR(flow["error"].get<double>(), 0.0, 0.01) << name;
    EXPECT_EQ(flow["sl"].get<int>(), sl_of.at(name.substr(name.rfind('-') + 1))) << name;
  }
  std::map<std::string, double> measured = measured_by_flow(scenario);
  for (const char* hop : {"up", "down", "edge"}) {
    const std::string h(hop);
    EXPECT_NEAR(measured[h + "-storage"] / measured[h + "-bulk"], 4.0, 0.04) << hop;
    EXPECT_NEAR(measured[h + "-mpi"] / measured[h + "-bulk"], 2.0, 0.02) << hop;
  }
  EXPECT_NEAR(measured["nic-storage"] / measured["nic-mpi"], 3.0, 0.03);

  // explain names each flow's SL -> VL path and the hop that decides its share.
  const Outcome explained = run_qosbench({"explain", suite, "--json"});
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  const Json explanation = Json::parse(explained.out);
  const std::map<std::string, std::string> vls{{"storage", "SL2VL -> VL1; switch VL2"},
                                               {"mpi", "SL2VL -> VL2; switch VL1"},
                                               {"bulk", "SL2VL -> VL3"}};
  const std::map<std::string, std::string> bottleneck{{"up", "leaf0:5->spine0:1"},
                                                      {"down", "spine1:3->leaf2:6"},
                                                      {"edge", "leaf3:3->h14:1"},
                                                      {"nic", "h7:1->leaf1:4"}};
  for (const Json& flow : explanation["scenarios"][0]["flows"]) {
    const std::string name = flow["name"].get<std::string>();
    const std::string note = flow["class_note"].get<std::string>();
    EXPECT_NE(note.find("from qos-policy"), std::string::npos) << name << ": " << note;
    EXPECT_NE(note.find(vls.at(name.substr(name.rfind('-') + 1))), std::string::npos)
        << name << ": " << note;
    auto hop = bottleneck.find(name.substr(0, name.find('-')));
    if (hop != bottleneck.end()) {
      EXPECT_EQ(flow["bottleneck"], hop->second) << name;
    }
  }
}

// The same two-host incast as the one-switch model's [fabric] and as a [topology]: the graph
// model's shares equal the one-switch model's within 1 %.
TEST(FabricRun, GraphModelAgreesWithTheOneSwitchModel) {
  const std::string common = R"(
[suite]
name = "incast"
seed = 4
repetitions = 1
warmup = "1ms"
duration = "10ms"
[port]
rate = "100Gbps"
transport = "rocev2"
mtu = 4096
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "gold"
parent = "root"
bw_share = 7
[[sched.leaf]]
name = "silver"
parent = "root"
bw_share = 3
)";
  const std::string one_switch = common + R"(
[fabric]
hosts = 2
switch = true
[[flow]]
name = "a-gold"
host = 0
leaf = "gold"
size = 65536
rate = "saturate"
[[flow]]
name = "a-silver"
host = 0
leaf = "silver"
size = 65536
rate = "saturate"
[[flow]]
name = "b"
host = 1
leaf = "gold"
size = 4096
rate = "20Gbps"
)";
  const std::string graph = common + R"(
[topology]
kind = "explicit"
delay = "500ns"
[[topology.switch]]
name = "sw"
[[topology.host]]
name = "a"
[[topology.host]]
name = "b"
[[topology.host]]
name = "r"
[[topology.link]]
ends = ["a", "sw"]
rate = "100Gbps"
[[topology.link]]
ends = ["b", "sw"]
rate = "100Gbps"
[[topology.link]]
ends = ["r", "sw"]
rate = "100Gbps"
[[flow]]
name = "a-gold"
from = "a"
to = "r"
leaf = "gold"
size = 65536
rate = "saturate"
[[flow]]
name = "a-silver"
from = "a"
to = "r"
leaf = "silver"
size = 65536
rate = "saturate"
[[flow]]
name = "b"
from = "b"
to = "r"
leaf = "gold"
size = 4096
rate = "20Gbps"
)";
  const Json model = run_json(write_temp("one_switch.toml", one_switch), 0);
  const Json graph_results = run_json(write_temp("graph.toml", graph), 0);
  const auto expected = measured_by_flow(model["scenarios"][0]);
  const auto measured = measured_by_flow(graph_results["scenarios"][0]);
  ASSERT_EQ(expected.size(), 3u);
  for (const auto& [name, bps] : expected) {
    ASSERT_TRUE(measured.contains(name)) << name;
    EXPECT_NEAR(measured.at(name) / bps, 1.0, 0.01) << name;
  }
  // And both against the same expectation.
  for (size_t f = 0; f < 3; ++f) {
    EXPECT_NEAR(graph_results["scenarios"][0]["flows"][f]["expected_bps"].get<double>(),
                model["scenarios"][0]["flows"][f]["expected_bps"].get<double>(), 1.0);
  }
}

// Permutations over leaf-spine fabrics: ECMP collisions put flows that drain at different rates
// into one switch ingress buffer, so pauses can spread; every flow is within 1 % of the
// expectation or named a victim (and seed 1 has none).
TEST(FabricRun, PermutationsMeetTheExpectation) {
  for (const int seed : {1, 2, 3}) {
    const std::string suite = fmt::format(R"(
[suite]
name = "permutation {0}"
seed = {0}
repetitions = 1
warmup = "1ms"
duration = "10ms"
[port]
rate = "100Gbps"
transport = "rocev2"
mtu = 4096
[topology]
kind = "leaf_spine"
leaves = 3
spines = 2
hosts_per_leaf = 3
uplink_rate = "100Gbps"
ecmp_seed = {0}
[[flow]]
name = "perm"
size = 65536
rate = "saturate"
sources = "*"
destinations = "permutation"
destination_seed = {0}
)",
                                          seed);
    const std::string path = write_temp(fmt::format("perm{}.toml", seed), suite);
    const Outcome outcome = run_qosbench({"explain", path, "--json"});
    ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
    const Json results = run_json(path, seed == 1 ? 0 : -1);
    const Json& scenario = results["scenarios"][0];
    std::map<std::string, bool> victim;
    for (const Json& v : scenario["victims"]) victim[v["flow"].get<std::string>()] = true;
    if (seed == 1) {
      EXPECT_TRUE(victim.empty()) << scenario["victims"].dump();
    }
    for (const Json& flow : scenario["flows"]) {
      if (victim.contains(flow["name"].get<std::string>())) {
        EXPECT_LT(flow["error"].get<double>(), -0.05) << flow["name"];
        continue;
      }
      EXPECT_NEAR(flow["error"].get<double>(), 0.0, 0.01) << "seed " << seed << " " << flow["name"];
    }
  }
}

// Every shipped fabric suite validates and explains (the heavy ones run in the benchmarks and
// their own tests), and explain gives every flow a path that starts at its source.
TEST(FabricRun, EveryShippedFabricSuiteValidatesAndExplains) {
  size_t suites = 0;
  for (const auto& entry : std::filesystem::directory_iterator(QB_SOURCE_DIR "/configs/fabrics")) {
    if (entry.path().extension() != ".toml") continue;
    ++suites;
    const std::string path = entry.path().string();
    const Outcome checked = run_qosbench({"validate", path});
    EXPECT_EQ(checked.exit_code, 0) << path << checked.err;
    const Outcome explained = run_qosbench({"explain", path, "--json"});
    ASSERT_EQ(explained.exit_code, 0) << path << explained.err;
    const Json explanation = Json::parse(explained.out);
    for (const Json& scenario : explanation["scenarios"]) {
      for (const Json& flow : scenario["flows"]) {
        ASSERT_FALSE(flow["path"].empty()) << path << " " << flow["name"];
        EXPECT_TRUE(flow["path"][0].get<std::string>().starts_with(
            flow["from"].get<std::string>() + ":"))
            << path << " " << flow["name"];
      }
      EXPECT_TRUE(scenario["oracle_notes"].empty()) << path << scenario["oracle_notes"].dump();
    }
  }
  EXPECT_GE(suites, 6u);
}

// An all-to-all over two ToRs of two hosts with per-ingress round robin has more than one fixed
// point (tests/fabric/expectation_test.cpp): the run judges nothing and every gate says why,
// instead of comparing the flows with one of them.
TEST(FabricRun, AnExpectationWithTwoFixedPointsJudgesNothingAndSaysWhy) {
  const std::string suite = write_temp("two_fixed_points.toml", R"([suite]
name = "two fixed points"
duration = "1ms"
warmup = "200us"
[port]
rate = "100Gbps"
transport = "rocev2"
mtu = 4096
[topology]
kind = "fat_tree"
pods = 1
tors_per_pod = 2
aggs_per_pod = 1
hosts_per_tor = 2
cores_per_agg = 1
host_rate = "100Gbps"
fabric_rate = "400Gbps"
[[flow]]
name = "all"
size = 65536
rate = "saturate"
sources = "*"
destinations = "all-to-all"
[gates]
max_share_error = "5%"
min_jain = 0.99
)");
  const Json results = run_json(suite, 0);
  const Json& scenario = results["scenarios"][0];
  ASSERT_EQ(scenario["flows"].size(), 12u);
  for (const Json& flow : scenario["flows"]) EXPECT_FALSE(flow["judged"].get<bool>());
  size_t gates = 0;
  for (const Json& gate : scenario["gates"]) {
    ++gates;
    EXPECT_FALSE(gate["judged"].get<bool>()) << gate.dump();
    EXPECT_NE(gate["detail"].get<std::string>().find("more than one fixed point"),
              std::string::npos)
        << gate.dump();
  }
  EXPECT_GE(gates, 2u);
  EXPECT_NE(scenario["oracle_notes"][0].get<std::string>().find("more than one fixed point"),
            std::string::npos);
  EXPECT_TRUE(results["verdict"]["summary"].get<std::string>().starts_with("NOT JUDGED"))
      << results["verdict"]["summary"];
}

}  // namespace
}  // namespace qb::e2e
