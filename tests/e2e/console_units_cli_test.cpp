// What a perftest or iperf3 user reads on the console: goodput (payload) and wire rate side by
// side with the basis in the header, packets/s, --units gbit|gbyte|mpps on run and report, both
// latencies labelled; the rate spellings of other tools in a suite; "4k" refused as a size.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "process.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

// One CBR flow whose rate is payload, written the way iperf3 users write it.
std::string cbr_suite(const std::string& rate, const std::string& size) {
  return R"([suite]
name = "units"
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
size = )" +
         size + R"(
rate = ")" +
         rate + R"("
)";
}

// The console row of flow "f": its whitespace-separated cells.
std::vector<std::string> row_of(const std::string& out, const std::string& first) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::vector<std::string> row;
    std::string cell;
    while (cells >> cell) row.push_back(cell);
    if (!row.empty() && row[0] == first) return row;
  }
  return {};
}

struct UnitsRun {
  Outcome outcome;
  json flow;
};

UnitsRun run_units(const std::string& suite, const std::vector<std::string>& extra) {
  const std::string json_path =
      ::testing::TempDir() + "/qb_units_" + std::to_string(::getpid()) + ".json";
  std::vector<std::string> args{"run", suite, "--json", json_path};
  args.insert(args.end(), extra.begin(), extra.end());
  UnitsRun run{run_qosbench(args), {}};
  if (run.outcome.exit_code == 0)
    run.flow = json::parse(read_file(json_path))["scenarios"][0]["flows"][0];
  return run;
}

double mpps_of(const json& flow) {
  const double bytes_per_packet = flow["wire_bytes"].get<double>() / flow["packets"].get<double>();
  return flow["measured_bps"].get<double>() / 8.0 / bytes_per_packet / 1e6;
}

TEST(ConsoleUnits, GoodputAndWireSideBySideWithTheirBasis) {
  // "2G" is iperf3's spelling of 2 Gbit/s; the rate is payload, the wire carries more.
  const std::string suite = write_temp("units_default.toml", cbr_suite("2G", "1024"));
  const UnitsRun run = run_units(suite, {});
  ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.err;
  const std::string& out = run.outcome.out;
  for (const char* label : {"wire Gbit/s", "payload Gbit/s", "Mpps", "goodput",
                            "latency from scheduled send", "from actual send"}) {
    EXPECT_NE(out.find(label), std::string::npos) << label << "\n" << out;
  }
  const auto row = row_of(out, "f");
  ASSERT_GE(row.size(), 11u) << out;
  // flow leaf expected measured error goodput Mpps p50 p99 p99.9 p99(from sent)
  EXPECT_EQ(row[3], fmt::format("{:.3f}", run.flow["measured_bps"].get<double>() / 1e9)) << out;
  EXPECT_EQ(row[5], fmt::format("{:.3f}", run.flow["measured_payload_bps"].get<double>() / 1e9))
      << out;
  EXPECT_EQ(row[5], "2.000") << out;         // the payload rate the suite asked for
  EXPECT_GT(std::stod(row[3]), 2.0) << out;  // the wire carries headers too
  EXPECT_EQ(row[6], fmt::format("{:.4f}", mpps_of(run.flow))) << out;
}

TEST(ConsoleUnits, UnitsPickGigabytesOrPacketsOnRunAndReport) {
  const std::string suite = write_temp("units_pick.toml", cbr_suite("2Gb/s", "1024"));
  const UnitsRun gbyte = run_units(suite, {"--units", "gbyte"});
  ASSERT_EQ(gbyte.outcome.exit_code, 0) << gbyte.outcome.err;
  EXPECT_NE(gbyte.outcome.out.find("wire GB/s"), std::string::npos) << gbyte.outcome.out;
  auto row = row_of(gbyte.outcome.out, "f");
  ASSERT_GE(row.size(), 7u);
  EXPECT_EQ(row[3], fmt::format("{:.4f}", gbyte.flow["measured_bps"].get<double>() / 8e9));
  EXPECT_EQ(row[5], fmt::format("{:.4f}", gbyte.flow["measured_payload_bps"].get<double>() / 8e9));
  EXPECT_NEAR(std::stod(row[5]), 0.25, 0.001);  // 2 Gbit/s of payload

  const UnitsRun mpps = run_units(suite, {"--units", "Mpps"});
  ASSERT_EQ(mpps.outcome.exit_code, 0) << mpps.outcome.err;
  row = row_of(mpps.outcome.out, "f");
  ASSERT_GE(row.size(), 7u);
  EXPECT_EQ(row[3], fmt::format("{:.4f}", mpps_of(mpps.flow))) << mpps.outcome.out;
  // The JSON keeps bit/s whatever the console shows.
  EXPECT_EQ(mpps.flow["measured_bps"], gbyte.flow["measured_bps"]);

  // report: silent without --units; with it, the same table from the results file.
  const std::string json_path =
      ::testing::TempDir() + "/qb_units_" + std::to_string(::getpid()) + ".json";
  const std::string html = ::testing::TempDir() + "/qb_units_report.html";
  const Outcome silent = run_qosbench({"report", json_path, "-o", html});
  ASSERT_EQ(silent.exit_code, 0) << silent.err;
  EXPECT_EQ(silent.out, "");
  const Outcome table = run_qosbench({"report", json_path, "-o", html, "--units", "mpps"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(row_of(table.out, "f"), row) << table.out;
}

TEST(ConsoleUnits, UnknownUnitIsAUsageError) {
  const Outcome outcome = run_qosbench(
      {"run", write_temp("units_bad.toml", cbr_suite("2G", "64")), "--units", "furlongs"});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("--units"), std::string::npos) << outcome.err;
}

TEST(ConsoleUnits, OtherToolsRateSpellingsRun) {
  for (const char* rate : {"2gbit", "2GbE", "2Gbit/s", "2G"}) {
    SCOPED_TRACE(rate);
    const UnitsRun run = run_units(write_temp("units_spelling.toml", cbr_suite(rate, "1024")), {});
    ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.err;
    EXPECT_NEAR(run.flow["measured_payload_bps"].get<double>(), 2e9, 2e9 * 0.01);
  }
}

TEST(ConsoleUnits, BareKiloSizeIsAnErrorAtItsKey) {
  const std::string path = write_temp("units_4k.toml", cbr_suite("2G", "\"4k\""));
  const Outcome outcome = run_qosbench({"validate", path});
  EXPECT_EQ(outcome.exit_code, 2);
  // [[flow]] starts on line 12; size is its third key, line 15, value at column 8.
  EXPECT_NE(outcome.err.find(path + ":15:"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("flow[0].size"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("\"4KB\" (4000 bytes) or \"4KiB\" (4096 bytes)"), std::string::npos)
      << outcome.err;
}

}  // namespace
}  // namespace qb::e2e
