// Per-class results (Ethernet TC or InfiniBand VL): judge groups flows by the class of the port
// that decides the shares, JSON writes and reads them (and still reads results without them), and
// the console, HTML and explain show them only for plans with classes.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "../support/run_and_judge.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/suite_loader.hpp"
#include "qb/reports/console_report.hpp"
#include "qb/reports/explain.hpp"
#include "qb/reports/html_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/judge/judge.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

const std::string kTwoGroups = std::string(QB_SOURCE_DIR) + "/configs/mlx5_two_groups.toml";

Results with_classes(Results r) {
  ScenarioResult& s = r.scenarios.front();
  for (auto& flow : s.flows) {
    flow.host = flow.group == "g1-qp" ? 0 : 1;
    flow.tclass = flow.group == "g1-qp" ? "bulk_data" : "low_latency";
    flow.dscp = flow.group == "g1-qp" ? 10 : 46;
    flow.sl = 3;
    flow.priority = flow.group == "g1-qp" ? 1 : 5;
    flow.arb_class = flow.group == "g1-qp" ? "TC0" : "TC3";
  }
  ClassResult tc0;
  tc0.name = "TC0";
  tc0.flows = 2;
  tc0.expected_bps = 95.904e9;
  tc0.measured_bps = 95.0e9;
  tc0.error = 95.0 / 95.904 - 1.0;
  tc0.expected_share = 0.95904;
  tc0.measured_share = 0.95;
  tc0.latency = testing::latency(30'000);
  ClassResult tc3 = tc0;
  tc3.name = "TC3";
  tc3.flows = 1;
  tc3.expected_bps = 4.096e9;
  tc3.measured_bps = 4.096e9;
  tc3.error = 0.0;
  tc3.expected_share = 0.04096;
  tc3.measured_share = 0.04096;
  s.classes = {tc0, tc3};
  s.oracle_notes = {"VLArb credit rule (low table): VL1:VL2 = 1:1 by packets, 1:2 by weights"};
  return r;
}

TEST(ClassResults, WithoutClassesTheJsonHasNoClassFields) {
  const std::string json = results_to_json(testing::sample_results());
  EXPECT_EQ(json.find("\"classes\""), std::string::npos);
  EXPECT_EQ(json.find("\"oracle_notes\""), std::string::npos);
  EXPECT_EQ(json.find("\"tclass\""), std::string::npos);
  EXPECT_EQ(json.find("\"arb_class\""), std::string::npos);
}

TEST(ClassResults, JsonRoundTripKeepsClassesAndFlowClassFields) {
  const std::string json = results_to_json(with_classes(testing::sample_results()));
  auto read = results_from_json(json, "mem.json");
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  EXPECT_EQ(results_to_json(*read), json);
  const ScenarioResult& s = read->scenarios.front();
  ASSERT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.classes[0].name, "TC0");
  EXPECT_EQ(s.classes[0].flows, 2u);
  EXPECT_DOUBLE_EQ(s.classes[0].expected_bps, 95.904e9);
  EXPECT_DOUBLE_EQ(s.classes[1].expected_share, 0.04096);
  EXPECT_EQ(s.classes[1].latency.p99_ns, 90'000);
  ASSERT_EQ(s.oracle_notes.size(), 1u);
  EXPECT_EQ(s.flows[2].tclass, "low_latency");
  EXPECT_EQ(s.flows[2].dscp, 46u);
  EXPECT_EQ(s.flows[2].priority, 5u);
  EXPECT_EQ(s.flows[2].host, 1u);
  EXPECT_EQ(s.flows[2].arb_class, "TC3");
}

TEST(ClassResults, OldResultsWithoutClassesStillRead) {
  auto read = results_from_json(results_to_json(testing::sample_results()), "old.json");
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  EXPECT_TRUE(read->scenarios.front().classes.empty());
  EXPECT_TRUE(read->scenarios.front().oracle_notes.empty());
  EXPECT_EQ(read->scenarios.front().flows.front().tclass, "");
}

TEST(ClassResults, BadClassFieldNamesItsPath) {
  std::string json = results_to_json(with_classes(testing::sample_results()));
  const std::string needle = "\"expected_share\": 0.04096";
  const size_t at = json.find(needle);
  ASSERT_NE(at, std::string::npos);
  json.replace(at, needle.size(), "\"expected_share\": \"x\"");
  auto read = results_from_json(json, "bad.json");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().where, "scenarios[0].classes[1].expected_share");
}

TEST(ClassResults, ConsoleShowsTheClassTableOnlyWithClasses) {
  std::ostringstream plain, classes;
  print_console(testing::sample_results(), plain);
  print_console(with_classes(testing::sample_results()), classes);
  EXPECT_EQ(plain.str().find("classes:"), std::string::npos);
  EXPECT_EQ(plain.str().find("oracle:"), std::string::npos);
  const std::string text = classes.str();
  EXPECT_NE(text.find("classes:"), std::string::npos);
  EXPECT_NE(text.find("95.90%"), std::string::npos) << text;  // TC0 expected share
  EXPECT_NE(text.find("95.00%"), std::string::npos) << text;  // TC0 measured share
  EXPECT_NE(text.find("TC3"), std::string::npos);
  EXPECT_NE(text.find("oracle: VLArb credit rule"), std::string::npos);
}

TEST(ClassResults, HtmlShowsTheClassTableOnlyWithClasses) {
  const std::string plain = render_html_report(testing::sample_results());
  const std::string classes = render_html_report(with_classes(testing::sample_results()));
  EXPECT_EQ(plain.find("Classes: expected vs measured share"), std::string::npos);
  EXPECT_NE(classes.find("Classes: expected vs measured share"), std::string::npos);
  EXPECT_NE(classes.find("data-class=\"TC3\""), std::string::npos);
  EXPECT_NE(classes.find("Oracle: VLArb credit rule"), std::string::npos);
}

// A real run of the two-group suite, its plan then given classes: g1 in TC0, g2 in TC3.
void give_classes(suite::CompiledScenario& compiled) {
  compiled.plan.nic_qos.kind = policy::PortQos::Kind::ets;
  compiled.plan.nic_qos.eth = policy::default_eth_port_qos();
  for (auto& flow : compiled.plan.flows) flow.arb_class = flow.group == "g1-qp" ? 0 : 3;
  compiled.plan.flows.back().class_note = "prio 5 -> TC3";
  compiled.oracle_notes = {"a note"};
}

TEST(ClassResults, JudgeGroupsFlowsByClass) {
  auto suite = suite::load_suite_file(kTwoGroups);
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options;
  options.duration_ns = 10'000'000;
  options.repetitions = 1;
  options.jobs = 1;
  auto run = testing_support::run_suite_on(*suite, "sim", options);
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  {
    auto plain = judge::judge_run(*suite, *run, engine::measure(*run), current_run_metadata());
    ASSERT_TRUE(plain.ok());
    EXPECT_TRUE(plain->scenarios.front().classes.empty());
  }
  give_classes(run->scenarios.front().compiled);
  auto results = judge::judge_run(*suite, *run, engine::measure(*run), current_run_metadata());
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  const ScenarioResult& s = results->scenarios.front();
  ASSERT_EQ(s.classes.size(), 2u);
  EXPECT_EQ(s.classes[0].name, "TC0");
  EXPECT_EQ(s.classes[1].name, "TC3");
  EXPECT_EQ(s.classes[0].flows, 4u);
  // The man-page tree: g2 capped at 4.096 Gbit/s, g1 the rest of 100.
  EXPECT_NEAR(s.classes[0].expected_bps, 95.904e9, 1.0);
  EXPECT_NEAR(s.classes[1].expected_bps, 4.096e9, 1.0);
  EXPECT_NEAR(s.classes[1].expected_share, 0.04096, 1e-12);
  double measured_g2 = 0.0;
  for (const auto& flow : s.flows) {
    if (flow.group == "g2-qp") measured_g2 += flow.measured_bps;
  }
  EXPECT_DOUBLE_EQ(s.classes[1].measured_bps, measured_g2);
  EXPECT_DOUBLE_EQ(s.classes[1].measured_share, measured_g2 / 100e9);
  EXPECT_GT(s.classes[1].latency.count, 0u);
  EXPECT_EQ(s.flows.back().arb_class, "TC3");
  EXPECT_EQ(s.oracle_notes, std::vector<std::string>{"a note"});
}

TEST(ClassResults, ExplainShowsClassesOnlyWithClasses) {
  auto suite = suite::load_suite_file(kTwoGroups);
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(*suite, warnings);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  const std::string plain_json = explain_json(*suite, *compiled);
  std::ostringstream plain_text;
  print_explain(*suite, *compiled, plain_text);
  EXPECT_EQ(plain_json.find("\"classes\""), std::string::npos);
  EXPECT_EQ(plain_json.find("\"tclass\""), std::string::npos);
  EXPECT_EQ(plain_text.str().find("classes at"), std::string::npos);

  give_classes(compiled->front());
  const std::string json = explain_json(*suite, *compiled);
  std::ostringstream text;
  print_explain(*suite, *compiled, text);
  EXPECT_NE(json.find("\"classes\""), std::string::npos);
  EXPECT_NE(json.find("\"expected_share\": 0.04096"), std::string::npos) << json;
  EXPECT_NE(json.find("\"class_note\": \"prio 5 -> TC3\""), std::string::npos);
  EXPECT_NE(json.find("\"oracle_notes\": [\n        \"a note\""), std::string::npos) << json;
  EXPECT_NE(text.str().find("classes at the NIC port"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("(4.10 %)"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("(prio 5 -> TC3)"), std::string::npos);
  EXPECT_NE(text.str().find("  - a note"), std::string::npos);
}

}  // namespace
}  // namespace qb::report
