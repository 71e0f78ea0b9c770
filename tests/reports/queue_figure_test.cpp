// The switch queue-depth figure of the HTML report (reports/src/queue_figure.cpp) and the
// results' queue_depth field: one series per egress queue, after the throughput figure; a
// results file without the field still reads and renders, without the figure.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "qb/reports/html_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

// The opening tags that contain `needle`.
std::vector<std::string> tags(const std::string& html, const std::string& needle) {
  std::vector<std::string> out;
  for (size_t pos = html.find(needle); pos != std::string::npos;
       pos = html.find(needle, pos + needle.size())) {
    const size_t open = html.rfind('<', pos);
    out.push_back(html.substr(open, html.find('>', pos) - open + 1));
  }
  return out;
}

Results with_queues() {
  Results r = testing::sample_results();
  r.scenarios[0].queue_depth = {
      QueueDepthSeries{"TC0", {1000, 250000, 4000}, {500, 120000.5, 2000}},
      QueueDepthSeries{"TC3", {0, 8000, 0}, {0, 4000, 0}},
  };
  return r;
}

TEST(QueueFigure, OneSeriesPerQueueAfterTheThroughputFigure) {
  const std::string html = render_html_report(with_queues());
  const auto groups = tags(html, "class=\"queue-series\"");
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_NE(groups[0].find("data-queue=\"TC0\""), std::string::npos);
  EXPECT_NE(groups[1].find("data-queue=\"TC3\""), std::string::npos);
  // Each queue: its mean and its maximum, with the data as given.
  EXPECT_EQ(tags(html, "data-kind=\"mean\"").size(), 2u);
  EXPECT_EQ(tags(html, "data-kind=\"max\"").size(), 2u);
  EXPECT_NE(html.find("data-points=\"[500,120000.5,2000]\""), std::string::npos);
  EXPECT_NE(html.find("data-points=\"[1000,250000,4000]\""), std::string::npos);
  const size_t throughput = html.find("class=\"chart throughput");
  const size_t queue = html.find("class=\"chart queue-depth");
  const size_t latency = html.find("Latency percentile spectrum");
  ASSERT_NE(throughput, std::string::npos);
  ASSERT_NE(queue, std::string::npos);
  EXPECT_LT(throughput, queue);
  EXPECT_LT(queue, latency);
  // The y axis reaches the deepest bin (250 KB, with headroom).
  EXPECT_NE(html.find("switch egress queue (KB)"), std::string::npos);
}

TEST(QueueFigure, ResultsWithoutTheSeriesStillRender) {
  const std::string html = render_html_report(testing::sample_results());
  EXPECT_EQ(html.find("queue-series"), std::string::npos);
  EXPECT_EQ(html.find("Switch queue depth over time"), std::string::npos);
  EXPECT_NE(html.find("class=\"chart throughput"), std::string::npos);
}

TEST(QueueFigure, TheSeriesRoundTripThroughJsonAndItsAbsenceReadsAsNone) {
  const Results r = with_queues();
  const auto back = results_from_json(results_to_json(r), "q.json");
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back->scenarios[0].queue_depth.size(), 2u);
  EXPECT_EQ(back->scenarios[0].queue_depth[0].name, "TC0");
  EXPECT_EQ(back->scenarios[0].queue_depth[0].mean_bytes, r.scenarios[0].queue_depth[0].mean_bytes);
  EXPECT_EQ(back->scenarios[0].queue_depth[1].max_bytes, r.scenarios[0].queue_depth[1].max_bytes);

  const std::string plain = results_to_json(testing::sample_results());
  EXPECT_EQ(plain.find("queue_depth"), std::string::npos);  // absent unless given
  const auto old = results_from_json(plain, "old.json");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_TRUE(old->scenarios[0].queue_depth.empty());
  EXPECT_EQ(render_html_report(*old).find("queue-series"), std::string::npos);
}

}  // namespace
}  // namespace qb::report
