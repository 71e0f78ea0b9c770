// import-opensm and suites agree: max_op_vls in opensm.conf lowers the operational VLs when
// --op-vls is not given (as OpenSM sets OperationalVLs = min(VLCap, max_op_vls)), and the [ib]
// block --emit-suite prints, pasted into a suite, programs the NIC with the same tables that
// import-opensm --json printed.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "process.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

std::string write(const std::string& name, const std::string& text) {
  const std::string path =
      ::testing::TempDir() + "/qb_import_suite_" + std::to_string(::getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

// VLs 0..7 in every table: with max_op_vls 2 OpenSM masks them to VL0-1.
const std::string kConf =
    "qos TRUE\n"
    "max_op_vls 2\n"
    "qos_ca_high_limit 10\n"
    "qos_ca_vlarb_high 0:8,3:16\n"
    "qos_ca_vlarb_low 0:0,1:64,2:128,3:192,5:32,7:8\n"
    "qos_ca_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\n";

json import_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args{"import-opensm", "--opensm-conf", write("max_op_vls.conf", kConf),
                                "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Outcome outcome = run_qosbench(args);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  return json::parse(outcome.out);
}

TEST(ImportOpensmSuite, MaxOpVlsLowersTheVlsWhenOpVlsIsNotGiven) {
  const json from_file = import_json({});
  // SL2VL masked to VL0-1 (OpenSM: vl & mask), not the VL0-7 of the default VLCap.
  EXPECT_EQ(from_file["sl2vl"], json::parse("[0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,1]")) << from_file;
  const json explicit_four = import_json({"--op-vls", "4"});
  EXPECT_EQ(explicit_four["sl2vl"], json::parse("[0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7]"));
  // The text says where the VLs came from.
  const Outcome text =
      run_qosbench({"import-opensm", "--opensm-conf", write("max_op_vls_text.conf", kConf)});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("operational VLs 2 (VL0-VL1) = min(VLCap 4, max_op_vls 2 in opensm.conf)"),
      std::string::npos)
      << text.out;
}

TEST(ImportOpensmSuite, MaxOpVlsOutOfRangeWarnsAndKeepsTheDefault) {
  const Outcome outcome =
      run_qosbench({"import-opensm", "--opensm-conf",
                    write("bad_op_vls.conf", "qos TRUE\nmax_op_vls 9\n"), "--json"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.err.find(":2: warning: max_op_vls=9 is not 1-5"), std::string::npos)
      << outcome.err;
  EXPECT_EQ(json::parse(outcome.out)["sl2vl"].size(), 16u);
}

// The round trip: --emit-suite's block in a suite gives the tables import-opensm printed.
TEST(ImportOpensmSuite, EmittedBlockInASuiteGivesTheSameTables) {
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{}, {"--op-vls", "3", "--vlarb-low-cap", "4"}}) {
    SCOPED_TRACE(extra.empty() ? "defaults" : "--op-vls 3 --vlarb-low-cap 4");
    const std::string conf = write("round_trip.conf", kConf);
    std::vector<std::string> args{"import-opensm", "--opensm-conf", conf};
    args.insert(args.end(), extra.begin(), extra.end());
    std::vector<std::string> emit_args = args;
    emit_args.push_back("--emit-suite");
    const Outcome emitted = run_qosbench(emit_args);
    ASSERT_EQ(emitted.exit_code, 0) << emitted.err;
    EXPECT_NE(emitted.out.find("opensm_conf = \""), std::string::npos) << emitted.out;
    args.push_back("--json");
    const Outcome printed = run_qosbench(args);
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    const json tables = json::parse(printed.out);

    const std::string suite_path = write("round_trip.toml", R"([suite]
name = "round trip"
[port]
transport = "ib"
)" + emitted.out + R"(
[[flow]]
name = "f"
sl = 1
size = 4096
rate = "saturate"
)");
    auto suite = suite::load_suite_file(suite_path);
    ASSERT_TRUE(suite.ok()) << suite.error().to_string();
    std::vector<Warning> warnings;
    auto compiled = suite::compile_suite(*suite, warnings);
    ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
    const policy::IbPortQos& nic = (*compiled)[0].plan.nic_qos.ib.tables;
    EXPECT_EQ(json(nic.sl2vl), tables["sl2vl"]);
    json high = json::array(), low = json::array();
    for (const auto& e : nic.vlarb_high) high.push_back({e.vl, e.weight});
    for (const auto& e : nic.vlarb_low) low.push_back({e.vl, e.weight});
    EXPECT_EQ(high, tables["vlarb_high"]);
    EXPECT_EQ(low, tables["vlarb_low"]);
    EXPECT_EQ(json(nic.high_limit), tables["high_limit"]);
  }
}

}  // namespace
}  // namespace qb::e2e
