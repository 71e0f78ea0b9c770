// A sender-only run's results file is written from the one results field table: its run fields
// are the results' own, its starvation object the results' one, and the document keeps the
// layout docs/results-schema.md ("Sender-only results") gives it.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "qb/reports/json_results.hpp"
#include "qb/reports/sender_results.hpp"

namespace qb::report {
namespace {

SenderResults sample(bool starved) {
  SenderResults r;
  r.run.complete = true;
  r.run.suite = "tx";
  r.run.suite_file = "tests/dpdk/null_tx_only.toml";
  r.run.config_hash = "5eaed74fdddb6537";
  r.run.tool_version = "0.1.0";
  r.run.driver = "dpdk";
  r.run.clock = "tsc";
  r.run.host = "vm";
  r.run.date_utc = "2026-11-27T14:18:01Z";
  r.run.wall_seconds = 0.5;
  r.run.jobs = 7;                                  // not a sender field: not written
  r.run.warnings = {"not a sender field either"};  // nor this
  SenderScenarioTotals& s = r.scenarios.emplace_back();
  s.name = "a";
  s.repetitions_ran = 1;
  s.repetition_ns = 520000000;
  s.sent_seconds = 0.5;
  s.tx_frames = 1000.0;
  s.tx_bytes = 64000.0;
  for (const auto& [name, posted, late] :
       {std::tuple{"f#0", 600, 0}, std::tuple{"f#1", 400, 2}}) {
    SenderFlowTotals& flow = s.flows.emplace_back();
    flow.name = name;
    flow.counts.posted_messages = posted;
    flow.counts.late_posts = late;
  }
  if (starved) {
    s.starvation.present = true;
    s.starvation.lost_ns = 10;
    s.starvation.run_ns = 100;
    s.starvation.lost_fraction = 0.1;
    s.starvation.run_delay_ns = 10;
    s.starvation.stalled_ns = 5;
    s.starvation.longest_stall_ns = 5;
    s.starvation.stalls = 1;
    s.starvation.involuntary_switches = 3;
    s.starvation.unreliable = true;
    s.starvation.invalid = false;
  }
  return r;
}

// The document as the hand-written writer (before the field table described it) wrote it.
const char* const kExpected = R"({
  "schema": "qosbench.results/1",
  "sender_only": true,
  "complete": true,
  "suite": "tx",
  "suite_file": "tests/dpdk/null_tx_only.toml",
  "config_hash": "5eaed74fdddb6537",
  "tool_version": "0.1.0",
  "driver": "dpdk",
  "clock": "tsc",
  "host": "vm",
  "date": "2026-11-27T14:18:01Z",
  "wall_seconds": 0.5,
  "scenarios": [
    {
      "name": "a",
      "repetitions_completed": 1,
      "repetition_ns": 520000000,
      "sent_seconds": 0.5,
      "tx_frames": 1000.0,
      "tx_bytes": 64000.0,
      "tx_mpps": 0.002,
      "flows": [
        {
          "name": "f#0",
          "posted_messages": 600,
          "late_posts": 0
        },
        {
          "name": "f#1",
          "posted_messages": 400,
          "late_posts": 2
        }
      ],
      "starvation": {
        "lost_ns": 10,
        "run_ns": 100,
        "lost_fraction": 0.1,
        "run_delay_ns": 10,
        "stalled_ns": 5,
        "longest_stall_ns": 5,
        "stalls": 1,
        "involuntary_switches": 3,
        "unreliable": true,
        "invalid": false
      }
    }
  ]
}
)";

void collect(const nlohmann::ordered_json& value, const std::string& path,
             std::set<std::string>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) {
      const std::string child_path = path.empty() ? key : path + "." + key;
      out.insert(child_path);
      collect(child, child_path, out);
    }
  } else if (value.is_array()) {
    for (const auto& child : value) {
      if (child.is_object()) collect(child, path + "[]", out);
    }
  }
}

TEST(SenderSchema, TheDocumentIsLaidOutAsBefore) {
  EXPECT_EQ(sender_results_to_json(sample(true)), kExpected);
}

TEST(SenderSchema, TheWriterWritesExactlyTheListedFields) {
  std::set<std::string> written;
  collect(nlohmann::ordered_json::parse(sender_results_to_json(sample(true))), "", written);
  std::set<std::string> listed;
  for (const SchemaField& field : sender_results_schema_fields()) {
    EXPECT_TRUE(listed.insert(field.path).second) << "listed twice: " << field.path;
  }
  EXPECT_EQ(written, listed);
}

TEST(SenderSchema, OnlyTheStarvationOfAWatchedSenderIsOptional) {
  const auto doc = nlohmann::ordered_json::parse(sender_results_to_json(sample(false)));
  EXPECT_FALSE(doc["scenarios"][0].contains("starvation"));
  for (const SchemaField& field : sender_results_schema_fields()) {
    // Its fields are required wherever it is written.
    EXPECT_EQ(field.required, field.path != "scenarios[].starvation") << field.path;
  }
}

TEST(SenderSchema, RunAndStarvationFieldsAreTheResultsOwn) {
  std::set<std::string> results_fields;
  for (const SchemaField& field : results_schema_fields()) results_fields.insert(field.path);
  for (const SchemaField& field : sender_results_schema_fields()) {
    std::string path = field.path;
    if (path == "sender_only" || path.starts_with("scenarios")) {
      // The starvation object is the results' scenarios[].starvation.
      if (!path.starts_with("scenarios[].starvation")) continue;
    }
    EXPECT_TRUE(results_fields.contains(path)) << path << " is not a results field";
  }
}

TEST(SenderSchema, TheDocumentationNamesEveryField) {
  std::ifstream in(QB_SOURCE_DIR "/docs/results-schema.md");
  ASSERT_TRUE(in);
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const std::string section = text.substr(text.find("## Sender-only results"));
  for (const SchemaField& field : sender_results_schema_fields()) {
    if (field.path.starts_with("scenarios[].starvation.")) continue;  // "as above"
    const std::string key = field.path.substr(field.path.find_last_of('.') + 1);
    EXPECT_NE(section.find("\"" + key + "\""), std::string::npos)
        << field.path << " is not in docs/results-schema.md's sender-only section";
  }
}

}  // namespace
}  // namespace qb::report
