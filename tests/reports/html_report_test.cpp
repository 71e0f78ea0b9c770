// The HTML report: the data-attribute contract (docs/report.md), escaping of every string from
// the results, no external reference of any kind, top-N on large runs, the comparison table and
// a well-nested document. Results are built by hand (figures checked exactly) and by running the
// simulator on every suite in configs/ (those reports are also written to the build directory
// as html_reports/<config>.html for a person to look at).
#include "qb/reports/html_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "../support/run_and_judge.hpp"
#include "html_scan.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::report {
namespace {

using testing::attr;
using testing::count;
using testing::tags_with_class;

/// Every tag closed in order (a stack parser; `/>` closes itself, <!DOCTYPE> is skipped).
::testing::AssertionResult well_nested(const std::string& html) {
  std::vector<std::string> stack;
  size_t pos = 0;
  while ((pos = html.find('<', pos)) != std::string::npos) {
    const size_t end = html.find('>', pos);
    if (end == std::string::npos) return ::testing::AssertionFailure() << "unterminated tag";
    const std::string tag = html.substr(pos + 1, end - pos - 1);
    pos = end + 1;
    if (tag.starts_with("!")) continue;
    if (tag.starts_with("/")) {
      const std::string name = tag.substr(1);
      if (stack.empty() || stack.back() != name) {
        return ::testing::AssertionFailure()
               << "</" << name << "> closes <" << (stack.empty() ? "nothing" : stack.back())
               << "> at offset " << pos;
      }
      stack.pop_back();
      continue;
    }
    if (tag.ends_with("/")) continue;
    const std::string name = tag.substr(0, tag.find_first_of(" \n"));
    stack.push_back(name);
    if (name == "style") {  // raw text up to </style>
      const size_t close = html.find("</style>", pos);
      if (close == std::string::npos) return ::testing::AssertionFailure() << "no </style>";
      pos = close;
    }
  }
  if (!stack.empty()) return ::testing::AssertionFailure() << "<" << stack.back() << "> unclosed";
  return ::testing::AssertionSuccess();
}

void expect_no_external_reference(const std::string& html) {
  for (const char* banned : {"http://", "https://", "src=", "<script", "<link", "<img", "url(",
                             "@import", "<iframe", "javascript:"}) {
    EXPECT_EQ(html.find(banned), std::string::npos) << "found " << banned;
  }
}

LatencySummary latency(int64_t base_ns) {
  LatencySummary l;
  l.count = 1000;
  l.p50_ns = base_ns;
  l.p90_ns = base_ns * 2;
  l.p99_ns = base_ns * 3;
  l.p999_ns = base_ns * 4;
  l.max_ns = base_ns * 6;
  l.min_ns = base_ns / 2;
  l.mean_ns = static_cast<double>(base_ns);
  l.spectrum = {{0.0, base_ns / 2},  {50.0, base_ns},     {90.0, base_ns * 2},
                {99.0, base_ns * 3}, {99.9, base_ns * 4}, {99.999, base_ns * 5},
                {100.0, base_ns * 6}};
  return l;
}

const char* kHostile = "<script>alert(1)</script>";
const char* kHostileEscaped = "&lt;script&gt;alert(1)&lt;/script&gt;";

/// The man-page tree by hand: g1 (share 7) and g2 (share 3, capped at 4.096 Gbit/s), a hostile
/// flow name, a hostile suite name and gate detail.
Results hand_results() {
  Results r;
  r.tool_version = "0.1.0";
  r.suite = "two \"groups\" & <friends>";
  r.suite_file = "configs/it's.toml";
  r.config_hash = "eaebdd789a4cf907";
  r.driver = "sim";
  r.clock = "virtual";
  r.host = "host<1>";
  r.date_utc = "2026-11-22T06:20:08Z";
  r.passed = false;
  ScenarioResult s;
  s.name = "scen 'one'";
  s.transport = "rocev2";
  s.mtu_bytes = 4096;
  s.capacity_bps = 100e9;
  s.seed = 7;
  s.repetitions = s.repetitions_completed = 3;
  s.warmup_ns = 10'000'000;
  s.duration_ns = 4'000'000;
  s.bin_ns = 1'000'000;
  auto flow = [](std::string name, std::string group, std::string leaf, double expected,
                 double measured) {
    FlowResult f;
    f.name = std::move(name);
    f.group = std::move(group);
    f.leaf = std::move(leaf);
    f.expected_bps = expected;
    f.measured_bps = measured;
    f.error = measured / expected - 1.0;
    f.series_bps = {measured, measured, measured, measured};
    f.latency = latency(20'000);
    f.latency_from_sent = latency(2'000);
    return f;
  };
  s.flows.push_back(flow("g1-qp#0", "g1-qp", "g1", 47952000000.0, 47952000000.0));
  s.flows.push_back(flow(kHostile, "g1-qp", "g1", 47952000000.0, 47000000000.0));
  s.flows.push_back(flow("g2-qp#0", "g2-qp", "g2", 4096000000.0, 4100096000.0));
  GroupResult g1;
  g1.name = "g1-qp";
  g1.leaf = "g1";
  g1.flows = 2;
  g1.expected_bps = 95904000000.0;
  g1.measured_bps = 94952000000.0;
  g1.error = g1.measured_bps / g1.expected_bps - 1.0;
  g1.latency = latency(21'980);
  g1.latency_from_sent = latency(1'000);
  g1.series_bps = {9.4e10, 9.5e10, 9.5e10, 9.5e10};
  GroupResult g2 = g1;
  g2.name = "g2-qp";
  g2.leaf = "g2";
  g2.flows = 1;
  g2.expected_bps = 4096000000.0;
  g2.measured_bps = 4100096000.0;
  g2.error = 0.001;
  g2.latency = latency(300'000);
  g2.series_bps = {4.1e9, 4.1e9, 4.1e9, 4.1e9};
  s.groups = {g1, g2};
  ElementResult root{"root", "", false, 0, 1, std::nullopt, 0.0, 100e9, 99052096000.0};
  ElementResult e1{"g1", "root", true, 7, 7, std::nullopt, 0.0, 95904000000.0, 94952000000.0};
  ElementResult e2{"g2",         "root",       true,         3,           3,
                   4096000000.0, 4096000000.0, 4096000000.0, 4100096000.0};
  s.tree = {root, e1, e2};
  s.fairness.jain = 0.9999;
  s.fairness.worst_flow = kHostile;
  s.fairness.worst_flow_error = std::fabs(s.flows[1].error);
  s.fairness.jain_series = {0.99, 0.999, 1.0, 0.00001};
  s.gates.push_back(gate_result("max_share_error", false, 0.0198, 0.01, "", "worst flow: <b>x</b>",
                                GateKind::ratio, GateBound::at_most));
  s.gates.push_back(gate_result("latency.p99[g1-qp]", true, 65940.0, 200000.0, "ns", "3000 samples",
                                GateKind::duration, GateBound::at_most));
  s.passed = false;
  r.scenarios.push_back(std::move(s));
  return r;
}

TEST(HtmlReport, CarriesTheContractAttributesWithTheirValues) {
  const Results r = hand_results();
  const std::string html = render_html_report(r);

  EXPECT_NE(html.find("<body data-schema=\"qosbench.results/1\" data-suite=\"two &quot;groups"
                      "&quot; &amp; &lt;friends&gt;\">"),
            std::string::npos);
  EXPECT_NE(html.find("id=\"verdict\" class=\"verdict fail\" data-passed=\"false\" "
                      "data-complete=\"true\""),
            std::string::npos);
  EXPECT_EQ(count(html, "id=\"metadata\""), 1u);
  for (const char* key : {"driver", "clock", "host", "tool version", "date", "config hash", "seed",
                          "suite file", "complete"}) {
    EXPECT_EQ(count(html, std::string("data-key=\"") + key + "\""), 1u) << key;
  }
  EXPECT_NE(html.find("eaebdd789a4cf907"), std::string::npos);

  const auto sections = tags_with_class(html, "scenario");
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_EQ(attr(sections[0], "data-scenario"), "scen &#39;one&#39;");
  EXPECT_EQ(attr(sections[0], "data-flows-total"), "3");

  const auto gates = tags_with_class(html, "gate");
  ASSERT_EQ(gates.size(), 2u);
  EXPECT_EQ(attr(gates[0], "data-gate"), "max_share_error");
  EXPECT_EQ(attr(gates[0], "data-passed"), "false");
  EXPECT_EQ(attr(gates[0], "data-value"), "0.0198");
  EXPECT_EQ(attr(gates[0], "data-threshold"), "0.01");
  EXPECT_EQ(attr(gates[1], "data-gate"), "latency.p99[g1-qp]");
  EXPECT_EQ(attr(gates[1], "data-passed"), "true");
  EXPECT_EQ(attr(gates[1], "data-value"), "65940");
  EXPECT_EQ(attr(gates[1], "data-threshold"), "200000");

  const auto nodes = tags_with_class(html, "tree-node");
  ASSERT_EQ(nodes.size(), 3u);
  EXPECT_EQ(attr(nodes[0], "data-name"), "root");
  EXPECT_EQ(attr(nodes[0], "data-kind"), "node");
  EXPECT_EQ(attr(nodes[0], "data-cap-bps"), "<missing>");
  EXPECT_EQ(attr(nodes[2], "data-name"), "g2");
  EXPECT_EQ(attr(nodes[2], "data-kind"), "leaf");
  EXPECT_EQ(attr(nodes[2], "data-expected-bps"), "4096000000");
  EXPECT_EQ(attr(nodes[2], "data-measured-bps"), "4100096000");
  EXPECT_EQ(attr(nodes[2], "data-cap-bps"), "4096000000");
  EXPECT_NE(html.find("<svg class=\"chart tree\""), std::string::npos);

  // Flow bars sorted by |error|: the hostile flow (-1.98 %), g2-qp#0 (+0.1 %), g1-qp#0 (0).
  const auto bars = tags_with_class(html, "flow-bar");
  ASSERT_EQ(bars.size(), 3u);
  EXPECT_EQ(attr(bars[0], "data-flow"), kHostileEscaped);
  EXPECT_EQ(attr(bars[0], "data-group"), "g1-qp");
  EXPECT_EQ(attr(bars[0], "data-expected-bps"), "47952000000");
  EXPECT_EQ(attr(bars[0], "data-measured-bps"), "47000000000");
  EXPECT_EQ(std::stod(attr(bars[0], "data-error")), r.scenarios[0].flows[1].error);
  EXPECT_EQ(attr(bars[1], "data-flow"), "g2-qp#0");
  EXPECT_EQ(attr(bars[2], "data-flow"), "g1-qp#0");
  EXPECT_EQ(attr(bars[2], "data-error"), "0");
  EXPECT_NE(html.find("all 3 flows"), std::string::npos);

  const auto group_bars = tags_with_class(html, "group-bar");
  ASSERT_EQ(group_bars.size(), 2u);
  EXPECT_EQ(attr(group_bars[1], "data-group"), "g2-qp");
  EXPECT_EQ(attr(group_bars[1], "data-error"), "0.001");
  EXPECT_EQ(attr(group_bars[1], "data-expected-bps"), "4096000000");

  const auto series = tags_with_class(html, "series");
  ASSERT_EQ(series.size(), 5u);  // 2 groups + 3 flows
  EXPECT_EQ(attr(series[0], "data-kind"), "group");
  EXPECT_EQ(attr(series[0], "data-subject"), "g1-qp");
  EXPECT_EQ(attr(series[0], "data-points"), "[94000000000,95000000000,95000000000,95000000000]");
  EXPECT_EQ(attr(series[2], "data-kind"), "flow");
  EXPECT_EQ(attr(series[2], "data-subject"), kHostileEscaped);
  EXPECT_EQ(count(html, "data-kind=\"flow\""), 3u);

  const auto spectra = tags_with_class(html, "spectrum");
  ASSERT_EQ(spectra.size(), 4u);  // 2 groups x 2 bases
  EXPECT_EQ(attr(spectra[0], "data-subject"), "g1-qp");
  EXPECT_EQ(attr(spectra[0], "data-basis"), "scheduled");
  EXPECT_EQ(attr(spectra[0], "data-p99-ns"), "65940");
  EXPECT_EQ(attr(spectra[1], "data-basis"), "sent");
  EXPECT_EQ(attr(spectra[1], "data-p99-ns"), "3000");
  EXPECT_EQ(attr(spectra[2], "data-subject"), "g2-qp");
  EXPECT_EQ(attr(spectra[2], "data-p99-ns"), "900000");
  // The path covers 50 .. 99.999 (five points); p = 100 is the separate max marker.
  EXPECT_EQ(count(attr(spectra[0], "d"), " L"), 4u);
  EXPECT_EQ(count(html, "class=\"max-marker"), 4u);
  for (const char* tick : {"50%", "90%", "99%", "99.9%", "99.99%", "99.999%", "max"}) {
    // An x tick label on both panels.
    EXPECT_EQ(count(html, std::string("text-anchor=\"middle\">") + tick + "<"), 2u) << tick;
  }
  EXPECT_NE(html.find(">100 µs<"), std::string::npos) << "log axis ticks in time units";

  const auto jain = tags_with_class(html, "jain-series");
  ASSERT_EQ(jain.size(), 1u);
  EXPECT_EQ(attr(jain[0], "data-points"), "[0.99,0.999,1,0.00001]");

  EXPECT_EQ(html.find("id=\"comparison\""), std::string::npos);
  EXPECT_TRUE(well_nested(html));
  expect_no_external_reference(html);
}

TEST(HtmlReport, EscapesEveryStringFromTheResults) {
  Results r = hand_results();
  r.scenarios[0].name = kHostile;
  r.scenarios[0].groups[0].name = "g\"1' & <g>";
  r.scenarios[0].tree[1].name = "<leaf onclick=x>";
  r.scenarios[0].gates[0].name = "gate<i>";
  r.warnings = {"sched.leaf[2]: <warn> & \"quote\""};
  r.scenarios[0].driver_stats = {{"<stat>", 1.0}};
  const std::string html = render_html_report(r);
  // No hostile string survives unescaped anywhere (text, attributes, tooltips, tables).
  for (const char* raw : {"<script>", "<b>x</b>", "<friends>", "<g>", "<leaf", "<i>", "<warn>",
                          "<stat>", "host<1>", "g\"1'", "it's"}) {
    EXPECT_EQ(html.find(raw), std::string::npos) << raw;
  }
  EXPECT_GE(count(html, kHostileEscaped), 6u);  // bar, series, table, tooltip, verdict, ...
  EXPECT_NE(html.find("data-scenario=\"" + std::string(kHostileEscaped) + "\""), std::string::npos);
  EXPECT_NE(html.find("worst flow: &lt;b&gt;x&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(html.find("data-group=\"g&quot;1&#39; &amp; &lt;g&gt;\""), std::string::npos);
  EXPECT_NE(html.find("data-name=\"&lt;leaf onclick=x&gt;\""), std::string::npos);
  EXPECT_NE(html.find("&lt;warn&gt; &amp; &quot;quote&quot;"), std::string::npos);
  EXPECT_NE(html.find("configs/it&#39;s.toml"), std::string::npos);
  EXPECT_TRUE(well_nested(html));
  expect_no_external_reference(html);
}

TEST(HtmlReport, PassingRunAndIncompleteRun) {
  Results r = hand_results();
  r.passed = true;
  r.scenarios[0].passed = true;
  for (auto& g : r.scenarios[0].gates) g.passed = true;
  std::string html = render_html_report(r);
  EXPECT_NE(html.find("data-passed=\"true\" data-complete=\"true\""), std::string::npos);
  EXPECT_NE(html.find(">PASS<"), std::string::npos);
  EXPECT_EQ(count(html, "data-passed=\"false\""), 0u);

  r.complete = false;
  r.passed = false;
  r.scenarios[0].repetitions_completed = 1;
  html = render_html_report(r);
  EXPECT_NE(html.find("data-passed=\"false\" data-complete=\"false\""), std::string::npos);
  EXPECT_NE(html.find("1 of 3 repetitions"), std::string::npos);
}

TEST(HtmlReport, ComparisonRowsWithRegressionsFlagged) {
  const Results r = [] {
    Results passing = hand_results();
    passing.passed = true;
    return passing;
  }();
  Comparison c;
  c.suite = r.suite;
  c.baseline_label = "main.json";
  c.current_label = "<current>.json";
  auto metric = [](std::string subject, std::string name, double change, double p,
                   bool regression) {
    MetricComparison m;
    m.scenario = "scen 'one'";
    m.kind = "flow";
    m.subject = std::move(subject);
    m.metric = std::move(name);
    m.baseline = 1e10;
    m.current = 1e10 * (1 + change);
    m.change = change;
    m.p_value = p;
    m.significant = p < 0.05;
    m.regression = regression;
    return m;
  };
  c.metrics.push_back(metric("g1-qp#0", "measured_bps", 0.001, 0.6, false));
  c.metrics.push_back(metric(kHostile, "measured_bps", -0.1, 0.0079, true));
  c.metrics.push_back(metric("g2-qp#0", "latency_p99_ns", 0.02, 0.4, false));
  c.regressions = 1;
  c.notes = {"only 2 repetitions: <nothing> can be significant"};
  const std::string html = render_html_report(r, &c);
  std::filesystem::create_directories(QB_BINARY_DIR "/html_reports");
  std::ofstream(QB_BINARY_DIR "/html_reports/hand_comparison.html") << html;

  EXPECT_EQ(count(html, "<section id=\"comparison\">"), 1u);
  const auto rows = tags_with_class(html, "metric");
  ASSERT_EQ(rows.size(), 3u);
  // Regressions first.
  EXPECT_EQ(attr(rows[0], "data-subject"), kHostileEscaped);
  EXPECT_EQ(attr(rows[0], "data-regression"), "true");
  EXPECT_EQ(attr(rows[0], "data-scenario"), "scen &#39;one&#39;");
  EXPECT_EQ(attr(rows[0], "data-kind"), "flow");
  EXPECT_EQ(attr(rows[0], "data-metric"), "measured_bps");
  EXPECT_EQ(attr(rows[0], "data-change"), "-0.1");
  EXPECT_EQ(attr(rows[0], "data-p-value"), "0.0079");
  EXPECT_NE(rows[0].find("class=\"metric regression\""), std::string::npos);
  EXPECT_EQ(count(html, "data-regression=\"true\""), 1u);
  EXPECT_EQ(count(html, "data-regression=\"false\""), 2u);
  // A regression fails the page even when every gate passed.
  EXPECT_NE(html.find("data-passed=\"false\""), std::string::npos);
  EXPECT_NE(html.find("&lt;current&gt;.json"), std::string::npos);
  EXPECT_NE(html.find("<strong>Regressed against the baseline: 1 regression in 3 compared "
                      "metrics.</strong>"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;nothing&gt; can be significant"), std::string::npos);
  EXPECT_TRUE(well_nested(html));
  expect_no_external_reference(html);

  c.metrics[1].regression = false;
  c.regressions = 0;
  const std::string clean = render_html_report(r, &c);
  EXPECT_EQ(count(clean, "data-regression=\"true\""), 0u);
  EXPECT_NE(clean.find("id=\"verdict\" class=\"verdict pass\" data-passed=\"true\""),
            std::string::npos);
}

TEST(HtmlReport, EmptyAndDegenerateResultsStillRender) {
  Results r;
  EXPECT_TRUE(well_nested(render_html_report(r)));
  ScenarioResult s;
  s.name = "empty";
  s.repetitions = s.repetitions_completed = 1;  // measured, with degenerate figures
  GroupResult g;
  g.name = "silent";  // no samples, no series
  s.groups.push_back(g);
  s.tree.push_back({"a", "b", false, 1, 1, std::nullopt, 0, 0, 0});  // a cycle a <-> b
  s.tree.push_back({"b", "a", true, 1, 1, 1e9, 0, 0, 0});
  FlowResult f;
  f.name = "nan";
  f.error = std::nan("");
  s.flows.push_back(f);
  r.scenarios.push_back(s);
  const std::string html = render_html_report(r);
  EXPECT_TRUE(well_nested(html));
  EXPECT_EQ(tags_with_class(html, "tree-node").size(), 2u);
  EXPECT_EQ(tags_with_class(html, "spectrum").size(), 2u);
  EXPECT_EQ(attr(tags_with_class(html, "flow-bar")[0], "data-error"), "null");
  expect_no_external_reference(html);
}

// ---------------------------------------------------------------------------------------------
// Every suite in configs/ through the simulator: counts match the results, top-N holds.

Results run_config(const std::string& path) {
  auto suite = suite::load_suite_file(path);
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options;
  options.duration_ns = 20'000'000;
  options.repetitions = 2;
  auto results = testing_support::run_and_judge(*suite, "sim", options);
  EXPECT_TRUE(results.ok()) << results.error().to_string();
  return *results;
}

class ConfigReport : public ::testing::TestWithParam<std::string> {};

TEST_P(ConfigReport, MatchesTheResults) {
  const std::string path = std::string(QB_SOURCE_DIR "/configs/") + GetParam() + ".toml";
  const Results r = run_config(path);
  const std::string html = render_html_report(r);
  std::filesystem::create_directories(QB_BINARY_DIR "/html_reports");
  std::ofstream(std::string(QB_BINARY_DIR "/html_reports/") + GetParam() + ".html") << html;

  EXPECT_TRUE(well_nested(html));
  expect_no_external_reference(html);
  EXPECT_NE(html.find(std::string("data-passed=\"") + (r.passed ? "true" : "false") + "\""),
            std::string::npos);
  const auto sections = tags_with_class(html, "scenario");
  ASSERT_EQ(sections.size(), r.scenarios.size());
  size_t gates = 0, tree = 0, bars = 0, groups = 0;
  for (size_t i = 0; i < r.scenarios.size(); ++i) {
    const auto& s = r.scenarios[i];
    EXPECT_EQ(attr(sections[i], "data-flows-total"), std::to_string(s.flows.size()));
    gates += s.gates.size();
    tree += s.tree.size();
    bars += std::min<size_t>(s.flows.size(), 20);
    groups += s.groups.size();
  }
  EXPECT_EQ(tags_with_class(html, "gate").size(), gates);
  EXPECT_EQ(tags_with_class(html, "tree-node").size(), tree);
  EXPECT_EQ(tags_with_class(html, "flow-bar").size(), bars);
  EXPECT_EQ(tags_with_class(html, "group-bar").size(), groups);
  EXPECT_EQ(count(html, "data-kind=\"group\""), groups);
  EXPECT_EQ(count(html, "data-kind=\"flow\""), bars);
  EXPECT_EQ(tags_with_class(html, "spectrum").size(), 2 * groups);
  EXPECT_EQ(tags_with_class(html, "jain-series").size(), r.scenarios.size());

  // Each tree node carries the figures of its element.
  const auto nodes = tags_with_class(html, "tree-node");
  const auto& first = r.scenarios[0];
  for (size_t i = 0; i < first.tree.size(); ++i) {
    EXPECT_DOUBLE_EQ(std::stod(attr(nodes[i], "data-expected-bps")), first.tree[i].expected_bps);
    EXPECT_DOUBLE_EQ(std::stod(attr(nodes[i], "data-measured-bps")), first.tree[i].measured_bps);
    EXPECT_EQ(attr(nodes[i], "data-cap-bps") != "<missing>", first.tree[i].cap_bps.has_value());
  }
  // Each group series carries one point per bin.
  for (const auto& tag : tags_with_class(html, "series")) {
    const std::string points = attr(tag, "data-points");
    EXPECT_EQ(count(points, ",") + 1, first.groups[0].series_bps.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ConfigReport,
                         ::testing::Values("mlx5_two_groups", "three_level_caps",
                                           "cbr_redistribution", "imix_256_flows"));

TEST(HtmlReport, LargeRunsShowTheTopFlowsByErrorAndEveryGroup) {
  const Results r = run_config(QB_SOURCE_DIR "/configs/imix_256_flows.toml");
  const auto& s = r.scenarios.at(0);
  ASSERT_EQ(s.flows.size(), 256u);
  const std::string html = render_html_report(r);
  EXPECT_NE(html.find("top 20 of 256 flows by error"), std::string::npos);
  const auto bars = tags_with_class(html, "flow-bar");
  ASSERT_EQ(bars.size(), 20u);
  // Sorted by |error|, and they are the 20 largest.
  std::vector<double> errors;
  for (const auto& f : s.flows) errors.push_back(std::fabs(f.error));
  std::sort(errors.rbegin(), errors.rend());
  for (size_t i = 0; i < bars.size(); ++i) {
    EXPECT_DOUBLE_EQ(std::fabs(std::stod(attr(bars[i], "data-error"))), errors[i]) << i;
  }
  std::set<std::string> shown;
  for (const auto& b : bars) shown.insert(attr(b, "data-flow"));
  for (const auto& tag : tags_with_class(html, "series")) {
    if (attr(tag, "data-kind") == "flow") {
      EXPECT_EQ(shown.count(attr(tag, "data-subject")), 1u);
    }
  }
  EXPECT_EQ(tags_with_class(html, "group-bar").size(), 16u);

  HtmlOptions five;
  five.top_flows = 5;
  const std::string small = render_html_report(r, nullptr, five);
  EXPECT_EQ(tags_with_class(small, "flow-bar").size(), 5u);
  EXPECT_NE(small.find("top 5 of 256 flows by error"), std::string::npos);
  HtmlOptions all;
  all.top_flows = 0;
  EXPECT_EQ(tags_with_class(render_html_report(r, nullptr, all), "flow-bar").size(), 256u);
}

}  // namespace
}  // namespace qb::report
