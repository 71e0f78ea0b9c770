// The IB fabric path of configs/fabrics/ib_fat_tree.toml (issue 29 part 9): its LFTs are what
// `import-opensm --fabric-dir --net` prints for the fabric OpenSM configured (captured in
// tests/conformance/examples/fabric-ib-fat-tree), and bad input is exit 2 with file:line:col: a
// truncated or garbage fabric file, a VLArb table naming a VL above the port's VLs (in the suite
// or read back from the fabric), a --net file that is not the fabric. An SL2VL that sends a
// flow's SL to VL15 on one hop drops that flow (docs/opensm-sim.md, "The IB fat tree suite").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "process.hpp"

namespace qb::e2e {
namespace {

using Json = nlohmann::json;

const std::string kFabrics = std::string(QB_SOURCE_DIR) + "/configs/fabrics";
const std::string kSuite = kFabrics + "/ib_fat_tree.toml";
const std::string kNet = kFabrics + "/ib_fat_tree.net";
const std::string kConf = kFabrics + "/ib_fat_tree.opensm.conf";
const std::string kExample =
    std::string(QB_SOURCE_DIR) + "/tests/conformance/examples/fabric-ib-fat-tree";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The shipped suite with its files by absolute path, so a copy elsewhere still finds them.
std::string suite_text() {
  std::string text = read_file(kSuite);
  text = replaced(text, "file = \"ib_fat_tree.net\"", "file = \"" + kNet + "\"");
  text = replaced(text, "\"ib_fat_tree.opensm.conf\"", "\"" + kConf + "\"");
  text = replaced(text, "\"ib_fat_tree.qos-policy.conf\"",
                  "\"" + kFabrics + "/ib_fat_tree.qos-policy.conf\"");
  return text;
}

// A copy of the captured fabric directory with one file replaced.
std::string example_with(const std::string& name, const std::string& file,
                         const std::string& text) {
  const std::string dir = ::testing::TempDir() + "/" + name;
  std::filesystem::create_directories(dir);
  for (const char* f : {"ibnetdiscover.txt", "lfts.txt", "port-tables.txt"}) {
    write_temp(name + "/" + f, file == f ? text : read_file(kExample + "/" + f));
  }
  return dir;
}

TEST(IbFabricInput, TheSuitesLftsAreWhatImportOpensmPrints) {
  const Outcome out = run_qosbench(
      {"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample, "--net", kNet});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find("file = \"" + kNet + "\""), std::string::npos) << out.out;
  const std::string suite = read_file(kSuite);
  const std::regex block(
      "\\[\\[topology\\.lft\\]\\]\nswitch = \"[a-z0-9]+\"\nroutes = \\{[^}]*\\}");
  size_t blocks = 0;
  for (auto it = std::sregex_iterator(out.out.begin(), out.out.end(), block);
       it != std::sregex_iterator(); ++it) {
    ++blocks;
    EXPECT_NE(suite.find(it->str()), std::string::npos) << "not in the suite:\n" << it->str();
  }
  EXPECT_EQ(blocks, 6u);  // 4 leaves, 2 spines
  // The switch tables import-opensm read back are the suite's [ib] switch-external set.
  EXPECT_NE(out.out.find("switch = \"spine1\"\nports = [1, 2, 3, 4]\n"
                         "sl2vl = [0,2,1,3,0,0,0,0,0,0,0,0,0,0,0,0]\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("vlarb_low = [[0, 32], [1, 64], [2, 128], [3, 32]"), std::string::npos);

  const Outcome json = run_qosbench(
      {"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample, "--net", kNet, "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const Json doc = Json::parse(json.out);
  EXPECT_EQ(doc["ports"].size(), 48u);  // 16 CA ports, 4 leaves x 6, 2 spines x 4
  EXPECT_EQ(doc["lfts"]["leaf0"]["h4"], 5);
  EXPECT_EQ(doc["lfts"]["leaf0"]["h5"], 6);
}

TEST(IbFabricInput, ATruncatedOrGarbageFabricFileIsExitTwoAtItsLine) {
  const std::string net = read_file(kNet);
  struct Case {
    std::string name, text, says;
  };
  const Case cases[] = {
      // Cut inside a port line of spine0's record.
      {"ibft_cut.net", net.substr(0, net.find("\"spine0\"[2]") + 5),
       "ibft_cut.net:68:5: error: topology.file: the remote node id has no closing quote"},
      // Cut before the spines' records: the leaves' uplinks name unknown nodes.
      {"ibft_no_spines.net", net.substr(0, net.find("Switch\t4 \"spine0\"")),
       "ibft_no_spines.net:60:1: error: topology.file: a link to an unknown node 'spine0'"},
      {"ibft_nul.net", replaced(net, "[3]\t\"h10\"[1]", std::string("[3]\t\"h10\"\0[1]", 13)),
       "ibft_nul.net:74:10: error: topology.file: a NUL byte"},
      {"ibft_words.net", replaced(net, "Switch\t6 \"leaf1\"", "Swtich\t6 \"leaf1\""),
       "ibft_words.net:63:1: error: topology.file: unknown node type 'Swtich'"},
  };
  for (const Case& c : cases) {
    const std::string path = write_temp(c.name, c.text);
    const std::string suite =
        write_temp(c.name + ".toml",
                   replaced(suite_text(), "file = \"" + kNet + "\"", "file = \"" + path + "\""));
    const Outcome out = run_qosbench({"validate", suite});
    EXPECT_EQ(out.exit_code, 2) << c.name << out.out << out.err;
    EXPECT_NE(out.err.find(c.says), std::string::npos) << c.name << ": " << out.err;
  }
}

TEST(IbFabricInput, AVlArbVlAboveThePortsVlsIsExitTwoAtItsKey) {
  // In the suite: a switch's override and the suite-wide [ib] tables.
  std::string text = replaced(suite_text(), "\n[[flow]]",
                              "\n[[topology.switch_qos]]\nswitch = \"leaf1\"\nvlarb_low = "
                              "\"1:64,9:64\"\n\n[[flow]]");
  Outcome out = run_qosbench({"validate", write_temp("ibft_vlcap_switch.toml", text)});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_TRUE(
      std::regex_search(out.err, std::regex("ibft_vlcap_switch\\.toml:[0-9]+:19: error: "
                                            "topology\\.switch_qos\\[0\\]\\.vlarb_low\\[1\\]: "
                                            "VL 9 is not operational on the port")))
      << out.err;
  text = replaced(suite_text(), "qos_policy = ", "vlarb_low = [[1, 64], [8, 32]]\nqos_policy = ");
  out = run_qosbench({"validate", write_temp("ibft_vlcap_ib.toml", text)});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  const size_t key = text.find("vlarb_low = [[1, 64]");
  const auto key_line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(key), '\n');
  EXPECT_NE(out.err.find("ibft_vlcap_ib.toml:" + std::to_string(key_line) +
                         ":23: error: ib.vlarb_low[1]: VL 8 is not operational on the port "
                         "(op_vls 4 = VL0-VL7)"),
            std::string::npos)
      << out.err;

  // Read back from the fabric: spine1 port 1's low table (the file's 2nd-to-last port) with VL 9.
  std::string ports = read_file(kExample + "/port-tables.txt");
  const size_t port_at = ports.find("### node \"S-0000000000200005\" port 1");
  ASSERT_NE(port_at, std::string::npos);
  const size_t row = ports.find("VL    : |0x0 |0x1 |", port_at);
  ASSERT_NE(row, std::string::npos);
  ports.replace(row + 14, 3, "0x9");
  const size_t line = 1 + static_cast<size_t>(std::count(ports.begin(), ports.begin() + row, '\n'));
  out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir",
                      example_with("ibft_vl9", "port-tables.txt", ports)});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("port-tables.txt:" + std::to_string(line) +
                         ":15: error: node \"S-0000000000200005\" port 1: the VLArb low table's "
                         "entry 1 names VL 9, above the port's operational VLs (VL0-VL7)"),
            std::string::npos)
      << out.err;
  // An SL2VL cell too (15, drop, is a VL any port has).
  ports = read_file(kExample + "/port-tables.txt");
  const size_t sl2vl = ports.find("ports: in  0, out  1: | 0| 2|", port_at);
  ASSERT_NE(sl2vl, std::string::npos);
  ports.replace(sl2vl + 26, 2, "11");
  out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir",
                      example_with("ibft_sl2vl11", "port-tables.txt", ports)});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find(":27: error: node \"S-0000000000200005\" port 1 (input port 0): SL2VL "
                         "sends SL 1 to VL 11"),
            std::string::npos)
      << out.err;
}

TEST(IbFabricInput, ANetFileThatIsNotTheFabricIsExitTwo) {
  const std::string net = read_file(kNet);
  // h0 and h1 swapped on leaf0 in the file: a cable disagrees with what was discovered.
  std::string swapped =
      replaced(net, "[1]\t\"h0\"[1]\n[2]\t\"h1\"[1]", "[1]\t\"h1\"[1]\n[2]\t\"h0\"[1]");
  swapped =
      replaced(swapped, "Hca\t1 \"h0\"\n[1]\t\"leaf0\"[1]", "Hca\t1 \"h0\"\n[1]\t\"leaf0\"[2]");
  swapped =
      replaced(swapped, "Hca\t1 \"h1\"\n[1]\t\"leaf0\"[2]", "Hca\t1 \"h1\"\n[1]\t\"leaf0\"[1]");
  Outcome out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample,
                              "--net", write_temp("ibft_swapped.net", swapped)});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_TRUE(std::regex_search(
      out.err,
      std::regex("ibnetdiscover\\.txt:[0-9]+:[0-9]+: error: --net: port [12] of \"(leaf0|h0|h1)\" "
                 "leads to \"[a-z0-9]+\"\\[[12]\\] here, but to \"[a-z0-9]+\"\\[[12]\\] in")))
      << out.err;
  // A file with other names: the discovered descriptions name no node of it.
  out =
      run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample, "--net",
                    std::string(QB_SOURCE_DIR) + "/tests/conformance/fabrics/fat-tree-2level.net"});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("(description \""), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("fat-tree-2level.net"), std::string::npos) << out.err;
  // Garbage: the file's own line and column.
  out = run_qosbench({"import-opensm", "--opensm-conf", kConf, "--fabric-dir", kExample, "--net",
                      write_temp("ibft_garbage.net", "Switch 4 \"leaf0\"\n[1] \"h0\"[1\n")});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("ibft_garbage.net:2:11: error: expected ']'"), std::string::npos)
      << out.err;
}

// SL 3 (bulk) -> VL15 at spine0 only: the one bulk flow through spine0 (up-bulk) is dropped;
// the others meet their expectation, and up-storage:up-mpi is 2:1 at leaf0's uplink without it.
TEST(IbFabricInput, AnSl2vlToVl15OnOneHopDropsThatFlow) {
  std::string text = replaced(suite_text(), "\n[[flow]]",
                              "\n[[topology.switch_qos]]\nswitch = \"spine0\"\nsl2vl = "
                              "[0,2,1,15,0,0,0,0,0,0,0,0,0,0,0,0]\n\n[[flow]]");
  text = replaced(text, "repetitions = 3", "repetitions = 1");
  text = replaced(text, "duration = \"20ms\"", "duration = \"5ms\"");
  const std::string suite = write_temp("ibft_vl15.toml", text);
  const Outcome explained = run_qosbench({"explain", suite, "--json"});
  ASSERT_EQ(explained.exit_code, 0) << explained.err;
  const Json explanation = Json::parse(explained.out);  // alive while its flows are read
  for (const Json& flow : explanation["scenarios"][0]["flows"]) {
    const bool through_spine0 = flow["name"] == "up-bulk";
    EXPECT_EQ(flow["dropped"].get<bool>(), through_spine0) << flow["name"];
    if (through_spine0) {
      EXPECT_EQ(flow["expected_bps"].get<double>(), 0.0);
      EXPECT_NE(flow["class_note"].get<std::string>().find(
                    "SL2VL of spine0:3->leaf2:5 sends SL 3 to VL15: dropped"),
                std::string::npos)
          << flow["class_note"];
    }
  }
  const std::string json = ::testing::TempDir() + "/ibft_vl15.json";
  const Outcome run = run_qosbench({"run", suite, "--json", json, "--quiet"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json results = Json::parse(read_file(json));
  std::map<std::string, double> measured;
  for (const Json& flow : results["scenarios"][0]["flows"]) {
    const std::string name = flow["name"].get<std::string>();
    measured[name] = flow["measured_bps"].get<double>();
    if (name == "up-bulk") {
      EXPECT_EQ(flow["measured_bps"].get<double>(), 0.0);
      EXPECT_GT(flow["drops"].get<double>(), 0.0);
    } else {
      EXPECT_NEAR(flow["error"].get<double>(), 0.0, 0.01) << name;
    }
  }
  EXPECT_NEAR(measured["up-storage"] / measured["up-mpi"], 2.0, 0.02);
}

}  // namespace
}  // namespace qb::e2e
