// `[[topology.switch_qos]]` through the suite loader (issue 29 part 3): each port's QoS from the
// suite's [eth]/[ib] and the overrides, and bad input at its key with file:line:col.
#include <gtest/gtest.h>

#include "qb/suite/suite_loader.hpp"
#include "switch_qos_loader.hpp"

namespace qb::suite {
namespace {

constexpr const char* kEthTopology = R"([port]
transport = "rocev2"

[eth]
tsa = ["ets", "ets", "strict", "vendor", "vendor", "vendor", "vendor", "vendor"]
ets = [50, 50, 0, 0, 0, 0, 0, 0]

[topology]
kind = "leaf_spine"

[[flow]]
name = "perm"
size = "4KiB"
rate = "saturate"
sources = "*"
destinations = "permutation"
)";

std::string with(const std::string& extra) { return std::string(kEthTopology) + extra; }

TEST(SwitchQosSuite, OverridesStartFromEthAndApplyInOrder) {
  auto suite = load_suite_string(with(R"(
[[topology.switch_qos]]
switch = "spine*"
ets = [80, 20, 0, 0, 0, 0, 0, 0]

[[topology.switch_qos]]
switch = ["leaf0"]
ports = [3]
prio_tc = [1, 0, 2, 2, 4, 5, 6, 7]
)"),
                                 "fabric.toml");
  ASSERT_TRUE(suite) << suite.error().to_string();
  const Scenario& s = suite->scenarios[0];
  ASSERT_EQ(s.topology->switch_qos.size(), 2u);
  auto qos = detail::scenario_channel_qos(s);
  ASSERT_TRUE(qos) << qos.error().to_string();
  const fabric::Topology& t = s.topology->topology;
  int spines = 0, leaf_port = 0;
  for (uint32_t c = 0; c < t.channel_count(); ++c) {
    const fabric::Channel ch = t.channel(c);
    const std::string& from = t.nodes()[ch.from].name;
    const policy::EthPortQos& eth = (*qos)[c].eth;
    EXPECT_EQ(eth.tsa[0], policy::TcSelect::ets) << t.channel_name(c);  // from [eth]
    if (from.starts_with("spine")) {
      ++spines;
      EXPECT_EQ(eth.ets_percent[0], 80);
    } else {
      EXPECT_EQ(eth.ets_percent[0], 50) << t.channel_name(c);
    }
    if (from == "leaf0" && ch.from_port == 3) {
      ++leaf_port;
      EXPECT_EQ(eth.prio_tc[3], 2);
    } else {
      EXPECT_EQ(eth.prio_tc[3], 3) << t.channel_name(c);
    }
  }
  EXPECT_EQ(spines, 4);
  EXPECT_EQ(leaf_port, 1);
}

TEST(SwitchQosSuite, IbTablesOverrideOpensmsSwitchSet) {
  auto suite = load_suite_string(R"([port]
transport = "ib"

[ib]
op_vls = 3

[topology]
kind = "leaf_spine"

[[topology.switch_qos]]
switch = "leaf1"
vlarb_low = "0:0,1:64,2:128"
sl2vl = [0, 1, 2, 3, 15, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2]

[[flow]]
name = "one"
size = "4KiB"
rate = "saturate"
from = "h0"
to = "h3"
)",
                                 "ib.toml");
  ASSERT_TRUE(suite) << suite.error().to_string();
  auto qos = detail::scenario_channel_qos(suite->scenarios[0]);
  ASSERT_TRUE(qos) << qos.error().to_string();
  const fabric::Topology& t = suite->scenarios[0].topology->topology;
  for (uint32_t c = 0; c < t.channel_count(); ++c) {
    const std::string& from = t.nodes()[t.channel(c).from].name;
    const auto& tables = (*qos)[c].ib.tables;
    EXPECT_EQ((*qos)[c].kind, policy::PortQos::Kind::vlarb);
    if (from == "leaf1") {
      EXPECT_EQ(tables.sl2vl[4], policy::kDropVl);
      ASSERT_EQ(tables.vlarb_low.size(), 8u);
      EXPECT_EQ(tables.vlarb_low[2], (policy::VlArbEntry{2, 128}));
    } else {
      // OpenSM's default SL2VL, reduced to the port's 4 VLs (op_vls 3).
      EXPECT_EQ(tables.sl2vl[4], 0) << t.channel_name(c);
    }
  }
}

// [ib.ca] / [ib.swe]: tables per port type, over the file's set and [ib]'s direct values; a
// switch_qos entry over those on its switch.
TEST(SwitchQosSuite, IbTablesPerPortType) {
  auto suite = load_suite_string(R"([port]
transport = "ib"

[ib]
vlarb_low = "1:8,2:8"

[ib.ca]
vlarb_low = "1:16,2:48"

[ib.swe]
sl2vl = "1,2,3,4,5,6,7,0,1,2,3,4,5,6,7,0"

[topology]
kind = "leaf_spine"

[[topology.switch_qos]]
switch = "spine0"
vlarb_low = "1:4,2:12"

[[flow]]
name = "one"
size = "4KiB"
rate = "saturate"
from = "h0"
to = "h3"
)",
                                 "types.toml");
  ASSERT_TRUE(suite) << suite.error().to_string();
  auto qos = detail::scenario_channel_qos(suite->scenarios[0]);
  ASSERT_TRUE(qos) << qos.error().to_string();
  const fabric::Topology& t = suite->scenarios[0].topology->topology;
  for (uint32_t c = 0; c < t.channel_count(); ++c) {
    const fabric::Node& from = t.nodes()[t.channel(c).from];
    const auto& tables = (*qos)[c].ib.tables;
    if (from.kind == fabric::NodeKind::host) {
      EXPECT_EQ(tables.vlarb_low[1], (policy::VlArbEntry{2, 48})) << t.channel_name(c);
      EXPECT_EQ(tables.sl2vl[0], 0);  // OpenSM's CA default
    } else {
      EXPECT_EQ(tables.sl2vl[0], 1) << t.channel_name(c);
      const uint8_t weight = from.name == "spine0" ? 12 : 8;
      EXPECT_EQ(tables.vlarb_low[1], (policy::VlArbEntry{2, weight})) << t.channel_name(c);
    }
  }
  auto bad = load_suite_string(R"([port]
transport = "ib"

[ib.swe]
vlarb_low = "9:8"
)",
                               "types.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("types.toml:5:14: error: ib.swe.vlarb_low[0]: VL 9 is "
                                         "not operational"),
            std::string::npos)
      << bad.error().to_string();
  bad = load_suite_string(R"([port]
transport = "ib"

[ib.sw0]
sl2vl = "0"
)",
                          "types.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("ib.sw0"), std::string::npos) << bad.error().to_string();
}

struct Bad {
  const char* entry;
  const char* want;  // "line:col: error: key: words"
};

TEST(SwitchQosSuite, BadEntriesAreExitTwoAtTheirKey) {
  // kEthTopology has 16 lines; each entry starts on line 18 ("[[topology.switch_qos]]").
  const Bad cases[] = {
      {"switch = \"core*\"\nets = [80, 20, 0, 0, 0, 0, 0, 0]\n",
       "18:1: error: topology.switch_qos[0]: 'core*' matches no switch"},
      {"switch = \"h1\"\nets = [80, 20, 0, 0, 0, 0, 0, 0]\n", "'h1' is a host"},
      {"switch = \"leaf0\"\nports = [9]\nets = [80, 20, 0, 0, 0, 0, 0, 0]\n",
       "switch 'leaf0' has no connected port 9"},
      {"switch = \"leaf0\"\nports = [1, 1]\nets = [80, 20, 0, 0, 0, 0, 0, 0]\n",
       "20:13: error: topology.switch_qos[0].ports[1]: port 1 twice"},
      {"switch = \"leaf0\"\nports = [0]\n", "a switch port is 1..254, got 0"},
      {"switch = \"leaf0\"\n", "19:10: error: topology.switch_qos[0].switch: this entry sets nothing"},
      {"ports = [1]\nets = [80, 20, 0, 0, 0, 0, 0, 0]\n", "topology.switch_qos[0].switch"},
      {"switch = 3\nets = [80, 20, 0, 0, 0, 0, 0, 0]\n", "19:10: error: topology.switch_qos[0].switch: expected a switch name"},
      {"switch = \"leaf0\"\nets = [80, 30, 0, 0, 0, 0, 0, 0]\n",
       "topology.switch_qos[0].ets: ETS percentages must sum to 100"},
      {"switch = \"leaf0\"\nsl2vl = \"0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7\"\n",
       "20:9: error: topology.switch_qos[0].sl2vl: sl2vl overrides the suite's [ib] tables on a "
       "switch; this scenario has no [ib]"},
      {"switch = \"leaf0\"\nprio_tc = [0, 1, 2, 3, 4, 5, 6, 7]\nvlarb_low = \"0:4\"\n",
       "vlarb_low is an [ib] table and prio_tc an [eth] key"},
      {"switch = \"leaf0\"\npfc = [3]\n", "topology.switch_qos[0]"},
  };
  for (const Bad& bad : cases) {
    const std::string text = with(std::string("\n[[topology.switch_qos]]\n") + bad.entry);
    auto suite = load_suite_string(text, "fabric.toml");
    ASSERT_FALSE(suite) << bad.entry;
    EXPECT_EQ(suite.error().code, Errc::invalid_config) << bad.entry;
    EXPECT_NE(suite.error().to_string().find(bad.want), std::string::npos)
        << bad.entry << "\n got: " << suite.error().to_string();
  }
}

}  // namespace
}  // namespace qb::suite
