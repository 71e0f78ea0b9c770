// `qosbench import-opensm --fabric-dir` (issue 29 part 6) on what scripts/opensm-fabric.sh read
// from ibsim's net.2sw2path4hca after OpenSM configured it (tests/conformance/examples/
// fabric-2sw2path4hca), and `validate` on per-switch QoS: good input gives a suite the loader
// accepts; bad input is exit 2 with file:line:col.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

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
  const Outcome checked = run_qosbench({"validate", suite});
  // Loaded and checked (every LFT, table and override); not compiled until the graph simulator.
  EXPECT_EQ(checked.exit_code, 3) << checked.out << checked.err;
  EXPECT_NE(checked.err.find("not compiled or run yet"), std::string::npos) << checked.err;

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
