// The command line as a user meets it: exit codes, error messages with file:line:col and key,
// the JSON contracts of `run` and `explain`, no partial results, Ctrl-C.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

const std::string kTwoGroups = QB_SOURCE_DIR "/configs/mlx5_two_groups.toml";

std::string base_suite(const std::string& extra_flow_keys = "") {
  return R"([suite]
name = "e2e"
repetitions = 1
warmup = "1ms"
duration = "5ms"
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "root"
bw_share = 1
[[flow]]
name = "f"
leaf = "a"
size = 4096
rate = "saturate"
)" + extra_flow_keys;
}

TEST(Cli, SeedOutsideUnsigned64BitsIsAUsageError) {
  // CLI11 used to turn each of these into 2^64-1 and run.
  for (const char* seed : {"-1", "18446744073709551616", "1e23", "0x10"}) {
    SCOPED_TRACE(seed);
    const Outcome outcome = run_qosbench({"run", kTwoGroups, "--seed", seed, "--quiet"});
    EXPECT_EQ(outcome.exit_code, 2) << outcome.out << outcome.err;
    EXPECT_NE(outcome.err.find("--seed"), std::string::npos) << outcome.err;
  }
}

TEST(Cli, RunTwoGroupsPassesAndWritesTheResultsContract) {
  const std::string json_path = ::testing::TempDir() + "/two_groups.json";
  std::filesystem::remove(json_path);
  const Outcome outcome = run_qosbench({"run", kTwoGroups, "--json", json_path});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("g1-qp#3"), std::string::npos);
  EXPECT_NE(outcome.out.find("PASSED"), std::string::npos);
  const json results = json::parse(read_file(json_path));
  EXPECT_EQ(results["schema"], "qosbench.results/1");
  EXPECT_EQ(results["passed"], true);
  const json& scenario = results["scenarios"][0];
  EXPECT_DOUBLE_EQ(scenario["capacity_bps"].get<double>(), 100e9);
  ASSERT_EQ(scenario["flows"].size(), 8u);
  for (const json& flow : scenario["flows"]) {
    for (const char* key :
         {"name", "group", "expected_bps", "measured_bps", "error", "latency_ns"}) {
      EXPECT_TRUE(flow.contains(key)) << key;
    }
    for (const char* key : {"p50", "p90", "p99", "p999", "max", "count"}) {
      EXPECT_TRUE(flow["latency_ns"].contains(key)) << key;
    }
    // The issue's bar: every flow of the two-groups suite within 1% of its expectation.
    EXPECT_LT(std::abs(flow["error"].get<double>()), 0.01) << flow["name"];
  }
  EXPECT_NEAR(scenario["groups"][1]["expected_bps"].get<double>(), 4.096e9, 1.0);
  for (const json& gate : scenario["gates"]) {
    for (const char* key : {"name", "passed", "value", "threshold"}) {
      EXPECT_TRUE(gate.contains(key)) << key;
    }
  }
  EXPECT_TRUE(scenario["fairness"].contains("jain"));
}

TEST(Cli, ExplainJsonHasTheContractFields) {
  const Outcome outcome = run_qosbench({"explain", kTwoGroups, "--json"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const json explain = json::parse(outcome.out);
  const json& scenario = explain["scenarios"][0];
  EXPECT_EQ(scenario["name"], "two groups");
  EXPECT_DOUBLE_EQ(scenario["capacity_bps"].get<double>(), 100e9);
  ASSERT_EQ(scenario["flows"].size(), 8u);
  EXPECT_EQ(scenario["flows"][0]["name"], "g1-qp#0");
  EXPECT_EQ(scenario["flows"][0]["group"], "g1-qp");
  EXPECT_EQ(scenario["flows"][0]["leaf"], "g1");
  EXPECT_NEAR(scenario["flows"][0]["expected_bps"].get<double>(), 23.976e9, 1.0);
  EXPECT_NEAR(scenario["flows"][4]["expected_bps"].get<double>(), 1.024e9, 1.0);
}

TEST(Cli, ExplainTextNamesTheModelChoices) {
  const Outcome outcome = run_qosbench({"explain", kTwoGroups});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("bw_share 0 (device default) counts as weight 1"), std::string::npos);
  EXPECT_NE(outcome.out.find("wire bytes"), std::string::npos);
}

TEST(Cli, ValidateAcceptsEveryShippedConfig) {
  std::vector<std::string> args{"validate"};
  for (const auto& entry : std::filesystem::directory_iterator(QB_SOURCE_DIR "/configs")) {
    if (entry.path().extension() == ".toml") args.push_back(entry.path().string());
  }
  ASSERT_GE(args.size(), 9u);  // the eight shipped suites
  const Outcome outcome = run_qosbench(args);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
}

TEST(Cli, UnknownKeyIsExitTwoWithFileLineColumnAndKeyPath) {
  const std::string path = write_temp("unknown_key.toml", base_suite("bw_shares = 3\n"));
  const Outcome outcome = run_qosbench({"validate", path});
  EXPECT_EQ(outcome.exit_code, 2);
  // [[flow]] starts on line 12; its fifth key is on line 17.
  EXPECT_NE(outcome.err.find(path + ":17:"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("error: flow[0].bw_shares"), std::string::npos) << outcome.err;
}

TEST(Cli, MalformedTomlIsExitTwoWithLocation) {
  const std::string path = write_temp("malformed.toml", "[suite]\nname = \"x\nseed = 1\n");
  const Outcome outcome = run_qosbench({"run", path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find(path + ":2:"), std::string::npos) << outcome.err;
}

TEST(Cli, TreeErrorsCarryTheKeyPath) {
  const std::string path = write_temp("bad_parent.toml", R"([[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "nowhere"
[[flow]]
name = "f"
leaf = "a"
size = 4096
rate = "saturate"
)");
  const Outcome outcome = run_qosbench({"run", path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find(path + ":5:"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("sched.leaf[0].parent"), std::string::npos) << outcome.err;
}

TEST(Cli, ConfigErrorWritesNoResultsFile) {
  const std::string path = write_temp(
      "zero_rate.toml",
      base_suite().replace(base_suite().find("rate = \"saturate\""), 17, "rate = \"0Gbps\""));
  const std::string json_path = ::testing::TempDir() + "/never.json";
  std::filesystem::remove(json_path);
  const Outcome outcome = run_qosbench({"run", path, "--json", json_path});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("flow[0].rate"), std::string::npos) << outcome.err;
  EXPECT_FALSE(std::filesystem::exists(json_path));
}

TEST(Cli, FailedGateIsExitOne) {
  const std::string path = write_temp("tight_gate.toml", base_suite() + R"([[gates.latency]]
flow = "f"
p99 = "1ns"
)");
  const std::string json_path = ::testing::TempDir() + "/failed_gate.json";
  const Outcome outcome = run_qosbench({"run", path, "--json", json_path});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("FAIL"), std::string::npos);
  const json results = json::parse(read_file(json_path));
  EXPECT_EQ(results["passed"], false);
  // The default judgements come first; the latency gate is the one that failed.
  bool latency_failed = false;
  for (const auto& gate : results["scenarios"][0]["gates"]) {
    if (gate["name"] == "latency.p99[f]") latency_failed = gate["passed"] == false;
  }
  EXPECT_TRUE(latency_failed) << results["scenarios"][0]["gates"].dump();
  EXPECT_NE(results["verdict"]["summary"].get<std::string>().find("FAILED: latency.p99[f]"),
            std::string::npos)
      << results["verdict"].dump();
}

TEST(Cli, UsageErrorsAreExitTwo) {
  EXPECT_EQ(run_qosbench({}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"run", kTwoGroups, "--duration", "soon"}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"run", kTwoGroups, "--driver", "warp-drive"}).exit_code, 2);
  const Outcome missing = run_qosbench({"run", "/nonexistent/suite.toml"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/suite.toml"), std::string::npos);
}

TEST(Cli, UnavailableDriverIsExitThreeAndSaysWhy) {
  const Outcome outcome = run_qosbench({"run", kTwoGroups, "--driver", "verbs"});
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_NE(outcome.err.find("verbs"), std::string::npos) << outcome.err;
}

TEST(Cli, DriversListsTheSimulator) {
  const Outcome outcome = run_qosbench({"drivers"});
  EXPECT_EQ(outcome.exit_code, 0);
  EXPECT_NE(outcome.out.find("sim"), std::string::npos);
  EXPECT_NE(outcome.out.find("available"), std::string::npos);
}

// A suite that cannot fit in memory is refused before anything is compiled or run: exit 2,
// the key that drives it with its file:line:col, nothing written. 40 entries of 65536 flow
// instances (2.6 million flows, about 200 GiB) fit on no machine; 1000 repetitions of 65537
// flows kept with 1000-bin series neither.
TEST(Cli, ARunThatCannotFitInMemoryIsExitTwoNamingTheKey) {
  std::string flows;
  for (int i = 0; i < 40; ++i) {
    flows += "[[flow]]\nname = \"b" + std::to_string(i) +
             "\"\ncount = 65536\nleaf = \"a\"\nsize = 4096\nrate = \"saturate\"\n";
  }
  const std::string many = write_temp("too_many_flows.toml", base_suite() + flows);
  const std::string json_path = ::testing::TempDir() + "/never_memory.json";
  const std::string html_path = ::testing::TempDir() + "/never_memory.html";
  std::filesystem::remove(json_path);
  const Outcome refused = run_qosbench({"run", many, "--json", json_path, "--html", html_path});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  // The first big entry, flow[1], its `count` value on line 19 (after base_suite's 16 lines
  // and the entry's [[flow]] and name lines), column 9.
  EXPECT_NE(refused.err.find(many + ":19:9: error: flow[1].count: the run needs about"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("half of this machine's physical memory"), std::string::npos);
  EXPECT_TRUE(refused.out.empty()) << refused.out;

  std::string reps_suite = base_suite(R"(count = 65536
)");
  reps_suite.replace(reps_suite.find("repetitions = 1"), 15, "repetitions = 1000");
  reps_suite.replace(reps_suite.find("duration = \"5ms\""), 16, "duration = \"1s\"\nbin = \"1ms\"");
  const std::string reps = write_temp("too_many_reps.toml", reps_suite);
  const Outcome repeated = run_qosbench({"run", reps, "--json", json_path});
  EXPECT_EQ(repeated.exit_code, 2) << repeated.err;
  EXPECT_NE(repeated.err.find(reps + ":3:15: error: suite.repetitions: the run needs about"),
            std::string::npos)
      << repeated.err;
  // The command line's --repetitions is named as such.
  const Outcome flag = run_qosbench({"run", reps, "--repetitions", "999", "--json", json_path});
  EXPECT_EQ(flag.exit_code, 2) << flag.err;
  EXPECT_NE(flag.err.find("--repetitions: the run needs about"), std::string::npos) << flag.err;
  EXPECT_FALSE(std::filesystem::exists(json_path));
  EXPECT_FALSE(std::filesystem::exists(html_path));
}

TEST(Cli, CtrlCWritesIncompleteResultsAndExitsThree) {
  const std::string json_path = ::testing::TempDir() + "/interrupted.json";
  std::filesystem::remove(json_path);
  // Long enough that the interrupt lands mid-run on any machine.
  const Outcome outcome = run_qosbench(
      {"run", kTwoGroups, "--duration", "60s", "--repetitions", "1", "--json", json_path}, 700);
  EXPECT_EQ(outcome.exit_code, 3) << outcome.out << outcome.err;
  ASSERT_TRUE(std::filesystem::exists(json_path));
  const json results = json::parse(read_file(json_path));
  EXPECT_EQ(results["complete"], false);
  EXPECT_EQ(results["passed"], false);
  // What a wrapper of mpirun (which turns this exit 3 into 1) reads to tell an interrupt.
  EXPECT_EQ(results["interrupted"], true);
  EXPECT_EQ(results["verdict"]["summary"].get<std::string>().rfind("INTERRUPTED", 0), 0u)
      << results["verdict"]["summary"];
}

// Driver options: each driver checks its own [driver.<name>] table (located errors at
// validate), --driver-option sets a key of the chosen driver's, and a driver's own flag (--eal)
// given for another driver is ignored with a note.
TEST(Cli, DriverOptionsAreCheckedByTheirDriver) {
  const std::string bad =
      write_temp("bad_driver_key.toml", "[driver.sim]\nturbo = true\n" + base_suite());
  const Outcome validated = run_qosbench({"validate", bad});
  EXPECT_EQ(validated.exit_code, 2);
  EXPECT_NE(validated.err.find("bad_driver_key.toml:2:1: error: driver.sim.turbo"),
            std::string::npos)
      << validated.err;
  const std::string unknown =
      write_temp("unknown_driver.toml", "[driver.warp]\nspeed = 9\n" + base_suite());
  const Outcome unknown_driver = run_qosbench({"validate", unknown});
  EXPECT_EQ(unknown_driver.exit_code, 2);
  EXPECT_NE(unknown_driver.err.find("unknown driver 'warp'"), std::string::npos)
      << unknown_driver.err;

  const std::string good = write_temp("driver_options.toml", base_suite());
  const Outcome option = run_qosbench({"run", good, "--quiet", "--driver-option", "turbo=1"});
  EXPECT_EQ(option.exit_code, 2);
  EXPECT_NE(option.err.find("--driver-option turbo"), std::string::npos) << option.err;
  if (run_qosbench({"drivers"}).out.find("dpdk     available") == std::string::npos) {
    GTEST_SKIP() << "the dpdk driver (which declares --eal) is not built";
  }
  const Outcome eal = run_qosbench({"run", good, "--quiet", "--eal", "-l 0"});
  EXPECT_EQ(eal.exit_code, 0) << eal.err;
  EXPECT_NE(eal.err.find("--eal ignored"), std::string::npos) << eal.err;
}

}  // namespace
}  // namespace qb::e2e
