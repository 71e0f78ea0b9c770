#include <gtest/gtest.h>

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>

#include "qb/fabric/topology_reader.hpp"

namespace qb::fabric {
namespace {

const std::string kFile = "suite.toml";

// Reads the document's [topology] and, when `flow` is set, the first [[flow]]'s hosts.
struct Read {
  std::optional<TopologySpec> topology;
  std::vector<FlowEndpoints> flows;
  std::optional<Error> error;
};

Read read(const std::string& text, bool flow = false, const std::string& dir = "") {
  Read out;
  try {
    toml::table doc = toml::parse(text, std::string_view(kFile));
    const config::TableReader top(doc, "", kFile);
    out.topology = read_topology(top.at("topology"), dir);
    if (flow) {
      const config::Located entry{*doc["flow"].as_array()->get(0), "flow[0]", kFile};
      const config::TableReader reader(entry.table(), entry.path, kFile);
      out.flows = read_flow_endpoints(reader, &*out.topology);
    }
  } catch (ConfigError& e) {
    out.error = e.error;
  }
  return out;
}

TEST(FabricReader, LeafSpineInAFewLines) {
  const Read r = read(R"([topology]
kind = "leaf_spine"
leaves = 4
spines = 2
hosts_per_leaf = 8
host_rate = "100Gbps"
uplink_rate = "400Gbps"
delay = "1us"
ecmp_seed = 3
fairness = "per-flow"

[[flow]]
sources = "h0..h31"
destinations = "permutation"
destination_seed = 5
)",
                      true);
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(r.topology->topology.host_count(), 32u);
  EXPECT_EQ(r.topology->routing.ecmp_seed, 3u);
  EXPECT_EQ(r.topology->fairness, Fairness::per_flow);
  EXPECT_EQ(r.flows.size(), 32u);
}

TEST(FabricReader, HpccFatTreeAndKAry) {
  Read r = read(R"([topology]
kind = "fat_tree"
pods = 5
tors_per_pod = 4
aggs_per_pod = 4
hosts_per_tor = 16
cores_per_agg = 4
host_rate = "100Gbps"
fabric_rate = "400Gbps"
)");
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(r.topology->topology.host_count(), 320u);
  r = read("[topology]\nkind = \"fat_tree\"\nk = 8\n");
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(r.topology->topology.host_count(), 128u);
}

TEST(FabricReader, ExplicitGraphWithLftsAndOneFlow) {
  const Read r = read(R"([topology]
kind = "explicit"
rate = "100Gbps"
routing = "lft"
switch = [{ name = "s1", ports = 8 }, { name = "s2" }]
host = [{ name = "a" }, { name = "b" }]
link = [{ ends = ["a", "s1:1"] }, { ends = ["s1:2", "s2:2"], rate = "200Gbps" },
        { ends = ["b", "s2:1"], delay = "2us" }]
lft = [{ switch = "s1", routes = { b = 2, a = 1 } }, { switch = "s2", routes = { b = 1, a = 2 } }]

[[flow]]
from = "a"
to = "b"
)",
                      true);
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(r.topology->topology.links().size(), 3u);
  EXPECT_EQ(r.topology->routing.kind, RoutingKind::lft);
  ASSERT_EQ(r.flows.size(), 1u);
  EXPECT_EQ(r.flows[0].dst_host, 1u);
}

TEST(FabricReader, IbnetdiscoverFileRelativeToTheSuite) {
  const auto dir = std::filesystem::temp_directory_path() / "qb_fabric_reader_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "net.topo") << "Switch 4 \"S1\"\n[1] \"A\"[1]\n[2] \"B\"[1] # 4xEDR\n\n"
                                     "Ca 1 \"A\"\n[1] \"S1\"[1]\n\nCa 1 \"B\"\n[1] \"S1\"[2]\n";
  Read r = read("[topology]\nkind = \"ibnetdiscover\"\nfile = \"net.topo\"\nrate = \"56Gbps\"\n",
                false, dir.string());
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_EQ(r.topology->topology.host_count(), 2u);
  EXPECT_EQ(r.topology->topology.channel(r.topology->topology.host_uplink(0)).rate_bps, 56e9);
  EXPECT_EQ(r.topology->topology.channel(r.topology->topology.host_uplink(1)).rate_bps, 100e9);
  std::ofstream(dir / "bad.topo") << "Switch 4 \"S1\"\n[1] \"A\"[1]\n[2] \"Z\"[1]\n\nCa 1 \"A\"\n";
  r = read("[topology]\nkind = \"ibnetdiscover\"\nfile = \"bad.topo\"\nrate = \"56Gbps\"\n", false,
           dir.string());
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->loc.file, (dir / "bad.topo").string());
  EXPECT_EQ(r.error->loc.line, 3u);
  EXPECT_EQ(r.error->where, "topology.file");
  r = read("[topology]\nkind = \"ibnetdiscover\"\nfile = \"missing.topo\"\nrate = \"56Gbps\"\n",
           false, dir.string());
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->loc.line, 3u);
  EXPECT_NE(r.error->message.find("cannot open"), std::string::npos);
  std::filesystem::remove_all(dir);
}

struct BadSuite {
  const char* text;
  uint32_t line, column;
  const char* where;
  const char* says;
};

class FabricReaderBad : public ::testing::TestWithParam<BadSuite> {};

TEST_P(FabricReaderBad, FailsAtTheKey) {
  const BadSuite& bad = GetParam();
  const Read r = read(bad.text, std::string(bad.text).find("[[flow]]") != std::string::npos);
  ASSERT_TRUE(r.error) << bad.text;
  EXPECT_EQ(r.error->code, Errc::invalid_config);
  EXPECT_EQ(r.error->loc.file, kFile);
  EXPECT_EQ(r.error->loc.line, bad.line) << r.error->to_string();
  EXPECT_EQ(r.error->loc.column, bad.column) << r.error->to_string();
  EXPECT_EQ(r.error->where, bad.where) << r.error->to_string();
  EXPECT_NE(r.error->message.find(bad.says), std::string::npos) << r.error->to_string();
}

constexpr const char* kTwoSwitches = R"([topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s1" }, { name = "s2" }]
host = [{ name = "a" }, { name = "b" }]
)";

INSTANTIATE_TEST_SUITE_P(
    Cases, FabricReaderBad,
    ::testing::Values(
        BadSuite{"[topology]\nleaves = 2\n", 1, 1, "topology.kind", "kind"},
        BadSuite{"[topology]\nkind = \"torus\"\n", 2, 8, "topology.kind", "unknown kind"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nhost_rate = \"0Gbps\"\n", 3, 13,
                 "topology.host_rate", "greater than 0"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nuplink_rate = nan\n", 3, 15,
                 "topology.uplink_rate", "finite"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nuplink_rate = \"9e12Gbps\"\n", 3, 15,
                 "topology.uplink_rate", "above"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nleaves = 0\n", 3, 10, "topology.leaves", ""},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nspine = 2\n", 3, 1, "topology.spine",
                 "spines"},
        BadSuite{"[topology]\nkind = \"fat_tree\"\nk = 5\n", 3, 5, "topology.k", "even"},
        BadSuite{"[topology]\nkind = \"fat_tree\"\nk = 4\npods = 2\n", 4, 8, "topology.pods",
                 "give k or"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nrouting = \"lft\"\n", 3, 11,
                 "topology.routing", "needs the switches"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nrouting = \"single\"\necmp_seed = 2\n", 4,
                 13, "topology.ecmp_seed", "shortest"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\nfairness = \"fair\"\n", 3, 12,
                 "topology.fairness", "per-flow"},
        // Explicit graphs: unknown node, duplicate name, bad port, not connected, a host on
        // two switches.
        BadSuite{R"([topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s1" }]
host = [{ name = "a" }]
link = [{ ends = ["a", "s9:1"] }]
)",
                 6, 24, "topology.link[0].ends[1]", "unknown node 's9'"},
        BadSuite{R"([topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s1" }]
host = [{ name = "s1" }]
link = []
)",
                 5, 18, "topology.host[0].name", "duplicate name 's1'"},
        BadSuite{R"([topology]
kind = "explicit"
switch = [{ name = "s1" }]
host = [{ name = "a" }]
link = [{ ends = ["a", "s1:x"], rate = "1Gbps" }]
)",
                 5, 24, "topology.link[0].ends[1]", "a port is 1..254"},
        BadSuite{R"([topology]
kind = "explicit"
switch = [{ name = "s1" }]
host = [{ name = "a" }]
link = [{ ends = ["a", "s1"] }]
)",
                 5, 9, "topology.link[0].rate", "rate"},
        BadSuite{R"([topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s1" }, { name = "s2" }]
host = [{ name = "a" }, { name = "b" }]
link = [{ ends = ["a", "s1"] }, { ends = ["b", "s2"] }]
)",
                 4, 37, "topology.switch[1].name", "not connected"},
        BadSuite{R"([topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s1" }, { name = "s2" }]
host = [{ name = "a" }, { name = "b" }]
link = [{ ends = ["a", "s1"] }, { ends = ["b", "s2"] }, { ends = ["a", "s2"] }]
)",
                 6, 57, "topology.link[2]", "already has its link"},
        // LFTs: an unknown switch, a loop is found when routing (the routing tests).
        BadSuite{R"([topology]
kind = "leaf_spine"
routing = "lft"
lft = [{ switch = "leaf9", routes = { h0 = 1 } }]
)",
                 4, 19, "topology.lft[0].switch", "unknown switch 'leaf9'"},
        BadSuite{R"([topology]
kind = "leaf_spine"
routing = "lft"
lft = [{ switch = "leaf0", routes = { h7 = 1 } }]
)",
                 4, 44, "topology.lft[0].routes.h7", "no host named 'h7'"},
        // Flows.
        BadSuite{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nfrom = \"h0\"\nto = \"h9\"\n", 5,
                 6, "flow[0].to", "no host named 'h9'"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nfrom = \"h0\"\nto = \"h0\"\n", 5,
                 6, "flow[0].to", "itself"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nsources = \"*\"\n"
                 "destinations = \"incast\"\n",
                 3, 1, "flow[0].to", "to"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nsources = \"h0..h3\"\n"
                 "destinations = \"all-to-all\"\nto = \"h1\"\n",
                 6, 6, "flow[0].to", "picks the destinations"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nsources = \"h0..h3\"\n"
                 "destinations = \"incast\"\nto = \"h1\"\n",
                 4, 11, "flow[0].sources", "also a source"},
        BadSuite{"[topology]\nkind = \"leaf_spine\"\n[[flow]]\nsources = \"h3..h0\"\n"
                 "destinations = \"permutation\"\n",
                 4, 11, "flow[0].sources", "backwards"}));

TEST(FabricReader, FlowHostsNeedATopology) {
  try {
    toml::table doc = toml::parse("[[flow]]\nfrom = \"h0\"\nto = \"h1\"\n", std::string_view(kFile));
    const config::Located entry{*doc["flow"].as_array()->get(0), "flow[0]", kFile};
    const config::TableReader reader(entry.table(), entry.path, kFile);
    (void)read_flow_endpoints(reader, nullptr);
    FAIL() << "no error";
  } catch (ConfigError& e) {
    EXPECT_EQ(e.error.where, "flow[0].from");
    EXPECT_EQ(e.error.loc.line, 2u);
  }
}

}  // namespace
}  // namespace qb::fabric
