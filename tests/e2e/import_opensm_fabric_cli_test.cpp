// `qosbench import-opensm --fabric-dir` (issue 29 part 6) on what scripts/opensm-fabric.sh read
// from ibsim's net.2sw2path4hca after OpenSM configured it (tests/conformance/examples/
// fabric-2sw2path4hca), and `validate` on per-switch QoS: good input gives a suite the loader
// accepts; bad input is exit 2 with file:line:col.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "process.hpp"

namespace qb::e2e {
namespace {

const std::string kExample =
    std::string(QB_SOURCE_DIR) + "/tests/conformance/examples/fabric-2sw2path4hca";
const std::string kConf = std::string(QB_SOURCE_DIR) + "/tests/conformance/configs/fabric-per-type.conf";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A copy of the example directory with one file replaced.
std::string example_with(const std::string& name, const std::string& file, const std::string& text) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::create_directories(dir);
  for (const char* f : {"ibnetdiscover.txt", "lfts.txt", "port-tables.txt"}) {
    std::ofstream(dir + "/" + f) << (file == f ? text : slurp(kExample + "/" + f));
  }
  return dir;
}

TEST(ImportOpensmFabric, WritesASuiteTheLoaderAccepts) {
  const Outcome out =
      run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("routing = \"lft\""), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("[[topology.switch_qos]]"), std::string::npos);
  EXPECT_NE(out.out.find("sl2vl = [1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0]"), std::string::npos)
      << "the switch-external SL2VL of fabric-per-type.conf";
  const std::string suite = write_temp("opensm_fabric_suite.toml", out.out);
  // Loaded, checked and compiled: every LFT routes every host pair, every table fits its port.
  const Outcome checked = run_qosbench({"validate", suite});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("ok (1 scenario, 12 flows)"), std::string::npos) << checked.out;

  const Outcome json = run_qosbench(
      {"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["ports"].size(), 12u);  // 4 CA ports, 2 switches x 4 connected ports
  EXPECT_EQ(doc["lfts"].size(), 2u);
  int ca = 0;
  for (const auto& port : doc["ports"]) ca += port["type"] == "ca" ? 1 : 0;
  EXPECT_EQ(ca, 4);
}

TEST(ImportOpensmFabric, GarbageDiagOutputIsExitTwoAtItsLine) {
  std::string lfts = slurp(kExample + "/lfts.txt");
  lfts.replace(lfts.find("0x0004 "), 7, "0x0004 x");
  std::string dir = example_with("fabric_bad_lfts", "lfts.txt", lfts);
  Outcome out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", dir});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("lfts.txt:7:8: error: expected the output port"), std::string::npos)
      << out.err;

  std::string ports = slurp(kExample + "/port-tables.txt");
  ports.replace(ports.find("out  1: | 1|") + 8, 4, "| x|");
  dir = example_with("fabric_bad_ports", "port-tables.txt", ports);
  out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", dir});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("port-tables.txt:4:"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("'x' is not a number"), std::string::npos) << out.err;

  dir = example_with("fabric_unknown_node", "port-tables.txt",
                     "### node \"S-00000000deadbeef\" port 1\nports: in  0, out  1: | 0| 1| 2| 3| "
                     "4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|\n");
  out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", dir});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("port-tables.txt:1:1: error: node \"S-00000000deadbeef\" is not in"),
            std::string::npos)
      << out.err;

  out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir",
                      ::testing::TempDir() + "/no-such-fabric-dir"});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("cannot read"), std::string::npos) << out.err;
}

TEST(ImportOpensmFabric, BadSwitchQosIsExitTwoAtItsKey) {
  const std::string suite = write_temp("switch_qos_bad.toml", R"([port]
transport = "rocev2"

[eth]
trust = "dscp"

[topology]
kind = "leaf_spine"

[[topology.switch_qos]]
switch = "spine9"
prio_tc = [0, 1, 2, 3, 4, 5, 6, 7]

[[flow]]
name = "x"
size = "4KiB"
rate = "saturate"
from = "h0"
to = "h3"
)");
  const Outcome out = run_qosbench({"validate", suite});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("switch_qos_bad.toml:10:1: error: topology.switch_qos[0]: 'spine9' "
                         "matches no switch"),
            std::string::npos)
      << out.err;
}

}  // namespace
}  // namespace qb::e2e

namespace qb::e2e {
namespace {

// Two hosts' flows (TC1, TC2 by DSCP) share s0 -> s1. The suite's [eth] weighs them equally;
// switch s0's override 25:75. The simulator runs each port by its own QoS and measures what the
// expectation says: 25/75 with the override, 50/50 without.
constexpr const char* kPerSwitchEts = R"([suite]
name = "per-switch ets"
seed = 1
repetitions = 1
warmup = "1ms"
duration = "10ms"

[port]
transport = "rocev2"

[eth]
trust = "dscp"
dscp2prio = { "8" = 1, "16" = 2 }
prio_tc = [0, 1, 2, 3, 4, 5, 6, 7]
tsa = ["ets", "ets", "ets", "vendor", "vendor", "vendor", "vendor", "vendor"]
ets = [34, 33, 33, 0, 0, 0, 0, 0]

[topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s0" }, { name = "s1" }]
host = [{ name = "a" }, { name = "b" }, { name = "r" }]
link = [{ ends = ["a", "s0"] }, { ends = ["b", "s0"] }, { ends = ["s0", "s1"] }, { ends = ["r", "s1"] }]

[[flow]]
name = "tc1"
size = "64KiB"
rate = "saturate"
dscp = 8
from = "a"
to = "r"

[[flow]]
name = "tc2"
size = "64KiB"
rate = "saturate"
dscp = 16
from = "b"
to = "r"
)";

std::pair<double, double> measured_gbps(const std::string& json_path) {
  std::ifstream in(json_path);
  const auto doc = nlohmann::json::parse(in);
  double rates[2] = {0.0, 0.0};
  for (const auto& flow : doc["scenarios"][0]["flows"]) {
    const int i = flow["name"] == "tc1" ? 0 : 1;
    rates[i] = flow["measured_bps"].get<double>() / 1e9;  // wire
  }
  return {rates[0], rates[1]};
}

TEST(PerSwitchQosRun, TheSimulatorArbitratesEachSwitchByItsOwnQos) {
  const std::string plain = write_temp("per_switch_plain.toml", kPerSwitchEts);
  const std::string over = write_temp("per_switch_override.toml", std::string(kPerSwitchEts) + R"(
[[topology.switch_qos]]
switch = "s0"
tsa = ["strict", "ets", "ets", "vendor", "vendor", "vendor", "vendor", "vendor"]
ets = [0, 25, 75, 0, 0, 0, 0, 0]
)");
  for (const auto& [suite, want1, want2] :
       {std::tuple{plain, 50.0, 50.0}, std::tuple{over, 25.0, 75.0}}) {
    const std::string json = suite + ".json";
    const Outcome out = run_qosbench({"run", suite, "--jobs", "1", "--json", json});
    ASSERT_EQ(out.exit_code, 0) << out.out << out.err;
    const auto [tc1, tc2] = measured_gbps(json);
    EXPECT_NEAR(tc1, want1, want1 * 0.01) << suite;
    EXPECT_NEAR(tc2, want2, want2 * 0.01) << suite;
  }
}

}  // namespace
}  // namespace qb::e2e
