// The fabric drawing of the HTML report (reports/src/fabric_figure.cpp) and the results'
// topology: one node per host and switch, one link per link with a half per channel coloured by
// its load bucket, the victim's paused channel marked, the per-hop classes on IB; the topology
// survives the JSON both ways, and a file whose link names an unknown node is refused.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "html_scan.hpp"
#include "qb/reports/fabric_layout.hpp"
#include "qb/reports/html_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

using testing::attr;
using testing::count;
using testing::tags_with_class;

TopologyLink link(const std::string& a, const std::string& b, const std::string& ab,
                  const std::string& ba, double rate_bps) {
  return TopologyLink{{a, b}, {ab, ba}, rate_bps, 1000};
}

LinkResult link_result(const std::string& name, double rate_bps, double measured_bps,
                       double utilisation, double paused_ns) {
  LinkResult link;
  link.name = name;
  link.rate_bps = rate_bps;
  link.expected_bps = rate_bps;
  link.measured_bps = measured_bps;
  link.utilisation = utilisation;
  link.paused_ns = paused_ns;
  return link;
}

// The textbook victim: s and t into r on leaf A, s also to v on leaf B over the spine.
Results victim_fabric(const std::string& transport) {
  Results r = testing::sample_results();
  ScenarioResult& s = r.scenarios.front();
  s.transport = transport;
  TopologyResult& t = s.topology;
  for (const char* n : {"leafA", "leafB", "spine"}) t.nodes.push_back({n, "switch"});
  for (const char* n : {"s", "t", "r", "v"}) t.nodes.push_back({n, "host"});
  t.links = {link("s", "leafA", "s:1->leafA:1", "leafA:1->s:1", 100e9),
             link("t", "leafA", "t:1->leafA:2", "leafA:2->t:1", 100e9),
             link("r", "leafA", "r:1->leafA:3", "leafA:3->r:1", 25e9),
             link("v", "leafB", "v:1->leafB:1", "leafB:1->v:1", 100e9),
             link("leafA", "spine", "leafA:4->spine:1", "spine:1->leafA:4", 100e9),
             link("spine", "leafB", "spine:2->leafB:2", "leafB:2->spine:2", 100e9)};
  t.paths = {
      TopologyPath{"s-to-v",
                   3,
                   3,
                   {TopologyHop{"s:1->leafA:1", "VL1"}, TopologyHop{"leafA:4->spine:1", "VL2"},
                    TopologyHop{"spine:2->leafB:2", "VL2"}, TopologyHop{"leafB:1->v:1", "VL3"}}}};
  s.links = {link_result("s:1->leafA:1", 100e9, 25e9, 0.25, 15e6),
             link_result("leafA:3->r:1", 25e9, 25e9, 1.0, 0.0),
             link_result("leafA:4->spine:1", 100e9, 12.5e9, 0.125, 0.0)};
  s.victims = {VictimResult{"s-to-v", "s:1->leafA:1", 15e6, -0.857}};
  return r;
}

std::string render(const Results& r) {
  return render_html_report(r, nullptr, HtmlOptions{});
}

// A channel name as an attribute holds it ("->" escaped).
std::string escaped(const std::string& name) {
  const size_t arrow = name.find('>');
  return name.substr(0, arrow) + "&gt;" + name.substr(arrow + 1);
}

// The fabric figure of a page.
std::string fabric_part(const std::string& html) {
  const size_t start = html.find("<figure class=\"fabric\"");
  if (start == std::string::npos) return {};
  return html.substr(start, html.find("</figure>", start) - start);
}

TEST(FabricFigure, OneNodePerHostAndSwitchAndOneLinkPerLink) {
  const std::string html = render(victim_fabric("rocev2"));
  const auto nodes = tags_with_class(html, "fabric-node");
  ASSERT_EQ(nodes.size(), 7u);
  size_t hosts = 0;
  for (const auto& tag : nodes) hosts += attr(tag, "data-kind") == "host" ? 1 : 0;
  EXPECT_EQ(hosts, 4u);
  EXPECT_EQ(tags_with_class(html, "fabric-link").size(), 6u);
  // Two halves per link, each its channel's.
  EXPECT_EQ(tags_with_class(html, "channel").size(), 12u);
}

TEST(FabricFigure, EachChannelIsColouredByItsLoadBucket) {
  const Results r = victim_fabric("rocev2");
  const std::string html = render(r);
  const auto find = [&](const std::string& channel) {
    for (const auto& tag : tags_with_class(html, "channel")) {
      if (attr(tag, "data-channel") == escaped(channel)) return tag;
    }
    ADD_FAILURE() << "no channel " << channel;
    return std::string();
  };
  // Busy time measured: the colour follows utilisation.
  EXPECT_EQ(attr(find("s:1->leafA:1"), "data-bucket"), "2");  // 25 %
  EXPECT_EQ(attr(find("s:1->leafA:1"), "stroke"), load_bucket_colour(2));
  EXPECT_EQ(attr(find("leafA:3->r:1"), "stroke"), load_bucket_colour(5));      // 100 %
  EXPECT_EQ(attr(find("leafA:4->spine:1"), "stroke"), load_bucket_colour(1));  // 12.5 %
  // No flow crosses it: grey and dashed.
  const std::string idle = find("leafA:1->s:1");
  EXPECT_EQ(attr(idle, "data-bucket"), "0");
  EXPECT_EQ(attr(idle, "class"), "channel idle");
  EXPECT_EQ(attr(idle, "data-load"), "<missing>");
}

TEST(FabricFigure, WithoutBusyTimeTheColourIsTheMeasuredLoad) {
  Results r = victim_fabric("rocev2");
  for (LinkResult& link : r.scenarios.front().links) link.utilisation = 0.0;
  const std::string html = render(r);
  EXPECT_EQ(count(html, "data-load-basis=\"measured\""), 1u);
  for (const auto& tag : tags_with_class(html, "channel")) {
    if (attr(tag, "data-channel") == escaped("leafA:3->r:1")) {
      EXPECT_EQ(attr(tag, "data-load"), "1");
      EXPECT_EQ(attr(tag, "data-bucket"), "5");
    }
  }
}

TEST(FabricFigure, TheVictimsPausedChannelAndPathAreMarked) {
  const std::string html = render(victim_fabric("rocev2"));
  const auto markers = tags_with_class(html, "victim-marker");
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(attr(markers[0], "data-channel"), "s:1-&gt;leafA:1");
  EXPECT_EQ(attr(markers[0], "data-flows"), "[&quot;s-to-v&quot;]");
  EXPECT_EQ(tags_with_class(html, "victim-halo").size(), 1u);
  const auto paths = tags_with_class(html, "victim-path");
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(attr(paths[0], "data-flow"), "s-to-v");
  // From s over leafA, the spine and leafB to v: four segments.
  EXPECT_EQ(count(attr(paths[0], "d"), "L"), 4u);
}

TEST(FabricFigure, PerHopClassesOnInfiniBand) {
  const std::string html = render(victim_fabric("ib"));
  const auto rows = tags_with_class(html, "hop-path");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(attr(rows[0], "data-flow"), "s-to-v");
  EXPECT_EQ(attr(rows[0], "data-sl"), "3");
  const auto hops = tags_with_class(html, "hop");
  ASSERT_EQ(hops.size(), 4u);
  EXPECT_EQ(attr(hops[0], "data-class"), "VL1");
  EXPECT_EQ(attr(hops[3], "data-class"), "VL3");
  EXPECT_NE(html.find("the SL and its VL at every hop"), std::string::npos);
}

TEST(FabricFigure, NoHopTableOnEthernetWithoutClasses) {
  Results r = victim_fabric("rocev2");
  for (TopologyHop& hop : r.scenarios.front().topology.paths.front().hops) hop.arb_class = "port";
  EXPECT_TRUE(tags_with_class(render(r), "hop-path").empty());
}

TEST(FabricFigure, TwoLinksBetweenTheSameNodesAreDrawnApartWhicheverWayTheyAreGiven) {
  Results r = victim_fabric("rocev2");
  TopologyResult& t = r.scenarios.front().topology;
  // A second leafA - spine link, its ends the other way round.
  t.links.push_back(link("spine", "leafA", "spine:3->leafA:5", "leafA:5->spine:3", 100e9));
  const std::string html = render(r);
  std::vector<std::string> halves;
  for (const auto& tag : tags_with_class(html, "channel")) {
    const std::string channel = attr(tag, "data-channel");
    if (channel.find("spine:1") != std::string::npos ||
        channel.find("spine:3") != std::string::npos) {
      // The segment whichever way it is drawn: "M x,y L x,y" with its two points sorted.
      const std::string d = attr(tag, "d");
      std::string from = d.substr(1, d.find(' ') - 1), to = d.substr(d.find('L') + 1);
      if (to < from) std::swap(from, to);
      halves.push_back(from + " " + to);
    }
  }
  ASSERT_EQ(halves.size(), 4u);
  for (size_t i = 0; i < halves.size(); ++i) {
    for (size_t j = i + 1; j < halves.size(); ++j) EXPECT_NE(halves[i], halves[j]) << i << " " << j;
  }
}

TEST(FabricFigure, NothingWithoutATopology) {
  const std::string html = render(testing::sample_results());
  EXPECT_TRUE(tags_with_class(html, "fabric").empty());
  EXPECT_EQ(count(html, "class=\"chart fabric-topology\""), 0u);
}

TEST(FabricFigure, TheTopologyReadsBackFromTheJson) {
  const Results r = victim_fabric("ib");
  auto read = results_from_json(results_to_json(r), "r.json");
  ASSERT_TRUE(read) << read.error().to_string();
  const TopologyResult& t = read->scenarios.front().topology;
  ASSERT_EQ(t.nodes.size(), 7u);
  EXPECT_EQ(t.nodes[3].name, "s");
  EXPECT_EQ(t.nodes[3].kind, "host");
  ASSERT_EQ(t.links.size(), 6u);
  EXPECT_EQ(t.links[2].ends, (std::vector<std::string>{"r", "leafA"}));
  EXPECT_EQ(t.links[2].channels[1], "leafA:3->r:1");
  EXPECT_EQ(t.links[2].rate_bps, 25e9);
  ASSERT_EQ(t.paths.size(), 1u);
  EXPECT_EQ(t.paths[0].sl, 3u);
  EXPECT_EQ(t.paths[0].hops[1].arb_class, "VL2");
  // The drawing from the file is the drawing from the run.
  EXPECT_FALSE(fabric_part(render(r)).empty());
  EXPECT_EQ(fabric_part(render(*read)), fabric_part(render(r)));
}

TEST(FabricFigure, AFileWhoseLinkNamesAnUnknownNodeIsRefused) {
  Results r = victim_fabric("rocev2");
  r.scenarios.front().topology.links[1].ends[1] = "leafZ";
  auto read = results_from_json(results_to_json(r), "r.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().where, "scenarios[0].topology.links[1].ends[1]");
  EXPECT_NE(read.error().message.find("leafZ"), std::string::npos);
}

TEST(FabricFigure, AHopOverAnUnknownChannelOrAThirdEndIsRefused) {
  Results r = victim_fabric("rocev2");
  r.scenarios.front().topology.paths[0].hops[2].channel = "spine:9->leafB:9";
  auto read = results_from_json(results_to_json(r), "r.json");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().where, "scenarios[0].topology.paths[0].hops[2].channel");
  Results three = victim_fabric("rocev2");
  three.scenarios.front().topology.links[0].ends.push_back("t");
  auto refused = results_from_json(results_to_json(three), "r.json");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().where, "scenarios[0].topology.links[0].ends");
}

}  // namespace
}  // namespace qb::report
