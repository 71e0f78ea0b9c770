// `qosbench run A.toml B.toml … --out DIR`: every suite checked before the first runs, each
// suite's results in DIR/<suite file name>.json equal to running it alone, the worst exit code,
// and the flags that name one file refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "one_flow_suite.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

const std::string kTwoGroups = QB_SOURCE_DIR "/configs/mlx5_two_groups.toml";
const std::string kThreeLevels = QB_SOURCE_DIR "/configs/three_level_caps.toml";

// A small suite whose latency gate cannot pass (exit 1 alone).
std::string failing_suite() {
  OneFlow suite;
  suite.name = "failing";
  suite.duration = "2ms";
  suite.extra = "[[gates.latency]]\nflow = \"f\"\np99 = \"1ns\"\n";
  return write_temp("several_failing.toml", one_flow_suite(suite));
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

// The results without what differs between any two runs (as scripts/same_results_diff.py).
json comparable(json value) {
  if (value.is_object()) {
    for (const char* key : {"host", "date", "tool_version", "wall_seconds"}) value.erase(key);
    for (auto& [key, item] : value.items()) item = comparable(item);
  } else if (value.is_array()) {
    for (json& item : value) item = comparable(item);
  }
  return value;
}

TEST(SeveralSuites, EachSuiteWritesItsOwnResultsEqualToARunAlone) {
  const std::string dir = fresh_dir("several_out");
  const Outcome together =
      run_qosbench({"run", kTwoGroups, kThreeLevels, "--duration", "5ms", "--out", dir});
  ASSERT_EQ(together.exit_code, 0) << together.out << together.err;
  EXPECT_NE(together.out.find("2 suites: 2 passed, 0 did not"), std::string::npos) << together.out;
  for (const auto& [suite, name] :
       {std::pair{kTwoGroups, "mlx5_two_groups"}, std::pair{kThreeLevels, "three_level_caps"}}) {
    SCOPED_TRACE(name);
    const std::string alone_path = ::testing::TempDir() + "/alone_" + name + ".json";
    const Outcome alone =
        run_qosbench({"run", suite, "--duration", "5ms", "--json", alone_path, "--quiet"});
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    const json mine = json::parse(read_file(dir + "/" + name + ".json"));
    EXPECT_EQ(comparable(mine), comparable(json::parse(read_file(alone_path))));
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/results.json"));
}

TEST(SeveralSuites, TheWorstExitCodeWinsAndEverySuiteStillRuns) {
  const std::string dir = fresh_dir("several_worst");
  const Outcome outcome = run_qosbench(
      {"run", failing_suite(), kTwoGroups, "--duration", "5ms", "--out", dir, "--interval", "0"});
  EXPECT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("2 suites: 1 passed, 1 did not"), std::string::npos) << outcome.out;
  EXPECT_EQ(json::parse(read_file(dir + "/several_failing.json"))["passed"], false);
  EXPECT_EQ(json::parse(read_file(dir + "/mlx5_two_groups.json"))["passed"], true);
}

TEST(SeveralSuites, ABadFileAnywhereStopsThemAllBeforeAnyRuns) {
  const std::string bad = write_temp("several_bad.toml",
                                     "[suite]\nname = \"bad\"\n[port]\n"
                                     "rate = \"fast\"\n");
  const std::string dir = fresh_dir("several_bad_out");
  const Outcome outcome = run_qosbench({"run", kTwoGroups, bad, "--out", dir});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.out << outcome.err;
  EXPECT_NE(outcome.err.find("several_bad.toml:4:8: error: port.rate"), std::string::npos)
      << outcome.err;
  // The good suite, first on the line, did not run: nothing written, not even the directory.
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_EQ(outcome.out.find("PASSED"), std::string::npos) << outcome.out;
}

TEST(SeveralSuites, FlagsThatNameOneFileOrTwoSuitesOfOneNameAreUsageErrors) {
  const std::string dir = fresh_dir("several_usage");
  for (const char* flag : {"--json", "--html", "--junit", "--baseline"}) {
    SCOPED_TRACE(flag);
    const Outcome outcome =
        run_qosbench({"run", kTwoGroups, kThreeLevels, flag, dir + "/one_file", "--out", dir});
    EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
    EXPECT_NE(outcome.err.find(std::string(flag) + " names one file"), std::string::npos)
        << outcome.err;
  }
  Outcome outcome = run_qosbench({"run", kTwoGroups, kThreeLevels});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("give --out DIR"), std::string::npos) << outcome.err;
  outcome = run_qosbench({"run", kTwoGroups, kTwoGroups, "--out", dir});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
  EXPECT_NE(outcome.err.find("mlx5_two_groups.json"), std::string::npos) << outcome.err;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
}  // namespace qb::e2e
