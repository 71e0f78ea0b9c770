// The results reader: writer -> reader -> writer is byte-equal, and every kind of bad file is
// Errc::invalid_config naming the file and, for a bad field, its JSON path.
#include "qb/reports/results_reader.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "qb/reports/json_results.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

using testing::sample_results;

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ResultsReader, RoundTripIsByteEqual) {
  const std::string json = results_to_json(sample_results());
  auto read = results_from_json(json, "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(results_to_json(*read), json);
}

TEST(ResultsReader, ReadsTheFiguresBack) {
  auto read = results_from_json(results_to_json(sample_results(3)), "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const ScenarioResult& s = read->scenarios.at(0);
  EXPECT_EQ(read->suite, "two groups");
  EXPECT_EQ(read->host, "host \"quoted\" <x>");
  EXPECT_EQ(s.flows.size(), 3u);
  EXPECT_EQ(s.flows[0].offered_bps, 50e9);
  EXPECT_FALSE(s.flows[1].offered_bps.has_value());
  EXPECT_EQ(s.flows[2].measured_bps_reps.size(), 3u);
  EXPECT_EQ(s.flows[0].latency_reps.p999_ns, (std::vector<int64_t>{40000, 40000, 40000}));
  EXPECT_EQ(s.flows[0].latency.spectrum.at(2), (std::pair<double, int64_t>{99.999, 40000}));
  // null demand is the unbounded demand of a saturating subtree.
  EXPECT_TRUE(std::isinf(s.tree[0].demand_bps));
  EXPECT_TRUE(s.tree[0].parent.empty());
  EXPECT_FALSE(s.tree[0].cap_bps.has_value());
  EXPECT_TRUE(s.tree[1].is_leaf);
  EXPECT_EQ(s.tree[1].cap_bps, 4.096e9);
  ASSERT_EQ(s.driver_stats.size(), 2u);
  EXPECT_EQ(s.driver_stats[0].first, "zeta_events");  // file order kept
  EXPECT_FALSE(s.gates[1].passed);
  EXPECT_EQ(s.gates[1].unit, "ns");
}

TEST(ResultsReader, TruncatedFileIsAConfigErrorAtTheEnd) {
  const std::string json = results_to_json(sample_results());
  auto read = results_from_json(json.substr(0, json.size() / 2), "half.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_EQ(read.error().loc.file, "half.json");
  EXPECT_NE(read.error().message.find("truncated"), std::string::npos) << read.error().message;
  EXPECT_GT(read.error().loc.line, 1u);
}

TEST(ResultsReader, EmptyAndNonObjectInputs) {
  for (const char* text : {"", "   ", "[1, 2]", "42", "null"}) {
    auto read = results_from_json(text, "x.json");
    ASSERT_FALSE(read) << text;
    EXPECT_EQ(read.error().code, Errc::invalid_config) << text;
    EXPECT_EQ(read.error().loc.file, "x.json");
  }
}

TEST(ResultsReader, NumberBeyondDoubleIsAConfigErrorNotAnAbort) {
  // Found by results_reader_fuzz: nlohmann throws out_of_range (not parse_error) for it.
  auto read =
      results_from_json("{\"schema\": \"qosbench.results/1\", \"seed\": 1e400}", "big.json");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_EQ(read.error().loc.file, "big.json");
  EXPECT_NE(read.error().message.find("number overflow"), std::string::npos)
      << read.error().to_string();
}

TEST(ResultsReader, InvalidJsonGivesLineAndColumn) {
  auto read = results_from_json("{\n  \"schema\": \"qosbench.results/1\",\n  oops\n}", "bad.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_EQ(read.error().loc.line, 3u);
  EXPECT_EQ(read.error().loc.column, 3u);
  EXPECT_NE(read.error().to_string().find("bad.json:3:3: error:"), std::string::npos)
      << read.error().to_string();
}

TEST(ResultsReader, OtherSchemaVersionIsRefusedByName) {
  const std::string json =
      replace_once(results_to_json(sample_results()), "qosbench.results/1", "qosbench.results/2");
  auto read = results_from_json(json, "v2.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_EQ(read.error().where, "schema");
  EXPECT_NE(read.error().message.find("qosbench.results/2"), std::string::npos);
  // No schema at all: not our file.
  auto none = results_from_json(R"({"suite": "x"})", "none.json");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().where, "schema");
}

TEST(ResultsReader, MissingFieldNamesItsJsonPath) {
  const std::string json =
      replace_once(results_to_json(sample_results()), "\"late_posts\"", "\"late_postz\"");
  auto read = results_from_json(json, "r.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_EQ(read.error().where, "scenarios[0].flows[0].late_posts");
  EXPECT_EQ(read.error().message, "missing field");
}

TEST(ResultsReader, WrongTypeNamesItsJsonPath) {
  std::string json = results_to_json(sample_results());
  json = replace_once(json, "\"mtu_bytes\": 4096", "\"mtu_bytes\": \"4096\"");
  auto read = results_from_json(json, "r.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().where, "scenarios[0].mtu_bytes");
  EXPECT_NE(read.error().message.find("integer"), std::string::npos);

  json = replace_once(results_to_json(sample_results()), "\"drops\": 1", "\"drops\": -1");
  read = results_from_json(json, "r.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().where, "scenarios[0].flows[0].drops");

  json =
      replace_once(results_to_json(sample_results()), "\"kind\": \"leaf\"", "\"kind\": \"twig\"");
  read = results_from_json(json, "r.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().where, "scenarios[0].tree[1].kind");
}

TEST(ResultsReader, UnreadableFileIsAConfigError) {
  auto read = read_results_file(::testing::TempDir() + "/does/not/exist.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, Errc::invalid_config);
  EXPECT_NE(read.error().loc.file.find("exist.json"), std::string::npos);
  auto dir = read_results_file(::testing::TempDir());
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().code, Errc::invalid_config);
}

TEST(ResultsReader, ReadsAFile) {
  const std::string path = ::testing::TempDir() + "/reader_test.json";
  std::ofstream(path) << results_to_json(sample_results());
  auto read = read_results_file(path);
  ASSERT_TRUE(read) << read.error().to_string();
  EXPECT_EQ(read->scenarios.at(0).flows.size(), 3u);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace qb::report
