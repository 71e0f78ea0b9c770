// The HTML report names both latency bases in every table that shows latency, and a failed
// gate's line in the verdict states the relation that holds and the limit.
#include <gtest/gtest.h>

#include <string>

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

TEST(HtmlLabels, FailedGateSaysTheRelationThatHolds) {
  Results results = testing::sample_results();
  GateResult gate{"latency.p99[g1-qp]", false, 250000, 200000, "ns", "", GateKind::duration,
                  GateBound::at_most};
  results.scenarios[0].gates = {gate};
  results.scenarios[0].passed = results.passed = false;
  const std::string html = render_html_report(results);
  EXPECT_NE(html.find(" &gt; 200"), std::string::npos) << "no '>' relation";
  EXPECT_NE(html.find("(limit ≤ 200"), std::string::npos);
}

}  // namespace
}  // namespace qb::report
