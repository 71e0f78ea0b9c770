// The policy figures of the HTML report and the results they are drawn from: ETS (priority ->
// TC, TSA, ETS shares, caps) and IB SL2VL + VLArb tables in the results JSON and drawn only for
// suites that have them, one tree per host for multi-host runs, escaping of every name they
// show, the minimum spans of the error and Jain axes, and the baseline overlay.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "../support/run_and_judge.hpp"
#include "html_scan.hpp"
#include "qb/engine/run.hpp"
#include "qb/reports/html_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "qb/suite/suite_loader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

using testing::attr;
using testing::count;
using testing::tags_with_class;

/// The markup of the first <svg class="chart NAME ..."> up to its </svg>.
std::string svg_of(const std::string& html, const std::string& name) {
  const size_t start = html.find("<svg class=\"chart " + name);
  if (start == std::string::npos) return {};
  return html.substr(start, html.find("</svg>", start) - start);
}

Results run_config(const std::string& name) {
  auto suite = suite::load_suite_file(std::string(QB_SOURCE_DIR "/configs/") + name + ".toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options;
  options.duration_ns = 10'000'000;
  options.repetitions = 1;
  auto results = testing_support::run_and_judge(*suite, "sim", options);
  EXPECT_TRUE(results.ok()) << results.error().to_string();
  return *results;
}

TEST(PolicyFigures, EtsSuiteCarriesItsTablesAndDrawsOneRowPerTcAndPriority) {
  const Results r = run_config("roce_ets");
  const ScenarioResult& s = r.scenarios.front();
  ASSERT_EQ(s.arbitration.size(), 1u);
  const PortArbitrationResult& nic = s.arbitration.front();
  EXPECT_EQ(nic.port, "nic");
  EXPECT_EQ(nic.kind, "ets");
  EXPECT_TRUE(nic.decides);
  EXPECT_EQ(nic.trust, "dscp");
  ASSERT_EQ(nic.tcs.size(), 8u);
  EXPECT_EQ(nic.tcs[5].tsa, "strict");
  ASSERT_TRUE(nic.tcs[5].max_rate_bps.has_value());
  EXPECT_DOUBLE_EQ(*nic.tcs[5].max_rate_bps, 10e9);
  EXPECT_EQ(nic.tcs[0].ets_percent, 40u);
  EXPECT_EQ(nic.tcs[1].ets_percent, 60u);
  EXPECT_GT(nic.tcs[5].group, nic.tcs[0].group);  // strict is served first
  EXPECT_TRUE(s.host_trees.empty());              // one host

  const std::string html = render_html_report(r);
  const auto tcs = tags_with_class(html, "ets-tc");
  ASSERT_EQ(tcs.size(), 8u);
  EXPECT_EQ(tags_with_class(html, "ets-priority").size(), 8u);
  EXPECT_EQ(tags_with_class(html, "prio-edge").size(), 8u);
  EXPECT_EQ(attr(tcs[5], "data-tsa"), "strict");
  EXPECT_EQ(attr(tcs[5], "data-max-rate-bps"), "10000000000");
  EXPECT_EQ(attr(tcs[0], "data-ets-percent"), "40");
  // Every class of the results has its figures on exactly one TC row.
  for (const ClassResult& c : s.classes) {
    size_t rows = 0;
    for (const auto& tag : tcs) {
      if (attr(tag, "data-class") != c.name) continue;
      ++rows;
      EXPECT_DOUBLE_EQ(std::stod(attr(tag, "data-expected-bps")), c.expected_bps) << c.name;
      EXPECT_DOUBLE_EQ(std::stod(attr(tag, "data-measured-bps")), c.measured_bps) << c.name;
    }
    EXPECT_EQ(rows, 1u) << c.name;
  }
  EXPECT_EQ(tags_with_class(html, "vlarb-entry").size(), 0u);
}

TEST(PolicyFigures, IbSuiteDrawsSl2VlAndEveryVlArbEntry) {
  const Results r = run_config("ib_opensm_doc_example");
  const ScenarioResult& s = r.scenarios.front();
  ASSERT_EQ(s.arbitration.size(), 1u);
  const PortArbitrationResult& nic = s.arbitration.front();
  EXPECT_EQ(nic.kind, "vlarb");
  EXPECT_EQ(nic.high_limit, 6u);
  ASSERT_EQ(nic.sl2vl.size(), 16u);
  EXPECT_EQ(nic.sl2vl[1], 1u);
  ASSERT_FALSE(nic.vlarb_high.empty());
  ASSERT_FALSE(nic.vlarb_low.empty());
  // opensm/doc-example.conf: qos_ca_vlarb_high 0:4, qos_ca_vlarb_low 0:0,1:64,2:128,...
  EXPECT_EQ(nic.vlarb_high[0].vl, 0u);
  EXPECT_EQ(nic.vlarb_high[0].weight, 4u);
  EXPECT_EQ(nic.vlarb_low[0].weight, 0u);
  EXPECT_EQ(nic.vlarb_low[1].vl, 1u);
  EXPECT_EQ(nic.vlarb_low[1].weight, 64u);

  const std::string html = render_html_report(r);
  const auto entries = tags_with_class(html, "vlarb-entry");
  ASSERT_EQ(entries.size(), nic.vlarb_high.size() + nic.vlarb_low.size());
  for (size_t i = 0; i < nic.vlarb_low.size(); ++i) {
    const std::string& tag = entries[nic.vlarb_high.size() + i];
    EXPECT_EQ(attr(tag, "data-table"), "low");
    EXPECT_EQ(attr(tag, "data-vl"), std::to_string(nic.vlarb_low[i].vl));
    EXPECT_EQ(attr(tag, "data-weight"), std::to_string(nic.vlarb_low[i].weight));
  }
  EXPECT_EQ(tags_with_class(html, "sl2vl-entry").size(), 16u);
  EXPECT_NE(html.find("high_limit 6"), std::string::npos);
  const auto vls = tags_with_class(html, "vl-class");
  for (const ClassResult& c : s.classes) {
    size_t rows = 0;
    for (const auto& tag : vls) rows += attr(tag, "data-class") == c.name ? 1 : 0;
    EXPECT_EQ(rows, 1u) << c.name;
  }
  EXPECT_EQ(tags_with_class(html, "ets-tc").size(), 0u);
}

TEST(PolicyFigures, SuitesWithoutClassesOrHostsHaveNoneOfTheNewFields) {
  const Results r = run_config("mlx5_two_groups");
  const std::string json = results_to_json(r);
  for (const char* key : {"\"arbitration\"", "\"host_trees\"", "\"vlarb_low\"", "\"tcs\""}) {
    EXPECT_EQ(json.find(key), std::string::npos) << key;
  }
  const std::string html = render_html_report(r);
  EXPECT_EQ(count(html, "class=\"arbitration\""), 0u);
  EXPECT_EQ(tags_with_class(html, "host-tree").size(), 0u);
  EXPECT_EQ(tags_with_class(html, "tree-node").size(), r.scenarios.front().tree.size());
}

TEST(PolicyFigures, MultiHostRunsShowOneTreePerHostWithThatHostsFlows) {
  const Results r = run_config("two_host_incast");
  const ScenarioResult& s = r.scenarios.front();
  ASSERT_EQ(s.host_trees.size(), 2u);
  for (size_t e = 0; e < s.tree.size(); ++e) {
    // The merged tree is the sum of the hosts'.
    EXPECT_NEAR(s.host_trees[0].tree[e].measured_bps + s.host_trees[1].tree[e].measured_bps,
                s.tree[e].measured_bps, 1e-6 * s.tree[e].measured_bps + 1e-9);
    EXPECT_NEAR(s.host_trees[0].tree[e].expected_bps + s.host_trees[1].tree[e].expected_bps,
                s.tree[e].expected_bps, 1e-6 * s.tree[e].expected_bps + 1e-9);
  }
  double host1 = 0.0;
  for (const auto& f : s.flows) host1 += f.host == 1 ? f.measured_bps : 0.0;
  EXPECT_DOUBLE_EQ(s.host_trees[1].tree[0].measured_bps, host1);
  EXPECT_DOUBLE_EQ(s.host_trees[1].tree[0].demand_bps, s.flows.back().offered_bps.value());

  const std::string html = render_html_report(r);
  EXPECT_EQ(tags_with_class(html, "host-tree").size(), 2u);
  EXPECT_EQ(tags_with_class(html, "tree-node").size(), 2 * s.tree.size());
}

TEST(PolicyFigures, JsonRoundTripAndOlderFilesWithoutTheNewFields) {
  for (const char* config : {"roce_ets", "ib_opensm_doc_example", "two_host_incast"}) {
    const std::string json = results_to_json(run_config(config));
    auto read = results_from_json(json, "mem.json");
    ASSERT_TRUE(read.ok()) << read.error().to_string();
    EXPECT_EQ(results_to_json(*read), json) << config;

    // An older file: the same results without the keys; it reads, and the page draws the
    // merged tree alone.
    auto doc = nlohmann::ordered_json::parse(json);
    for (auto& s : doc["scenarios"]) {
      s.erase("arbitration");
      s.erase("host_trees");
    }
    auto older = results_from_json(doc.dump(), "old.json");
    ASSERT_TRUE(older.ok()) << older.error().to_string();
    EXPECT_TRUE(older->scenarios.front().arbitration.empty());
    EXPECT_TRUE(older->scenarios.front().host_trees.empty());
    const std::string html = render_html_report(*older);
    EXPECT_EQ(count(html, "class=\"arbitration\""), 0u) << config;
    EXPECT_EQ(tags_with_class(html, "tree-node").size(), older->scenarios.front().tree.size());
  }
}

// A hand-made scenario with ETS, a VLArb switch port and two hosts, every name hostile.
Results hostile_policy_results() {
  Results r = testing::sample_results(3);
  ScenarioResult& s = r.scenarios.front();
  const std::string evil = "<script>alert(1)</script>";
  for (auto& f : s.flows) f.leaf = evil;
  for (auto& e : s.tree) {
    if (e.is_leaf) e.name = evil;
    if (e.parent.empty()) e.name = "\"root\" & <b>";
  }
  for (auto& e : s.tree) {
    if (!e.parent.empty()) e.parent = "\"root\" & <b>";
  }
  s.host_trees = {{0, s.tree}, {1, s.tree}};
  ClassResult c;
  c.name = "TC1";
  c.expected_bps = 50e9;
  c.measured_bps = 49e9;
  s.classes = {c};
  PortArbitrationResult ets;
  ets.port = "nic";
  ets.kind = "ets";
  ets.decides = true;
  ets.capacity_bps = 100e9;
  ets.trust = "<pcp>";
  ets.prio_tc = {0, 1, 2, 3, 4, 5, 6, 7};
  for (uint32_t tc = 0; tc < 8; ++tc) ets.tcs.push_back({tc, "<ets>", 0, std::nullopt, 0});
  PortArbitrationResult ib;
  ib.port = "switch";
  ib.kind = "vlarb";
  ib.capacity_bps = 100e9;
  ib.sl2vl.assign(16, 0);
  ib.vlarb_low = {{0, 1}, {1, 0}};
  s.arbitration = {ets, ib};
  return r;
}

TEST(PolicyFigures, EscapesEveryNameTheyShow) {
  const std::string html = render_html_report(hostile_policy_results());
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<pcp>"), std::string::npos);
  EXPECT_EQ(html.find("<ets>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("trust &lt;pcp&gt;"), std::string::npos);
  EXPECT_EQ(tags_with_class(html, "host-tree").size(), 2u);
  EXPECT_EQ(tags_with_class(html, "ets-tc").size(), 8u);
  EXPECT_EQ(tags_with_class(html, "vlarb-entry").size(), 2u);
}

TEST(PolicyFigures, ErrorAndJainAxesKeepAMinimumSpan) {
  Results r = testing::sample_results(3);
  ScenarioResult& s = r.scenarios.front();
  s.gates.clear();  // no gate widens the axes
  for (auto& g : s.groups) g.error = 1e-6;
  for (auto& f : s.flows) f.error = -2e-6;
  s.fairness.jain = 0.999999;
  s.fairness.jain_series.assign(s.fairness.jain_series.size(), 0.999999);
  const std::string html = render_html_report(r);
  // Share errors of a millionth: the error axis still reaches ±1 % (not ±0.0001 %).
  EXPECT_NE(svg_of(html, "group-bars").find(">1%<"), std::string::npos);
  EXPECT_EQ(svg_of(html, "group-bars").find("0.0001%<"), std::string::npos);
  // A Jain of 0.999999: the axis still spans 0.98..1 (a tick at 0.99, none at 0.9999).
  EXPECT_NE(svg_of(html, "jain").find(">0.99<"), std::string::npos);
  EXPECT_EQ(svg_of(html, "jain").find(">0.9999"), std::string::npos);
}

TEST(PolicyFigures, BaselineOverlayOnlyWithABaseline) {
  const Results current = testing::sample_results(3, 0.9);
  const Results baseline = testing::sample_results(3);
  const ScenarioResult& s = current.scenarios.front();

  const std::string without = render_html_report(current);
  EXPECT_EQ(tags_with_class(without, "baseline-series").size(), 0u);
  EXPECT_EQ(tags_with_class(without, "baseline-marker").size(), 0u);

  const std::string with = render_html_report(current, nullptr, {}, &baseline);
  // Throughput: every group, and every flow shown; errors: every group and flow bar.
  EXPECT_EQ(tags_with_class(with, "baseline-series").size(), s.groups.size() + s.flows.size());
  EXPECT_EQ(tags_with_class(with, "baseline-marker").size(), s.groups.size() + s.flows.size());
  const auto markers = tags_with_class(with, "baseline-marker");
  EXPECT_DOUBLE_EQ(std::stod(attr(markers[0], "data-baseline-error")),
                   baseline.scenarios.front().groups[0].error);
  EXPECT_NE(with.find("wide, faint, long dashes: baseline"), std::string::npos);
  // The key is drawn with the baseline lines' own style rule, apart from the expected key.
  EXPECT_EQ(tags_with_class(with, "baseline-key-line").size(), 1u);
  EXPECT_EQ(tags_with_class(without, "baseline-key-line").size(), 0u);
}

}  // namespace
}  // namespace qb::report
