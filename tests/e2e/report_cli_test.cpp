// The reporting side of the command line: `report`, `compare`, and `run --html/--junit/
// --baseline`. Exit codes (0 ok, 1 regression or gate, 2 bad or incompatible input), no output
// file when the input is bad, well-formed JUnit, and no progress line when stderr is a file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "../reports/xml_check.hpp"
#include "process.hpp"
#include "one_flow_suite.hpp"

namespace qb::e2e {
namespace {

using nlohmann::json;

const std::string kTwoGroups = QB_SOURCE_DIR "/configs/mlx5_two_groups.toml";

// ctest runs every test in its own process, possibly side by side: names carry the pid.
std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/qb_report_" + std::to_string(::getpid()) + "_" + name;
}

// Runs the two-groups suite with 5 repetitions (enough for p < 0.05) into a results file.
std::string run_two_groups(const std::string& name, const std::vector<std::string>& extra = {}) {
  const std::string path = temp_path(name);
  std::vector<std::string> args{"run",    kTwoGroups, "--repetitions", "5", "--duration", "20ms",
                                "--json", path,       "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Outcome outcome = run_qosbench(args);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
  return path;
}

void write_json(const std::string& path, const json& value) {
  std::ofstream(path) << value.dump(2);
}

// Multiplies every measured rate of group `group` (its flows and itself) by `factor`.
json scale_group(json results, const std::string& group, double factor) {
  for (json& scenario : results["scenarios"]) {
    for (json& flow : scenario["flows"]) {
      if (flow["group"] != group) continue;
      flow["measured_bps"] = flow["measured_bps"].get<double>() * factor;
      for (json& rep : flow["measured_bps_reps"]) rep = rep.get<double>() * factor;
    }
    for (json& g : scenario["groups"]) {
      if (g["name"] != group) continue;
      g["measured_bps"] = g["measured_bps"].get<double>() * factor;
      for (json& rep : g["measured_bps_reps"]) rep = rep.get<double>() * factor;
    }
  }
  return results;
}

size_t attr_count(const qb::testing::XmlElement& e, const char* key) {
  return static_cast<size_t>(std::stoul(e.attr(key)));
}

TEST(ReportCli, ReportWritesTheHtmlWithTheVerdict) {
  const std::string results = run_two_groups("report.json");
  const std::string html = temp_path("report.html");
  const Outcome outcome = run_qosbench({"report", results, "-o", html});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const std::string page = read_file(html);
  EXPECT_NE(page.find("id=\"verdict\""), std::string::npos);
  EXPECT_NE(page.find("data-passed=\"true\""), std::string::npos);
  EXPECT_TRUE(outcome.err.empty()) << outcome.err;
  // With a baseline the page carries the comparison; still exit 0 (the report was written).
  const std::string compared = temp_path("report_compared.html");
  const Outcome with_baseline =
      run_qosbench({"report", results, "-o", compared, "--baseline", results});
  ASSERT_EQ(with_baseline.exit_code, 0) << with_baseline.err;
  EXPECT_NE(read_file(compared).find("id=\"verdict\""), std::string::npos);
  std::filesystem::remove(html);
  std::filesystem::remove(compared);
}

TEST(ReportCli, CompareOfTwoSameSeedRunsExitsZero) {
  const std::string a = run_two_groups("same_a.json");
  const std::string b = run_two_groups("same_b.json");
  const Outcome outcome = run_qosbench({"compare", a, b});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("NO REGRESSION: 0 regressions"), std::string::npos) << outcome.out;
}

TEST(ReportCli, CompareOfDifferentSeedsExitsZero) {
  const std::string a = run_two_groups("seed_a.json", {"--seed", "1"});
  const std::string b = run_two_groups("seed_b.json", {"--seed", "2"});
  const Outcome outcome = run_qosbench({"compare", a, b});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
}

TEST(ReportCli, CompareCatchesAPlantedTenPercentRegression) {
  const std::string base = run_two_groups("planted_base.json");
  const std::string slow = temp_path("planted_slow.json");
  write_json(slow, scale_group(json::parse(read_file(base)), "g2-qp", 0.9));
  const std::string junit = temp_path("planted.xml");
  const std::string out_json = temp_path("planted_compare.json");
  const Outcome outcome =
      run_qosbench({"compare", base, slow, "--junit", junit, "--json", out_json});
  ASSERT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  // Regressions are listed first: the first row under the header is one.
  const size_t header = outcome.out.find("verdict");
  ASSERT_NE(header, std::string::npos) << outcome.out;
  const size_t first_row = outcome.out.find('\n', header) + 1;
  EXPECT_EQ(outcome.out.compare(first_row, 12, "  REGRESSION"), 0) << outcome.out;
  EXPECT_NE(outcome.out.find("-10.00%"), std::string::npos) << outcome.out;

  const json comparison = json::parse(read_file(out_json));
  EXPECT_EQ(comparison["regressed"], true);
  // The g2 group and its four flows, each on throughput and on share error; nothing else.
  EXPECT_EQ(comparison["regressions"], 10);
  for (const json& metric : comparison["metrics"]) {
    if (metric["regression"] == true) {
      EXPECT_TRUE(metric["subject"].get<std::string>().starts_with("g2-qp")) << metric.dump();
    }
  }
  const auto root = qb::testing::parse_xml(read_file(junit));
  EXPECT_EQ(attr_count(*root, "tests"), comparison["metrics"].size());
  EXPECT_EQ(attr_count(*root, "failures"), 10u);

  // A threshold above the change: not a regression.
  EXPECT_EQ(run_qosbench({"compare", base, slow, "--threshold", "15"}).exit_code, 0);
  // The other way round it is an improvement (more throughput, smaller share error): exit 0.
  const Outcome reverse = run_qosbench({"compare", slow, base});
  EXPECT_EQ(reverse.exit_code, 0) << reverse.out;
  EXPECT_NE(reverse.out.find("0 regressions, 10 improvements"), std::string::npos) << reverse.out;
}

// Every shipped suite with its own repetition count (2 or 3: no rank test can reach p < 0.05):
// one group 10 % slower is a regression, a rerun with another seed is not. The rerun's noisy
// metrics (imix latency percentiles at 2 repetitions) may be INCONCLUSIVE (exit 1, said, never
// a regression); --allow-inconclusive accepts them: exit 0.
TEST(ReportCli, EveryShippedSuiteFlagsATenPercentDropButNotAnotherSeed) {
  for (const auto& entry : std::filesystem::directory_iterator(QB_SOURCE_DIR "/configs")) {
    if (entry.path().extension() != ".toml") continue;
    const std::string stem = entry.path().stem().string();
    SCOPED_TRACE(stem);
    const std::string base = temp_path(stem + "_base.json");
    const std::string reseeded = temp_path(stem + "_seed2.json");
    const std::string slow = temp_path(stem + "_slow.json");
    for (const auto& [path, seed] : {std::pair{base, "1"}, std::pair{reseeded, "2"}}) {
      const Outcome ran =
          run_qosbench({"run", entry.path().string(), "--seed", seed, "--json", path, "--quiet"});
      ASSERT_NE(ran.exit_code, 2) << ran.out << ran.err;
      ASSERT_NE(ran.exit_code, 3) << ran.out << ran.err;
    }
    const json results = json::parse(read_file(base));
    const json& groups = results["scenarios"][0]["groups"];
    ASSERT_FALSE(groups.empty());
    write_json(slow, scale_group(results, groups[0]["name"].get<std::string>(), 0.9));
    const Outcome dropped = run_qosbench({"compare", base, slow});
    EXPECT_EQ(dropped.exit_code, 1) << dropped.out << dropped.err;
    const Outcome rerun = run_qosbench({"compare", base, reseeded});
    EXPECT_NE(rerun.out.find(" 0 regressions"), std::string::npos) << rerun.out << rerun.err;
    if (rerun.exit_code != 0) {
      EXPECT_EQ(rerun.exit_code, 1) << rerun.out << rerun.err;
      EXPECT_NE(rerun.out.find("INCONCLUSIVE: 0 regressions"), std::string::npos) << rerun.out;
    }
    const Outcome accepted = run_qosbench({"compare", base, reseeded, "--allow-inconclusive"});
    EXPECT_EQ(accepted.exit_code, 0) << accepted.out << accepted.err;
    // The planted drop is a regression, not merely inconclusive, even when those are allowed.
    EXPECT_EQ(run_qosbench({"compare", base, slow, "--allow-inconclusive"}).exit_code, 1);
    for (const auto& path : {base, reseeded, slow}) std::filesystem::remove(path);
  }
}

// One repetition a side: a 10 % drop nothing can judge is INCONCLUSIVE, exit 1, unless
// --allow-inconclusive; JUnit lists it as a failure, the JSON says the verdict.
TEST(ReportCli, CompareSaysInconclusiveWhenNothingCanJudgeAndExitsOne) {
  const std::string base = temp_path("one_rep_base.json");
  const Outcome ran = run_qosbench(
      {"run", kTwoGroups, "--repetitions", "1", "--duration", "20ms", "--json", base, "--quiet"});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  const std::string slow = temp_path("one_rep_slow.json");
  // Another seed: the same seed on the simulator is an exact comparison (every change counts),
  // so the statistics, and "cannot judge", apply only across seeds.
  json slowed = scale_group(json::parse(read_file(base)), "g2-qp", 0.9);
  slowed["scenarios"][0]["seed"] = 2;
  write_json(slow, slowed);
  {
    const std::string same_seed = temp_path("one_rep_same_seed.json");
    write_json(same_seed, scale_group(json::parse(read_file(base)), "g2-qp", 0.9));
    const Outcome exact = run_qosbench({"compare", base, same_seed});
    EXPECT_EQ(exact.exit_code, 1) << exact.out << exact.err;
    EXPECT_NE(exact.out.find("exact: deterministic runs, same seeds"), std::string::npos)
        << exact.out;
    EXPECT_NE(exact.out.find("REGRESSED: 10 regressions"), std::string::npos) << exact.out;
    std::filesystem::remove(same_seed);
  }
  const std::string out_json = temp_path("one_rep_compare.json");
  const std::string junit = temp_path("one_rep_compare.xml");
  const Outcome strict =
      run_qosbench({"compare", base, slow, "--json", out_json, "--junit", junit});
  EXPECT_EQ(strict.exit_code, 1) << strict.out << strict.err;
  EXPECT_NE(strict.out.find("INCONCLUSIVE: 0 regressions, "), std::string::npos) << strict.out;
  const json comparison = json::parse(read_file(out_json));
  EXPECT_EQ(comparison["verdict"], "INCONCLUSIVE");
  EXPECT_EQ(comparison["regressed"], false);
  EXPECT_GE(comparison["inconclusive"].get<int>(), 5);  // g2 group and its 4 flows
  const auto root = qb::testing::parse_xml(read_file(junit));
  EXPECT_EQ(attr_count(*root, "failures"), comparison["inconclusive"].get<size_t>());

  const Outcome allowed = run_qosbench({"compare", base, slow, "--allow-inconclusive"});
  EXPECT_EQ(allowed.exit_code, 0) << allowed.out << allowed.err;
  EXPECT_NE(allowed.out.find("NO REGRESSION"), std::string::npos) << allowed.out;
  // run --baseline takes the same rule.
  const Outcome run_strict = run_qosbench({"run", kTwoGroups, "--repetitions", "1", "--duration",
                                           "20ms", "--baseline", slow, "--quiet"});
  EXPECT_EQ(run_strict.exit_code, 0)
      << "faster than the baseline is no failure: " << run_strict.out;
  const std::string fast = temp_path("one_rep_fast.json");
  json faster = scale_group(json::parse(read_file(base)), "g2-qp", 1.0 / 0.9);
  faster["scenarios"][0]["seed"] = 2;  // across seeds: the statistics apply
  write_json(fast, faster);
  const Outcome run_slow = run_qosbench({"run", kTwoGroups, "--repetitions", "1", "--duration",
                                         "20ms", "--baseline", fast, "--quiet"});
  EXPECT_EQ(run_slow.exit_code, 1) << run_slow.out << run_slow.err;
  EXPECT_NE(run_slow.out.find("inconclusive against the baseline"), std::string::npos)
      << run_slow.out;
  for (const auto& path : {base, slow, fast, out_json, junit}) std::filesystem::remove(path);
}

TEST(ReportCli, RunWithBaselineFailsOnRegressionAndJunitCarriesBoth) {
  const std::string base = run_two_groups("run_base.json");
  // A baseline in which g2 was 1/0.9 faster: the current run is 10 % slower against it.
  const std::string fast = temp_path("run_fast.json");
  write_json(fast, scale_group(json::parse(read_file(base)), "g2-qp", 1.0 / 0.9));
  const std::string junit = temp_path("run_baseline.xml");
  const std::string html = temp_path("run_baseline.html");
  const std::string results = temp_path("run_current.json");
  const Outcome outcome =
      run_qosbench({"run", kTwoGroups, "--repetitions", "5", "--duration", "20ms", "--baseline",
                    fast, "--junit", junit, "--html", html, "--json", results});
  ASSERT_EQ(outcome.exit_code, 1) << outcome.out << outcome.err;
  EXPECT_NE(outcome.out.find("REGRESSED"), std::string::npos) << outcome.out;
  EXPECT_TRUE(std::filesystem::exists(html));
  EXPECT_TRUE(std::filesystem::exists(results));
  const json current = json::parse(read_file(results));
  EXPECT_EQ(current["passed"], true);  // the gates pass; the regression alone fails the run
  const auto root = qb::testing::parse_xml(read_file(junit));
  const auto suites = root->all("testsuite");
  ASSERT_EQ(suites.size(), 2u);
  EXPECT_EQ(attr_count(*suites[0], "tests"), current["scenarios"][0]["gates"].size());
  EXPECT_EQ(attr_count(*suites[0], "failures"), 0u);
  // g2's throughput (group and four flows) fell 10 %; its share error shrank (the baseline
  // had g2 11 % above its share), which is an improvement, not a failure.
  EXPECT_EQ(attr_count(*suites[1], "failures"), 5u);
  EXPECT_EQ(attr_count(*root, "failures"), 5u);

  // Against the true baseline (same seed): exit 0.
  const Outcome same = run_qosbench({"run", kTwoGroups, "--repetitions", "5", "--duration", "20ms",
                                     "--baseline", base, "--quiet"});
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_EQ(same.out, "PASSED\n");
}

TEST(ReportCli, TruncatedResultsAreExitTwoAndWriteNothing) {
  const std::string base = run_two_groups("trunc_base.json");
  const std::string text = read_file(base);
  const std::string half = write_temp("qb_report_" + std::to_string(::getpid()) + "_half.json",
                                      text.substr(0, text.size() / 2));
  const std::string html = temp_path("never.html");
  const std::string junit = temp_path("never.xml");
  const std::string results = temp_path("never.json");

  Outcome outcome = run_qosbench({"report", half, "-o", html});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find(half), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("truncated"), std::string::npos) << outcome.err;

  outcome = run_qosbench({"compare", base, half, "--junit", junit, "--html", html});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
  outcome = run_qosbench({"compare", half, base, "--junit", junit});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;

  // run refuses a bad baseline before running anything, and writes none of its outputs.
  outcome = run_qosbench(
      {"run", kTwoGroups, "--baseline", half, "--json", results, "--junit", junit, "--html", html});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.err;
  EXPECT_TRUE(outcome.out.empty()) << outcome.out;

  for (const auto& path : {html, junit, results}) {
    EXPECT_FALSE(std::filesystem::exists(path)) << path;
  }
}

TEST(ReportCli, AnotherSchemaVersionIsExitTwo) {
  const std::string base = run_two_groups("schema_base.json");
  json v2 = json::parse(read_file(base));
  v2["schema"] = "qosbench.results/2";
  const std::string path = temp_path("schema_v2.json");
  write_json(path, v2);
  const std::string html = temp_path("schema.html");
  Outcome outcome = run_qosbench({"report", path, "-o", html});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("qosbench.results/2"), std::string::npos) << outcome.err;
  EXPECT_FALSE(std::filesystem::exists(html));
  outcome = run_qosbench({"compare", base, path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("qosbench.results/2"), std::string::npos) << outcome.err;
}

TEST(ReportCli, IncompatibleFilesAreExitTwo) {
  const std::string base = run_two_groups("compat_base.json");
  const json results = json::parse(read_file(base));

  json other_suite = results;
  other_suite["suite"] = "three levels";
  const std::string suite_path = temp_path("compat_suite.json");
  write_json(suite_path, other_suite);
  Outcome outcome = run_qosbench({"compare", base, suite_path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("three levels"), std::string::npos) << outcome.err;

  json edited = results;
  edited["config_hash"] = "0000000000000000";
  const std::string hash_path = temp_path("compat_hash.json");
  write_json(hash_path, edited);
  outcome = run_qosbench({"compare", base, hash_path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("--allow-config-change"), std::string::npos) << outcome.err;
  outcome = run_qosbench({"compare", base, hash_path, "--allow-config-change"});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("note: the suite file changed"), std::string::npos) << outcome.out;

  json fewer = results;
  fewer["scenarios"][0]["flows"].erase(0);
  const std::string fewer_path = temp_path("compat_fewer.json");
  write_json(fewer_path, fewer);
  outcome = run_qosbench({"compare", base, fewer_path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_NE(outcome.err.find("g1-qp#0"), std::string::npos) << outcome.err;

  // run --baseline against another suite fails before running.
  outcome = run_qosbench({"run", kTwoGroups, "--baseline", suite_path});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_TRUE(outcome.out.empty());
}

TEST(ReportCli, BadComparisonArgumentsAreUsageErrors) {
  EXPECT_EQ(run_qosbench({"compare", "only-one.json"}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"compare", "a.json", "b.json", "--threshold", "-1"}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"compare", "a.json", "b.json", "--alpha", "2"}).exit_code, 2);
  EXPECT_EQ(run_qosbench({"report", "a.json"}).exit_code, 2);  // -o is required
  const Outcome missing = run_qosbench({"compare", "/nonexistent/a.json", "/nonexistent/b.json"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("/nonexistent/a.json"), std::string::npos) << missing.err;
}

TEST(ReportCli, RunJunitHasOneTestCasePerGate) {
  const std::string junit = temp_path("gates.xml");
  const std::string results = temp_path("gates.json");
  const Outcome outcome = run_qosbench({"run", kTwoGroups, "--duration", "20ms", "--junit", junit,
                                        "--json", results, "--seed", "3"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const json r = json::parse(read_file(results));
  const auto root = qb::testing::parse_xml(read_file(junit));
  const auto cases = root->all("testcase");
  const json& gates = r["scenarios"][0]["gates"];
  ASSERT_EQ(cases.size(), gates.size());
  ASSERT_GE(cases.size(), 4u);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i]->attr("name"), gates[i]["name"].get<std::string>());
    EXPECT_EQ(cases[i]->attr("classname"), "two groups");  // not "two groups.two groups"
    EXPECT_EQ(cases[i]->child("failure"), nullptr);
  }
  std::map<std::string, std::string> properties;
  for (const auto* p : root->all("property")) properties[p->attr("name")] = p->attr("value");
  EXPECT_EQ(properties["driver"], "sim");
  EXPECT_EQ(properties["seed"], "3");
  EXPECT_EQ(properties["config_hash"], r["config_hash"].get<std::string>());
  EXPECT_EQ(attr_count(*root, "tests"), gates.size());
  EXPECT_EQ(attr_count(*root, "failures"), 0u);
}

TEST(ReportCli, FailedGateIsAJunitFailureWithValueAndThreshold) {
  OneFlow tight;
  tight.name = "tight <gate> & co";
  tight.extra = "[[gates.latency]]\nflow = \"f\"\np99 = \"1ns\"\n";
  const std::string suite =
      write_temp("qb_report_" + std::to_string(::getpid()) + "_gate.toml", one_flow_suite(tight));
  const std::string junit = temp_path("failed_gate.xml");
  const Outcome outcome = run_qosbench({"run", suite, "--junit", junit});
  ASSERT_EQ(outcome.exit_code, 1) << outcome.err;
  const auto root = qb::testing::parse_xml(read_file(junit));
  EXPECT_EQ(attr_count(*root, "failures"), 1u);
  const auto failures = root->all("failure");
  ASSERT_EQ(failures.size(), 1u);
  const std::string message = failures[0]->attr("message");
  EXPECT_NE(message.find("measured"), std::string::npos) << message;
  EXPECT_NE(message.find(" > 1 ns (limit <= 1 ns)"), std::string::npos) << message;
  EXPECT_EQ(root->all("testcase")[0]->attr("classname"), "tight <gate> & co");
  // The console says the same: the relation that holds and the limit.
  EXPECT_NE(outcome.out.find("FAIL latency.p99[f]"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find(" > 1 ns (limit <= 1 ns)"), std::string::npos) << outcome.out;
}

TEST(ReportCli, NoProgressLineWhenStderrIsNotATerminal) {
  // run_qosbench sends stderr to a file: no progress line, no carriage returns, no colour (the
  // plain interval lines only: tests/e2e/live_cli_test.cpp).
  const Outcome outcome =
      run_qosbench({"run", kTwoGroups, "--repetitions", "4", "--duration", "20ms"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  for (const std::string* text : {&outcome.out, &outcome.err}) {
    EXPECT_EQ(text->find('\r'), std::string::npos);
    EXPECT_EQ(text->find('\x1b'), std::string::npos);
    EXPECT_EQ(text->find("ETA"), std::string::npos);
  }
}

}  // namespace
}  // namespace qb::e2e
