// qosbench import-opensm as a user meets it: the JSON contract ({"sl2vl":[16], "vlarb_high":
// [[vl,weight],...], "vlarb_low":[...], "high_limit":N}, tables as long as the port holds), the
// text form, OpenSM-style warnings on stderr and exit 2 with file:line:col for bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

std::string write_conf(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/qb_import_opensm_" + name;
  std::ofstream(path) << text;
  return path;
}

// OpenSM's QoS_management_in_OpenSM.txt example, plus qos TRUE.
const std::string kDocExample =
    "qos TRUE\n"
    "qos_ca_max_vls 15\n"
    "qos_ca_high_limit 6\n"
    "qos_ca_vlarb_high 0:4\n"
    "qos_ca_vlarb_low 0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64\n"
    "qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\n";

TEST(ImportOpensmCli, JsonHasTheContractShapeForTheDocumentExample) {
  const std::string conf = write_conf("doc.conf", kDocExample);
  const Outcome outcome = run_qosbench({"import-opensm", "--opensm-conf", conf, "--json"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(outcome.err, "");
  const json out = json::parse(outcome.out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out["sl2vl"], json::parse("[0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7]"));  // op VLs 4: VL0-7
  EXPECT_EQ(out["vlarb_high"], json::parse("[[0,4],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0],[0,0]]"));
  EXPECT_EQ(out["vlarb_low"],
            json::parse("[[0,0],[1,64],[2,128],[3,192],[4,0],[5,64],[6,64],[7,64]]"));
  EXPECT_EQ(out["high_limit"], 6);
}

TEST(ImportOpensmCli, PortTypeOperationalVlsAndCapacitiesShapeTheTables) {
  const std::string conf = write_conf("swe.conf", kDocExample + "qos_swe_vlarb_low 5:10,14:20\n");
  const Outcome outcome =
      run_qosbench({"import-opensm", "--opensm-conf", conf, "--port-type", "swe", "--op-vls", "3",
                    "--vlarb-high-cap", "1", "--vlarb-low-cap", "3", "--json"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const json out = json::parse(outcome.out);
  EXPECT_EQ(out["vlarb_high"], json::parse("[[0,4]]"));
  EXPECT_EQ(out["vlarb_low"], json::parse("[[1,10],[2,20],[0,0]]"));  // masked by 3 (VL0-3)
  EXPECT_EQ(out["high_limit"], 0);                                    // swe: built-in default
  EXPECT_EQ(out["sl2vl"][15], 3);
}

TEST(ImportOpensmCli, TextFormNamesTheTables) {
  const std::string conf = write_conf("text.conf", kDocExample);
  const Outcome outcome = run_qosbench({"import-opensm", "--opensm-conf", conf});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("high_limit: 6"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("vlarb_low  (8 entries, vl:weight): 0:0 1:64 2:128 3:192"),
            std::string::npos)
      << outcome.out;
}

TEST(ImportOpensmCli, OutOfRangeValuesWarnWithFileAndLineAndStillPrint) {
  const std::string conf = write_conf("warn.conf", "qos TRUE\nqos_high_limit 300\n");
  const Outcome outcome = run_qosbench({"import-opensm", "--opensm-conf", conf, "--json"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.err.find(conf + ":2: warning: qos_high_limit=300"), std::string::npos)
      << outcome.err;
  EXPECT_EQ(json::parse(outcome.out)["high_limit"], 0);
}

TEST(ImportOpensmCli, MalformedOptionExitsTwoWithLineAndColumn) {
  const std::string conf = write_conf("bad.conf", "qos TRUE\nqos_ca_max_vls eight\n");
  const Outcome outcome = run_qosbench({"import-opensm", "--opensm-conf", conf, "--json"});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_EQ(outcome.out, "");
  EXPECT_NE(outcome.err.find(conf + ":2:16: error: qos_ca_max_vls"), std::string::npos)
      << outcome.err;
}

TEST(ImportOpensmCli, UnreadableFileAndBadPortExitTwo) {
  EXPECT_EQ(run_qosbench({"import-opensm", "--opensm-conf", "/nonexistent/opensm.conf"}).exit_code,
            2);
  const std::string conf = write_conf("ok.conf", kDocExample);
  EXPECT_EQ(run_qosbench({"import-opensm", "--opensm-conf", conf, "--op-vls", "0"}).exit_code, 2);
  EXPECT_EQ(
      run_qosbench({"import-opensm", "--opensm-conf", conf, "--vlarb-low-cap", "65"}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"import-opensm", "--opensm-conf", conf, "--port-type", "hca"}).exit_code,
            2);
}

TEST(ImportOpensmCli, QosPolicyWithoutDefaultLevelExitsTwoWithAc10) {
  const std::string conf = write_conf("pol.conf", kDocExample);
  const std::string bad = write_conf("no_default.policy", "qos-ulps\n  sdp : 1\nend-qos-ulps\n");
  const Outcome outcome =
      run_qosbench({"import-opensm", "--opensm-conf", conf, "--qos-policy", bad, "--json"});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_EQ(outcome.out, "");
  EXPECT_NE(outcome.err.find(bad + ":1:1: error: AC10"), std::string::npos) << outcome.err;

  const std::string good =
      write_conf("default.policy", "qos-ulps\n  default : 2\n  sdp : 1\nend-qos-ulps\n");
  const Outcome ok = run_qosbench({"import-opensm", "--opensm-conf", conf, "--qos-policy", good});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("2 qos-ulps rules, default SL 2"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace qb::e2e
