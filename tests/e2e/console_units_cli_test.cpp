// What a perftest or iperf3 user reads on the console: goodput (payload) and wire rate side by
// side with the basis in the header, packets/s, --units gbit|gbyte|mpps on run and report, both
// latencies labelled; the rate spellings of other tools in a suite; "4k" refused as a size.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.hpp"
#include "one_flow_suite.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

// One CBR flow whose rate is payload, written the way iperf3 users write it.
std::string cbr_suite(const std::string& rate, const std::string& size) {
  OneFlow suite;
  suite.name = "units";
  suite.size = size;
  suite.rate = rate;
  return one_flow_suite(suite);
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
  for (const char* label :
       {"wire Gbit/s", "payload Gbit/s", "Mpps", "goodput", "sched: from the scheduled send time",
        "sent: from the actual send time"}) {
    EXPECT_NE(out.find(label), std::string::npos) << label << "\n" << out;
  }
  const auto row = row_of(out, "f");
  ASSERT_EQ(row.size(), 7u) << out;
  // flow leaf expected measured error goodput Mpps (latency: its own table below)
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

// Where each cell of a row ends (one past its last character); cells are apart by two or more
// spaces ("589 ns" is one cell).
std::vector<size_t> cell_ends(const std::string& line) {
  std::vector<size_t> ends;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] != ' ' && (i + 1 == line.size() || line.compare(i + 1, 2, "  ") == 0)) {
      ends.push_back(i + 1);
    }
  }
  return ends;
}

std::string line_starting(const std::string& out, const std::string& first) {
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::string cell;
    if (cells >> cell && cell == first) return line;
  }
  return {};
}

// The lines whose first cell is `first`, in order.
std::vector<std::string> lines_starting(const std::string& out, const std::string& first) {
  std::vector<std::string> found;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    std::string cell;
    if (cells >> cell && cell == first) found.push_back(line);
  }
  return found;
}

// The line after `line` in `out`.
std::string line_after(const std::string& out, const std::string& line) {
  const size_t at = out.find(line + "\n");
  if (at == std::string::npos) return {};
  const size_t start = at + line.size() + 1;
  return out.substr(start, out.find('\n', start) - start);
}

// Display columns of a prefix of a UTF-8 line ("≥" is one column, three bytes).
size_t columns(const std::string& line, size_t bytes) {
  size_t n = 0;
  for (size_t i = 0; i < bytes && i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Right-aligned columns: every header label ends where its column's figures end, whatever
// --units picks (under mpps the fifth rate column is headed "wire Gbit/s", 11 characters), in
// the rates table and in the latency table (names, then basis and unit, per column).
TEST(ConsoleUnits, HeadersStayAlignedWithTheirColumnsInEveryUnit) {
  const std::string suite = write_temp("units_align.toml", cbr_suite("2G", "1024"));
  for (const char* unit : {"gbit", "gbyte", "mpps"}) {
    SCOPED_TRACE(unit);
    const UnitsRun run = run_units(suite, {"--units", unit});
    ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.err;
    const std::string& out = run.outcome.out;
    const std::vector<std::string> rows = lines_starting(out, "f");
    const std::vector<std::string> headers = lines_starting(out, "flow");
    ASSERT_EQ(rows.size(), 4u) << out;  // its rates, its group's, its latency, its group's
    ASSERT_EQ(headers.size(), 2u) << out;
    const std::string& row = rows[0];
    const std::string& names = headers[0];
    const std::string basis = line_after(out, names);
    ASSERT_FALSE(basis.empty()) << out;
    const std::vector<size_t> cells = cell_ends(row);
    ASSERT_EQ(cells.size(), 7u) << row;
    // flow leaf | expected measured error goodput extra
    const size_t extra_end = cells[6];
    const std::string extra_basis = std::string(unit) == "mpps" ? "wire Gbit/s" : "Mpps";
    const size_t at = basis.find(extra_basis, basis.find("payload"));
    ASSERT_NE(at, std::string::npos) << basis;
    EXPECT_EQ(at + extra_basis.size(), extra_end) << "\n" << basis << "\n" << row;
    const std::string extra_name = std::string(unit) == "mpps" ? "measured" : "packets";
    EXPECT_EQ(names.rfind(extra_name) + extra_name.size(), extra_end) << "\n"
                                                                      << names << "\n"
                                                                      << row;
    // Latency: flow depth | min mean stdev p50 p99 p99.9 | p99 (sent) | outstanding oldest.
    const std::string& lat_names = headers[1];
    const std::string lat_basis = line_after(out, lat_names);
    const std::string lat_row = line_after(out, lat_basis);
    const std::vector<size_t> lat_cells = cell_ends(lat_row);
    ASSERT_EQ(lat_cells.size(), 11u) << lat_row;
    const std::vector<size_t> name_ends = cell_ends(lat_names);
    ASSERT_EQ(name_ends.size(), 11u) << lat_names;
    for (size_t c = 1; c < 11; ++c) {
      EXPECT_EQ(columns(lat_names, name_ends[c]), columns(lat_row, lat_cells[c]))
          << "column " << c << "\n"
          << lat_names << "\n"
          << lat_row;
    }
    // Each latency figure's basis and unit, e.g. "sched us", ends where its column does.
    for (size_t c = 2; c < 9; ++c) {
      const size_t end = columns(lat_row, lat_cells[c]);
      EXPECT_TRUE(end >= 2 && lat_basis.size() >= end && lat_basis[end - 1] == 's' &&
                  lat_basis[end] != 's')
          << "column " << c << "\n"
          << lat_basis << "\n"
          << lat_row;
    }
  }
}

// explain says which basis each rate has, and gives the payload rate a flow's `rate` names and
// the packet rate next to the wire rate; --json keeps every figure.
TEST(ConsoleUnits, ExplainGivesWirePayloadAndPackets) {
  // 1024-byte messages at 2 Gbit/s of payload on RoCEv2: 2 Gbit/s / 8 / 1024 = 0.2441 Mpps.
  const std::string suite = write_temp("units_explain.toml", cbr_suite("2Gbps", "1024"));
  const Outcome text = run_qosbench({"explain", suite});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const std::string offered = line_starting(text.out, "f");
  EXPECT_NE(offered.find("offered"), std::string::npos) << text.out;
  EXPECT_NE(offered.find(" Gbit/s wire (2.000 Gbit/s payload, 0.2441 Mpps)"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("expected"), std::string::npos);

  const Outcome js = run_qosbench({"explain", suite, "--json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  const json flow = json::parse(js.out)["scenarios"][0]["flows"][0];
  EXPECT_NEAR(flow["offered_payload_bps"].get<double>(), 2e9, 1.0);
  EXPECT_NEAR(flow["offered_pps"].get<double>(), 2e9 / 8.0 / 1024.0, 1e-3);
  EXPECT_GT(flow["offered_bps"].get<double>(), 2e9);  // wire
  EXPECT_NEAR(flow["offered_bps"].get<double>() / flow["offered_payload_bps"].get<double>(),
              flow["mean_wire_bytes"].get<double>() / flow["mean_payload_bytes"].get<double>(),
              1e-9);
  EXPECT_NEAR(flow["expected_payload_bps"].get<double>(), 2e9, 1.0);
  EXPECT_NEAR(flow["expected_pps"].get<double>(), 2e9 / 8.0 / 1024.0, 1e-3);
}

// One convention for thresholds: a suite writes a gate's relative limit as a percentage ("1%"),
// as --threshold 5 and every console and report line do; the results JSON keeps the fraction.
// A bare number still means a fraction and draws a warning at file:line:col with the "%" form.
TEST(ConsoleUnits, GateThresholdsArePercentagesAndABareFractionWarns) {
  const std::string body = cbr_suite("2G", "1024") + "[gates]\nmax_share_error = ";
  const uint32_t line = static_cast<uint32_t>(std::count(body.begin(), body.end(), '\n')) + 1;

  const std::string percent = write_temp("units_gate_percent.toml", body + "\"1%\"\n");
  const UnitsRun run = run_units(percent, {});
  ASSERT_EQ(run.outcome.exit_code, 0) << run.outcome.err;
  EXPECT_EQ(run.outcome.err.find("warning"), std::string::npos) << run.outcome.err;
  EXPECT_NE(run.outcome.out.find("% <= 1.0000%"), std::string::npos) << run.outcome.out;
  const std::string json_path =
      ::testing::TempDir() + "/qb_units_" + std::to_string(::getpid()) + ".json";
  const json gate = json::parse(read_file(json_path))["scenarios"][0]["gates"][0];
  EXPECT_EQ(gate["name"], "max_share_error");
  EXPECT_DOUBLE_EQ(gate["threshold"].get<double>(), 0.01);  // the JSON keeps fractions

  const std::string bare = write_temp("units_gate_bare.toml", body + "0.01\n");
  const Outcome validate = run_qosbench({"validate", bare});
  EXPECT_EQ(validate.exit_code, 0) << validate.err;
  EXPECT_NE(validate.err.find(fmt::format("{}:{}:19: warning: gates.max_share_error", bare, line)),
            std::string::npos)
      << validate.err;
  EXPECT_NE(validate.err.find("max_share_error = \"1%\""), std::string::npos) << validate.err;
  // Read as before: the same gate, the same threshold in the results.
  const UnitsRun old = run_units(bare, {});
  ASSERT_EQ(old.outcome.exit_code, 0) << old.outcome.err;
  EXPECT_DOUBLE_EQ(
      json::parse(read_file(json_path))["scenarios"][0]["gates"][0]["threshold"].get<double>(),
      0.01);

  const Outcome bad =
      run_qosbench({"validate", write_temp("units_gate_bad.toml", body + "\"1\"\n")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("expected a percentage such as \"1%\""), std::string::npos) << bad.err;
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
