// Latency with messages outstanding at the window's end, as the results and the console carry
// it: written and read back, older files without the fields still read, and the console's
// latency table in one unit per column with "≥" where a figure is a lower bound.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "qb/reports/console_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

// The first flow stuck: 16 messages outstanding for 51 ms, its tail a lower bound.
Results stuck_results() {
  Results r = testing::sample_results();
  LatencySummary& l = r.scenarios[0].flows[0].latency;
  l.outstanding = 16;
  l.oldest_outstanding_ns = 51'200'000;
  l.censored = engine::LatencyCensored{false, false, true, true, true};
  l.outstanding_limit = 16;
  l.p99_ns = 2'380'000;
  return r;
}

TEST(LatencyResults, OutstandingAndCensoredRoundTrip) {
  const Results written = stuck_results();
  const std::string json = results_to_json(written);
  const auto doc = nlohmann::json::parse(json);
  const auto& latency = doc["scenarios"][0]["flows"][0]["latency_ns"];
  EXPECT_EQ(latency["outstanding"], 16);
  EXPECT_EQ(latency["oldest_outstanding"], 51'200'000);
  EXPECT_EQ(latency["censored"]["p99"], true);
  EXPECT_EQ(latency["censored"]["p50"], false);
  EXPECT_EQ(latency["outstanding_limit"], 16);
  EXPECT_EQ(latency["stdev"], 5'000.0);
  // Nothing outstanding: the fields are left out (and from the actual send time, always).
  EXPECT_FALSE(doc["scenarios"][0]["flows"][1]["latency_ns"].contains("outstanding"));
  EXPECT_FALSE(doc["scenarios"][0]["flows"][0]["latency_from_sent_ns"].contains("censored"));

  auto read = results_from_json(json, "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const LatencySummary& l = read->scenarios[0].flows[0].latency;
  EXPECT_EQ(l.outstanding, 16u);
  EXPECT_EQ(l.oldest_outstanding_ns, 51'200'000);
  EXPECT_TRUE(l.censored.p99 && l.censored.p999 && l.censored.max);
  EXPECT_FALSE(l.censored.p50 || l.censored.p90);
  EXPECT_EQ(l.outstanding_limit, 16u);
  EXPECT_EQ(l.stdev_ns, 5'000.0);
  // Written again, every latency object is the same (the rest is the other fields' business).
  const auto again = nlohmann::json::parse(results_to_json(*read));
  for (const char* rows : {"flows", "groups"}) {
    const auto& before = doc["scenarios"][0][rows];
    const auto& after = again["scenarios"][0][rows];
    ASSERT_EQ(before.size(), after.size());
    for (size_t i = 0; i < before.size(); ++i) {
      EXPECT_EQ(before[i]["latency_ns"], after[i]["latency_ns"]) << rows << " " << i;
      EXPECT_EQ(before[i]["latency_from_sent_ns"], after[i]["latency_from_sent_ns"]);
    }
  }
}

TEST(LatencyResults, OlderFilesWithoutTheFieldsStillRead) {
  auto doc = nlohmann::ordered_json::parse(results_to_json(stuck_results()));
  for (auto& flow : doc["scenarios"][0]["flows"]) {
    for (const char* key : {"latency_ns", "latency_from_sent_ns"}) {
      for (const char* field :
           {"stdev", "outstanding", "oldest_outstanding", "censored", "outstanding_limit"}) {
        flow[key].erase(field);
      }
    }
  }
  auto read = results_from_json(doc.dump(), "old.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const LatencySummary& l = read->scenarios[0].flows[0].latency;
  EXPECT_EQ(l.outstanding, 0u);
  EXPECT_FALSE(l.censored.any());
  EXPECT_TRUE(std::isnan(l.stdev_ns));  // unknown, not 0
  // The console shows what an older file has, and "-" for what it lacks.
  std::ostringstream out;
  print_console(*read, out);
  // No figure marked (the one "≥" is the latency table's legend).
  const std::string text = out.str();
  const size_t legend = text.find("≥: a lower bound");
  ASSERT_NE(legend, std::string::npos) << text;
  EXPECT_EQ(text.find("≥"), legend) << text;
  EXPECT_EQ(text.find("≥", legend + 1), std::string::npos) << text;
}

// The console line whose first cell is `first`, after the line holding `after`.
std::string line_after(const std::string& text, const std::string& after,
                       const std::string& first) {
  std::istringstream lines(text.substr(text.find(after)));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream cells(line);
    std::string cell;
    if (cells >> cell && cell == first) return line;
  }
  return {};
}

std::vector<std::string> cells_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> cells;
  for (std::string cell; in >> cell;) cells.push_back(cell);
  return cells;
}

TEST(LatencyConsole, OneUnitPerColumnAndAtLeastWhereCensored) {
  const Results r = stuck_results();
  std::ostringstream out;
  print_console(r, out);
  const std::string text = out.str();
  const std::string& name = r.scenarios[0].flows[0].name;
  const std::string header = line_after(text, "latency (sched", "flow");
  ASSERT_FALSE(header.empty()) << text;
  EXPECT_EQ(cells_of(header),
            (std::vector<std::string>{"flow", "depth", "min", "mean", "stdev", "p50", "p99",
                                      "p99.9", "p99", "outstanding", "oldest"}))
      << header;
  // The basis and unit line, right under the names: p99 of the stuck flow (2.38 ms) sets ms.
  std::istringstream lines(text.substr(text.find(header)));
  std::string names, basis;
  std::getline(lines, names);
  std::getline(lines, basis);
  EXPECT_EQ(cells_of(basis),
            (std::vector<std::string>{"per",  "QP",    "sched", "us",    "sched", "us",    "sched",
                                      "us",   "sched", "us",    "sched", "ms",    "sched", "us",
                                      "sent", "us",    "at",    "end",   "age",   "ms"}))
      << basis;
  const std::vector<std::string> row = cells_of(line_after(text, "latency (sched", name));
  ASSERT_EQ(row.size(), 11u) << text;
  EXPECT_EQ(row[1], "16");      // the QP's depth
  EXPECT_EQ(row[5], "10.00");   // p50: 10 us, exact
  EXPECT_EQ(row[6], "≥2.380");  // p99 in ms, a lower bound
  EXPECT_EQ(row[7], "≥40.00");  // p99.9 in us, a lower bound
  EXPECT_EQ(row[9], "16");      // outstanding at the end
  EXPECT_EQ(row[10], "51.20");  // the oldest has waited 51.2 ms (and is waiting)
  // Rate-driven flows have no depth, and a flow with nothing outstanding no age.
  const std::vector<std::string> other =
      cells_of(line_after(text, "latency (sched", r.scenarios[0].flows[1].name));
  ASSERT_EQ(other.size(), 11u);
  EXPECT_EQ(other[9], "-");
  EXPECT_EQ(other[10], "-");
  // Every line of the flow and latency tables fits 160 columns.
  std::istringstream all(text);
  for (std::string line; std::getline(all, line);) {
    if (line.rfind("  ", 0) == 0 && line.find("latency (sched") == std::string::npos) {
      EXPECT_LE(line.size(), 160u) << line;
    }
  }
}

}  // namespace
}  // namespace qb::report
