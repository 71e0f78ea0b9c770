#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "qb/fabric/ibnetdiscover.hpp"

namespace qb::fabric {
namespace {

// What ibnetdiscover prints for a two-switch fabric (GUIDs, descriptions, LIDs and speeds in
// the comments), trimmed to four hosts.
constexpr const char* kDiscovered = R"(#
# Topology file: generated on Sun Nov 29 06:00:00 2026
#
# Initiated from node 0002c903000e0b72 port 0002c903000e0b73

vendid=0x2c9
devid=0xc738
sysimgguid=0x248a0703005d2a00
switchguid=0x248a0703005d2a00(248a0703005d2a00)
Switch	36 "S-248a0703005d2a00"		# "MF0;leaf0:MSB7700/U1" enhanced port 0 lid 1 lmc 0
[1]	"H-0002c903000e0b72"[1](2c903000e0b73) 		# "node0 HCA-1" lid 3 4xEDR
[2]	"H-0002c903000e0b80"[1](2c903000e0b81) 		# "node1 HCA-1" lid 4 4xEDR
[35]	"S-248a0703005d2b00"[35]		# "MF0;leaf1:MSB7700/U1" lid 2 4xHDR
[36]	"S-248a0703005d2b00"[36]		# "MF0;leaf1:MSB7700/U1" lid 2 4xHDR

vendid=0x2c9
devid=0xc738
switchguid=0x248a0703005d2b00(248a0703005d2b00)
Switch	36 "S-248a0703005d2b00"		# "MF0;leaf1:MSB7700/U1" enhanced port 0 lid 2 lmc 0
[1]	"H-0002c903000e0b90"[1](2c903000e0b91) 		# "node2 HCA-1" lid 5 4xEDR
[2]	"H-0002c903000e0ba0"[1](2c903000e0ba1) 		# "node3 HCA-1" lid 6 4xEDR
[35]	"S-248a0703005d2a00"[35]		# "MF0;leaf0:MSB7700/U1" lid 1 4xHDR
[36]	"S-248a0703005d2a00"[36]		# "MF0;leaf0:MSB7700/U1" lid 1 4xHDR

vendid=0x2c9
devid=0x1017
sysimgguid=0x2c903000e0b72
caguid=0x2c903000e0b72
Ca	1 "H-0002c903000e0b72"		# "node0 HCA-1"
[1](2c903000e0b73) 	"S-248a0703005d2a00"[1]		# lid 3 lmc 0 "MF0;leaf0:MSB7700/U1" lid 1 4xEDR

caguid=0x2c903000e0b80
Ca	1 "H-0002c903000e0b80"		# "node1 HCA-1"
[1](2c903000e0b81) 	"S-248a0703005d2a00"[2]		# lid 4 lmc 0 "MF0;leaf0:MSB7700/U1" lid 1 4xEDR

caguid=0x2c903000e0b90
Ca	1 "H-0002c903000e0b90"		# "node2 HCA-1"
[1](2c903000e0b91) 	"S-248a0703005d2b00"[1]		# lid 5 lmc 0 "MF0;leaf1:MSB7700/U1" lid 2 4xEDR

caguid=0x2c903000e0ba0
Ca	1 "H-0002c903000e0ba0"		# "node3 HCA-1"
[1](2c903000e0ba1) 	"S-248a0703005d2b00"[2]		# lid 6 lmc 0 "MF0;leaf1:MSB7700/U1" lid 2 4xEDR
)";

TEST(Ibnetdiscover, ReadsDiscoveredOutputWithSpeeds) {
  auto parsed = parse_ibnetdiscover(kDiscovered, "fabric.topo");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->nodes.size(), 6u);
  EXPECT_TRUE(parsed->nodes[0].is_switch);
  EXPECT_EQ(parsed->nodes[0].description, "MF0;leaf0:MSB7700/U1");
  EXPECT_EQ(parsed->nodes[0].links.size(), 4u);
  EXPECT_EQ(parsed->nodes[0].links[2].rate_bps, 200e9);  // 4xHDR
  auto t = ibnet_topology(*parsed, 10e9, 300, "topology.file");
  ASSERT_TRUE(t) << t.error().to_string();
  EXPECT_EQ(t->host_count(), 4u);
  EXPECT_EQ(t->nodes()[t->hosts()[2]].name, "H-0002c903000e0b90");
  EXPECT_EQ(t->links().size(), 6u);  // each cable once although both ends list it
  EXPECT_EQ(t->channel(t->host_uplink(0)).rate_bps, 100e9);  // 4xEDR
  EXPECT_EQ(t->channel(t->host_uplink(0)).delay_ns, 300);
}

TEST(Ibnetdiscover, ReadsIbsimExampleNets) {
  const std::filesystem::path dir = "/usr/share/doc/ibsim-utils/net-examples";
  if (!std::filesystem::exists(dir / "net.2sw2path4hca")) {
    GTEST_SKIP() << "ibsim-utils is not installed (scripts/setup.sh installs it)";
  }
  for (const char* name : {"net.2sw2path4hca", "net"}) {
    std::ifstream in(dir / name);
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = parse_ibnetdiscover(text.str(), name);
    ASSERT_TRUE(parsed) << parsed.error().to_string();
    auto t = ibnet_topology(*parsed, 40e9, 0, "topology.file");
    ASSERT_TRUE(t) << name << ": " << t.error().to_string();
    EXPECT_EQ(t->host_count(), std::string(name) == "net" ? 2u : 4u) << name;
    EXPECT_EQ(t->channel(t->host_uplink(0)).rate_bps, 40e9);  // no speed in ibsim's files
  }
}

struct BadFile {
  const char* text;
  uint32_t line, column;
  const char* says;
};

class IbnetdiscoverBad : public ::testing::TestWithParam<BadFile> {};

TEST_P(IbnetdiscoverBad, FailsAtTheLineAndColumn) {
  const BadFile& bad = GetParam();
  auto parsed = parse_ibnetdiscover(bad.text, "bad.topo");
  Error error;
  if (parsed) {
    auto t = ibnet_topology(*parsed, 100e9, 0, "topology.file");
    ASSERT_FALSE(t) << bad.text;
    error = t.error();
    EXPECT_EQ(error.where, "topology.file");
  } else {
    error = parsed.error();
  }
  EXPECT_EQ(error.code, Errc::invalid_config);
  EXPECT_EQ(error.loc.file, "bad.topo");
  EXPECT_EQ(error.loc.line, bad.line) << error.to_string();
  EXPECT_EQ(error.loc.column, bad.column) << error.to_string();
  EXPECT_NE(error.message.find(bad.says), std::string::npos) << error.to_string();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, IbnetdiscoverBad,
    ::testing::Values(
        BadFile{"", 1, 1, "no Switch or Ca record"},
        BadFile{"garbage here\n", 1, 1, "unknown node type 'garbage'"},
        BadFile{"\x01\x02\n", 1, 1, "expected a node record"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1\n", 2, 11, "expected ']'"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1", 2, 5, "no closing quote"},
        BadFile{"Switch 8 \"S1\n", 1, 10, "no closing quote"},
        BadFile{"[1] \"H1\"[1]\n", 1, 1, "outside a node record"},
        BadFile{"Switch 8 \"S1\"\n[9] \"H1\"[1]\n", 2, 1, "which has 8 ports"},
        BadFile{"Switch 300 \"S1\"\n", 1, 8, "above 254"},
        BadFile{"Switch 8 \"S1\"\n[0] \"H1\"[1]\n", 2, 2, "management port"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1] junk\n", 2, 13, "unexpected text"},
        BadFile{"Rt 2 \"R1\"\n", 1, 1, "routers"},
        BadFile{"include other.net\n", 1, 1, "'include' lines are not supported"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1] w=3\n", 2, 15, "width"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1]\n[1] \"H2\"[1]\n", 3, 1, "listed twice"},
        // Structure: a link to a node with no record, a host on two switches, ends that
        // disagree, a truncated file (its last switch has no links: not connected).
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n[1] \"S1\"[1]\n\nCa 1 "
                "\"H2\"\n[1] \"S2\"[1]\n",
                8, 1, "unknown node 'S2'"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H1\"[2]\n\nCa 2 \"H1\"\n", 3, 1,
                "already has its link"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n\nCa 1 \"H1\"\n[1] "
                "\"S1\"[2]\n\nCa 1 \"H2\"\n",
                6, 1, "but line 2 links it"},
        BadFile{"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n\nSwitch 8 \"S2\"\n", 6, 1,
                "not connected"},
        // Found by ibnetdiscover_fuzz: switches only, no Ca record.
        BadFile{"# a fabric of switches\nSwitch 8 \"S1\"\n[1] \"S2\"[1]\n\nSwitch 8 \"S2\"\n", 2,
                1, "no hosts"}));

}  // namespace
}  // namespace qb::fabric
