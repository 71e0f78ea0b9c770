// The diag tools' output as import-opensm --fabric-dir reads it (fabric/ib_diag.hpp): dump_lfts
// blocks and smpquery SL2VL/VLArb tables as ibsim + OpenSM printed them, and bad text located at
// its line and column. Also the port GUIDs ibnetdiscover lines carry (hosts are found by them).
#include "qb/fabric/ib_diag.hpp"

#include <gtest/gtest.h>

#include "qb/fabric/ibnetdiscover.hpp"

namespace qb::fabric {
namespace {

constexpr const char* kLfts =
    "Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1,3 guid 0x0000000000200001 "
    "(Switch2):\n"
    "  Lid  Out   Destination\n"
    "       Port     Info \n"
    "0x0001 003 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n"
    "0x0002 003 : (Switch portguid 0x0000000000200000: 'Switch1')\n"
    "0x0003 000 : (Switch portguid 0x0000000000200001: 'Switch2')\n"
    "0x0004 001 : (Channel Adapter portguid 0x0000000000100004: 'Hca2')\n"
    "4 valid lids dumped \n"
    "Unicast lids [0x0-0x6] of switch DR path slid 0; dlid 0; 0,1 guid 0x0000000000200000 "
    "(Switch1):\n"
    "0x0001 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')\n";

TEST(IbDiag, ReadsDumpLftsBlocks) {
  auto lfts = parse_dump_lfts(kLfts, "lfts.txt");
  ASSERT_TRUE(lfts) << lfts.error().to_string();
  ASSERT_EQ(lfts->size(), 2u);
  const DiagLft& s2 = (*lfts)[0];
  EXPECT_EQ(s2.switch_guid, 0x200001u);
  EXPECT_EQ(s2.description, "Switch2");
  ASSERT_EQ(s2.entries.size(), 4u);
  EXPECT_EQ(s2.entries[3].lid, 4u);
  EXPECT_EQ(s2.entries[3].port, 1u);
  EXPECT_EQ(s2.entries[3].port_guid, 0x100004u);
  EXPECT_TRUE(s2.entries[3].to_ca);
  EXPECT_FALSE(s2.entries[1].to_ca);
  EXPECT_EQ(s2.entries[2].port, 0u);  // the switch itself
  EXPECT_EQ((*lfts)[1].entries.size(), 1u);
  EXPECT_EQ((*lfts)[1].entries[0].loc.line, 10u);
}

void expect_lft_error(const std::string& text, uint32_t line, uint32_t column,
                      std::string_view words) {
  auto lfts = parse_dump_lfts(text, "lfts.txt");
  ASSERT_FALSE(lfts) << text;
  EXPECT_EQ(lfts.error().code, Errc::invalid_config);
  EXPECT_EQ(lfts.error().loc.file, "lfts.txt");
  EXPECT_EQ(lfts.error().loc.line, line) << lfts.error().to_string();
  EXPECT_EQ(lfts.error().loc.column, column) << lfts.error().to_string();
  EXPECT_NE(lfts.error().message.find(words), std::string::npos) << lfts.error().message;
}

TEST(IbDiag, BadDumpLftsTextIsLocated) {
  expect_lft_error("0x0001 003 : (Channel Adapter portguid 0x1: 'Hca1')\n", 1, 1,
                   "outside a switch's table");
  expect_lft_error("Unicast lids [0x0-0x6] of switch DR path 0,1 (S):\n", 1, 1, "without 'guid");
  expect_lft_error("Unicast lids of switch guid 0x2 (S):\n0x0001 3x\n", 2, 9,
                   "expected ': (destination)'");
  expect_lft_error("Unicast lids of switch guid 0x2 (S):\n0x0001 999 : (Switch portguid 0x1)\n", 2,
                   8, "the output port is above 255");
  expect_lft_error("Unicast lids of switch guid 0x2 (S):\n0x0001 001 : (Channel Adapter 0x1)\n", 2,
                   12, "expected 'portguid 0x...'");
  expect_lft_error("nothing here\n", 1, 1, "no switch table");
  expect_lft_error(std::string("Unicast lids of switch guid 0x2 (S):\n0x00\0", 43), 2, 5, "NUL");
}

constexpr const char* kPorts =
    "### node \"S-0000000000200001\" port 3\n"
    "# SL2VL table: Lid 3\n"
    "#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|\n"
    "ports: in  0, out  3: | 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7| 0|\n"
    "ports: in  1, out  3: | 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7| 0|\n"
    "# VLArbitration tables: Lid 3 port 3 LowCap 8 HighCap 8\n"
    "# Low priority VL Arbitration Table:\n"
    "VL    : |0x0 |0x1 |0x2 |0x3 |0x0 |0x0 |0x0 |0x0 |\n"
    "WEIGHT: |0x10|0x30|0x50|0x70|0x0 |0x0 |0x0 |0x0 |\n"
    "# High priority VL Arbitration Table:\n"
    "VL    : |0x7 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |\n"
    "WEIGHT: |0x10|0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |\n"
    "### node \"H-0000000000100003\" port 1\n"
    "ports: in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|\n";

TEST(IbDiag, ReadsSmpqueryTablesPerPort) {
  auto ports = parse_port_tables(kPorts, "port-tables.txt");
  ASSERT_TRUE(ports) << ports.error().to_string();
  ASSERT_EQ(ports->size(), 2u);
  const DiagPortTables& sw = (*ports)[0];
  EXPECT_EQ(sw.node, "S-0000000000200001");
  EXPECT_EQ(sw.port, 3u);
  ASSERT_EQ(sw.sl2vl_rows.size(), 2u);
  EXPECT_EQ(sw.sl2vl_rows[1].first, 1u);
  EXPECT_EQ(sw.sl2vl_rows[1].second[7], 0);
  EXPECT_EQ(sw.sl2vl_rows[1].second[0], 1);
  ASSERT_EQ(sw.vlarb_low.size(), 8u);
  EXPECT_EQ(sw.vlarb_low[3], (policy::VlArbEntry{3, 0x70}));
  ASSERT_EQ(sw.vlarb_high.size(), 8u);
  EXPECT_EQ(sw.vlarb_high[0], (policy::VlArbEntry{7, 0x10}));
  EXPECT_EQ(sl2vl_rows_problem(sw), "");
  EXPECT_TRUE((*ports)[1].vlarb_low.empty());

  DiagPortTables differ = sw;
  differ.sl2vl_rows[1].second[5] = 9;
  EXPECT_NE(sl2vl_rows_problem(differ).find("input ports 0 and 1 differ"), std::string::npos);
}

void expect_ports_error(const std::string& text, uint32_t line, std::string_view words) {
  auto ports = parse_port_tables(text, "port-tables.txt");
  ASSERT_FALSE(ports) << text;
  EXPECT_EQ(ports.error().loc.line, line) << ports.error().to_string();
  EXPECT_GE(ports.error().loc.column, 1u);
  EXPECT_NE(ports.error().message.find(words), std::string::npos) << ports.error().message;
}

TEST(IbDiag, BadPortTablesAreLocated) {
  expect_ports_error("ports: in  0, out  0: | 0|\n", 1, "before any '### node'");
  expect_ports_error("### node S port 1\n", 1, "node id in double quotes");
  expect_ports_error("### node \"S\" 1\n", 1, "expected 'port N'");
  expect_ports_error("### node \"S\" port 1\nports: in  0, out  1: | 0| 1|\n", 2,
                     "has 16 VLs, this one 2");
  expect_ports_error("### node \"S\" port 1\n### node \"T\" port 1\n", 1, "has no SL2VL row");
  expect_ports_error("### node \"S\" port 1\nports: in  0, out  1: | 0| 1| 2| 3| 4| 5| 6| 7| 0| "
                     "1| 2| 3| 4| 5| 6|99|\n",
                     2, "VL 99 is above 15");
  expect_ports_error(std::string(kPorts) + "WEIGHT: |0x1|\n", 15, "without its VL row");
  expect_ports_error(std::string(kPorts) + "VL    : |0x1 |0x2 |\nWEIGHT: |0x1|\n", 16,
                     "1 weights for the 2 VLs of line 15");
  expect_ports_error("", 1, "no port");
}

TEST(IbDiag, IbnetdiscoverLinesKeepThePortGuids) {
  auto parsed = parse_ibnetdiscover(
      "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
      "\n"
      "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
      "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n",
      "net.txt");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(parsed->nodes[0].links[0].port_guid, 0u);
  EXPECT_EQ(parsed->nodes[0].links[0].remote_port_guid, 0x100004u);
  EXPECT_EQ(parsed->nodes[1].links[0].port_guid, 0x100004u);
  EXPECT_EQ(parsed->nodes[1].links[0].remote_port_guid, 0u);
}

}  // namespace
}  // namespace qb::fabric
