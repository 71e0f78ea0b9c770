// The HTML report names both latency bases in every table that shows latency, and a failed
// gate's line in the verdict states the relation that holds and the limit.
#include <gtest/gtest.h>

#include <string>

#include "qb/reports/compare_report.hpp"
#include "qb/reports/html_report.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HtmlLabels, LatencyColumnsSayTheirBasis) {
  const std::string html = render_html_report(testing::sample_results());
  EXPECT_GE(count(html, ">p99 (sched.)<"), 2u);  // groups and flows tables
  EXPECT_EQ(count(html, ">p99 (sent)<"), 1u);    // groups table
  EXPECT_EQ(html.find(">p99 sent<"), std::string::npos);
  EXPECT_EQ(html.find(">p50<"), std::string::npos);
  EXPECT_NE(html.find("from the scheduled send time"), std::string::npos);
  EXPECT_NE(html.find("from the actual send time"), std::string::npos);
}

// Every rate column says its basis, as the console does: expected and measured on the wire,
// goodput in payload, packets in Mpps; the offered rate both ways.
TEST(HtmlLabels, RateColumnsSayTheirBasis) {
  const std::string html = render_html_report(testing::sample_results());
  // groups and flows tables (the sample has no classes): expected, measured, goodput, packets
  EXPECT_EQ(count(html, "<span class=\"basis\">wire Gbit/s</span>"), 5u) << "2 + 2 + offered";
  EXPECT_EQ(count(html, "<span class=\"basis\">payload Gbit/s</span>"), 3u) << "2 + offered";
  EXPECT_EQ(count(html, "<span class=\"basis\">Mpps</span>"), 2u);
  EXPECT_EQ(html.find(">offered</th>"), std::string::npos) << "an offered column with no basis";
  EXPECT_EQ(html.find(">expected</th>"), std::string::npos);
  EXPECT_EQ(html.find(">measured</th>"), std::string::npos);
  EXPECT_NE(html.find("goodput counts payload only"), std::string::npos);
}

TEST(HtmlLabels, RateCellsHoldGoodputAndPackets) {
  Results results = testing::sample_results();
  FlowResult& f = results.scenarios[0].flows[0];
  f.measured_bps = 24e9;
  f.measured_payload_bps = 23.5e9;
  f.offered_bps = 1.16e9;
  f.counts.packets = 1000;
  f.counts.wire_bytes = 1000 * 4170;
  f.counts.payload_bytes = 1000 * 4096;
  const std::string html = render_html_report(results);
  const size_t row = html.find("<tr data-flow=\"" + f.name + "\"");
  ASSERT_NE(row, std::string::npos);
  const std::string tr = html.substr(row, html.find("</tr>", row) - row);
  // offered wire, offered payload (at the flow's payload/wire ratio), expected, measured,
  // goodput, Mpps: 24e9 / 8 / 4170 = 0.7194 Mpps
  EXPECT_NE(tr.find(">1.160<"), std::string::npos) << tr;
  EXPECT_NE(tr.find(">1.139<"), std::string::npos) << tr;
  EXPECT_NE(tr.find(">24.00<"), std::string::npos) << tr;
  EXPECT_NE(tr.find(">23.50<"), std::string::npos) << tr;
  EXPECT_NE(tr.find(">0.7194<"), std::string::npos) << tr;
  EXPECT_NE(tr.find("data-measured-payload-bps=\"23500000000\""), std::string::npos) << tr;
}

// A flow and a group of the same name both regressed: the banner says which line is which.
TEST(HtmlLabels, VerdictNamesTheKindOfEachRegression) {
  const Results r = testing::sample_results();
  Comparison c;
  c.suite = r.suite;
  for (const char* kind : {"flow", "group"}) {
    MetricComparison m;
    m.scenario = r.scenarios[0].name;
    m.kind = kind;
    m.subject = "h1-gold";
    m.metric = "measured_bps";
    m.change = -1.0 / 3.0;
    m.p_value = 0.001;
    m.significant = true;
    m.regression = true;
    c.metrics.push_back(m);
  }
  c.regressions = 2;
  const std::string html = render_html_report(r, &c);
  const std::string verdict = html.substr(html.find("id=\"verdict\""));
  EXPECT_NE(verdict.find(">flow h1-gold measured_bps -33.33%<"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find(">group h1-gold measured_bps -33.33%<"), std::string::npos);
}

// The min_jain gate is a line on the Jain chart at its threshold; none without the gate.
TEST(HtmlLabels, JainChartDrawsTheMinJainGate) {
  Results results = testing::sample_results();
  results.scenarios[0].gates = {
      gate_result("min_jain", true, 0.9999, 0.995, "", "", GateKind::index, GateBound::at_least)};
  const std::string html = render_html_report(results);
  EXPECT_EQ(count(html, "class=\"gate-line jain-gate\""), 1u);
  EXPECT_NE(html.find("data-min-jain=\"0.995\""), std::string::npos);
  EXPECT_NE(html.find(">min_jain gate 0.995<"), std::string::npos);
  results.scenarios[0].gates.clear();
  EXPECT_EQ(count(render_html_report(results), "jain-gate"), 0u);
}

TEST(HtmlLabels, FailedGateSaysTheRelationThatHolds) {
  Results results = testing::sample_results();
  GateResult gate = gate_result("latency.p99[g1-qp]", false, 250000, 200000, "ns", "",
                                GateKind::duration, GateBound::at_most);
  results.scenarios[0].gates = {gate};
  results.scenarios[0].passed = results.passed = false;
  const std::string html = render_html_report(results);
  EXPECT_NE(html.find(" &gt; 200"), std::string::npos) << "no '>' relation";
  EXPECT_NE(html.find("(limit ≤ 200"), std::string::npos);
}

}  // namespace
}  // namespace qb::report
