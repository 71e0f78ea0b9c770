// A suite's [topology] and its flows' hosts, through the suite loader (the wiring of fabric/).
#include <gtest/gtest.h>

#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::suite {
namespace {

constexpr const char* kLeafSpine = R"([topology]
kind = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 8

[[flow]]
name = "perm"
size = "4KiB"
rate = "saturate"
sources = "*"
destinations = "permutation"

[[flow]]
name = "one"
size = "4KiB"
rate = "10Gbps"
from = "h0"
to = "h31"
)";

TEST(TopologySuite, LoadsTheTopologyAndEveryFlowsHosts) {
  auto suite = load_suite_string(kLeafSpine, "fabric.toml");
  ASSERT_TRUE(suite) << suite.error().to_string();
  const Scenario& s = suite->scenarios[0];
  ASSERT_TRUE(s.topology);
  EXPECT_EQ(s.topology->topology.host_count(), 32u);
  EXPECT_EQ(s.flows[0].endpoints.size(), 32u);
  ASSERT_EQ(s.flows[1].endpoints.size(), 1u);
  EXPECT_EQ(s.flows[1].endpoints[0].dst_host, 31u);
  // Compiled as a graph, not as a one-switch fabric: every flow instance has its path, from
  // its source host's NIC port to its destination's, and the expectation fits every channel.
  std::vector<Warning> warnings;
  auto compiled = compile_suite(*suite, warnings);
  ASSERT_TRUE(compiled) << compiled.error().to_string();
  const CompiledScenario& c = (*compiled)[0];
  ASSERT_TRUE(c.plan.graph);
  EXPECT_FALSE(c.plan.switched);
  EXPECT_EQ(c.plan.hosts, 32u);
  ASSERT_EQ(c.plan.flows.size(), 33u);
  const policy::FabricPlan& graph = *c.plan.graph;
  for (size_t f = 0; f < c.plan.flows.size(); ++f) {
    const std::vector<uint32_t>& path = graph.flow_path[f];
    ASSERT_GE(path.size(), 2u);
    EXPECT_EQ(graph.channels[path.front()].from_node, graph.host_node[c.plan.flows[f].host]);
    EXPECT_EQ(graph.channels[path.back()].to_node, graph.host_node[graph.flow_destination[f]]);
  }
  EXPECT_EQ(graph.flow_destination.back(), 31u);
  for (uint32_t ch = 0; ch < graph.channel_count(); ++ch) {
    EXPECT_LE(graph.channel_expected_bps[ch], graph.channels[ch].rate_bps * (1 + 1e-9));
  }
  EXPECT_TRUE(c.unjudgeable.empty()) << c.unjudgeable;
}

TEST(TopologySuite, ScenariosMayGiveTheirOwnTopology) {
  const std::string text = std::string(kLeafSpine) + R"(
[[scenario]]
name = "a"

[[scenario]]
name = "b"
topology = { kind = "fat_tree", k = 4 }
flow = [{ name = "x", size = "4KiB", rate = "saturate", sources = "h0..h15", destinations = "all-to-all" }]
)";
  auto suite = load_suite_string(text, "fabric.toml");
  ASSERT_TRUE(suite) << suite.error().to_string();
  EXPECT_EQ(suite->scenarios[0].topology->topology.host_count(), 32u);
  EXPECT_EQ(suite->scenarios[1].topology->topology.host_count(), 16u);
  EXPECT_EQ(suite->scenarios[1].flows[0].endpoints.size(), 240u);
}

struct Bad {
  const char* text;
  uint32_t line, column;
  const char* where;
  const char* says;
};

class TopologySuiteBad : public ::testing::TestWithParam<Bad> {};

TEST_P(TopologySuiteBad, IsAnInputErrorAtTheKey) {
  auto suite = load_suite_string(GetParam().text, "fabric.toml");
  ASSERT_FALSE(suite);
  const Error& e = suite.error();
  EXPECT_EQ(e.code, Errc::invalid_config);
  EXPECT_EQ(e.loc.line, GetParam().line) << e.to_string();
  EXPECT_EQ(e.loc.column, GetParam().column) << e.to_string();
  EXPECT_EQ(e.where, GetParam().where) << e.to_string();
  EXPECT_NE(e.message.find(GetParam().says), std::string::npos) << e.to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, TopologySuiteBad,
    ::testing::Values(
        // The one-switch keys and a topology together.
        Bad{"[topology]\nkind = \"leaf_spine\"\n[fabric]\nhosts = 4\n[[flow]]\nname = \"f\"\n"
            "size = 64\nrate = \"saturate\"\nfrom = \"h0\"\nto = \"h1\"\n",
            4, 9, "fabric.hosts", "own hosts"},
        // A flow of a topology that names no hosts, or the one-switch host key.
        Bad{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nname = \"f\"\nsize = 64\n"
            "rate = \"saturate\"\n",
            3, 1, "flow[0].from", "names its hosts"},
        Bad{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nname = \"f\"\nsize = 64\n"
            "rate = \"saturate\"\nhost = 1\nfrom = \"h0\"\nto = \"h1\"\n",
            7, 8, "flow[0].host", "one-switch"},
        // Hosts without a topology.
        Bad{"[[flow]]\nname = \"f\"\nsize = 64\nrate = \"saturate\"\nfrom = \"h0\"\nto = \"h1\"\n",
            5, 8, "flow[0].from", "has none"},
        // Bad topology keys reach the user located.
        Bad{"[topology]\nkind = \"leaf_spine\"\nhost_rate = \"0Gbps\"\n", 3, 13,
            "topology.host_rate", "greater than 0"},
        Bad{"[topology]\nkind = \"leaf_spine\"\nlinks = 3\n", 3, 1, "topology.links",
            "unknown key"}));

}  // namespace
}  // namespace qb::suite
