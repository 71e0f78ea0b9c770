// opensm.conf qos_* import: every expected table below is computed by hand from OpenSM's rules
// (osm_subnet.c, osm_qos.c): per-type set over generic set over built-in defaults, VL % 15, 64
// entries, cut to the port's capacity, VLs masked by the operational VLs, SL2VL VL15 kept.
#include "qb/policies/opensm_conf.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace qb::policy {
namespace {

using Table = std::vector<VlArbEntry>;

OpensmConf parse_ok(const std::string& text) {
  auto conf = parse_opensm_conf(text, "opensm.conf");
  EXPECT_TRUE(conf.ok()) << (conf.ok() ? "" : conf.error().to_string());
  return conf.ok() ? std::move(conf).value() : OpensmConf{};
}

Table entries(std::initializer_list<std::pair<int, int>> list) {
  Table out;
  for (auto [vl, weight] : list) {
    out.push_back(VlArbEntry{static_cast<uint8_t>(vl), static_cast<uint8_t>(weight)});
  }
  return out;
}

bool has_warning(const OpensmConf& conf, const std::string& needle, uint32_t line) {
  for (const auto& warning : conf.warnings) {
    if (warning.message.find(needle) != std::string::npos && warning.loc.line == line) return true;
  }
  return false;
}

TEST(OpensmConf, BuiltInDefaultsOnAnEightVlPort) {
  const OpensmConf conf = parse_ok("");
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{4, 8, 8});
  EXPECT_EQ(qos.high_limit, 0);
  EXPECT_EQ(qos.max_vls, 15u);
  EXPECT_EQ(qos.vlarb_high,
            entries({{0, 4}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0}, {7, 0}}));
  EXPECT_EQ(qos.vlarb_low,
            entries({{0, 0}, {1, 4}, {2, 4}, {3, 4}, {4, 4}, {5, 4}, {6, 4}, {7, 4}}));
  // 0..14,7 with VLs 8..14 masked by 7.
  const std::array<uint8_t, 16> sl2vl{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_EQ(qos.sl2vl, sl2vl);
  EXPECT_TRUE(conf.warnings.empty());
  EXPECT_FALSE(conf.qos_enabled);
}

TEST(OpensmConf, BuiltInDefaultsOnAFifteenVlPortPadWithZeroEntries) {
  const IbPortQos qos = program_port_qos(parse_ok(""), IbPortType::swe, IbPortCaps{5, 16, 16});
  ASSERT_EQ(qos.vlarb_high.size(), 16u);
  ASSERT_EQ(qos.vlarb_low.size(), 16u);
  for (uint8_t i = 0; i < 15; ++i) {
    EXPECT_EQ(qos.vlarb_high[i], (VlArbEntry{i, uint8_t(i == 0 ? 4 : 0)}));
    EXPECT_EQ(qos.vlarb_low[i], (VlArbEntry{i, uint8_t(i == 0 ? 0 : 4)}));
  }
  // The default string has 15 entries: the 16th reads as VL0 weight 0.
  EXPECT_EQ(qos.vlarb_high[15], (VlArbEntry{0, 0}));
  EXPECT_EQ(qos.vlarb_low[15], (VlArbEntry{0, 0}));
  const std::array<uint8_t, 16> sl2vl{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 7};
  EXPECT_EQ(qos.sl2vl, sl2vl);
}

TEST(OpensmConf, PerTypeBeatsGenericBeatsDefault) {
  const OpensmConf conf = parse_ok(
      "qos TRUE\n"
      "qos_high_limit 10\n"
      "qos_ca_high_limit 6\n"
      "qos_vlarb_low 1:9,2:9\n"
      "qos_rtr_vlarb_low 3:7\n"
      "qos_sw0_sl2vl 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1\n");
  EXPECT_TRUE(conf.qos_enabled);
  const IbPortCaps caps{4, 2, 2};
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, caps).high_limit, 6);
  EXPECT_EQ(program_port_qos(conf, IbPortType::swe, caps).high_limit, 10);
  EXPECT_EQ(program_port_qos(conf, IbPortType::rtr, caps).high_limit, 10);
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, caps).vlarb_low, entries({{1, 9}, {2, 9}}));
  EXPECT_EQ(program_port_qos(conf, IbPortType::rtr, caps).vlarb_low, entries({{3, 7}, {0, 0}}));
  // vlarb_high is set nowhere: the built-in default for every type.
  EXPECT_EQ(program_port_qos(conf, IbPortType::sw0, caps).vlarb_high, entries({{0, 4}, {1, 0}}));
  EXPECT_EQ(program_port_qos(conf, IbPortType::sw0, caps).sl2vl[15], 1);
  EXPECT_EQ(program_port_qos(conf, IbPortType::swe, caps).sl2vl[15], 7);
}

TEST(OpensmConf, OutOfRangeHighLimitFallsBackWithAWarning) {
  const OpensmConf conf = parse_ok(
      "qos_high_limit 9\n"
      "qos_ca_high_limit 300\n"
      "qos_swe_high_limit -5\n"
      "qos_rtr_high_limit 255\n");
  const IbPortCaps caps;
  // The invalid per-type value is dropped: the generic one applies.
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, caps).high_limit, 9);
  EXPECT_EQ(program_port_qos(conf, IbPortType::swe, caps).high_limit, 9);
  EXPECT_EQ(program_port_qos(conf, IbPortType::rtr, caps).high_limit, 255);
  EXPECT_TRUE(has_warning(conf, "qos_ca_high_limit=300", 2));
  EXPECT_TRUE(has_warning(conf, "qos_swe_high_limit=-5", 3));

  const OpensmConf alone = parse_ok("qos_high_limit 256\n");
  EXPECT_EQ(program_port_qos(alone, IbPortType::ca, caps).high_limit, 0);  // built-in default
}

TEST(OpensmConf, MaxVlsOutOfRangeFallsBackAndGarbageIsAnError) {
  const OpensmConf conf = parse_ok("qos_max_vls 8\nqos_ca_max_vls 16\nqos_swe_max_vls 0x4\n");
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, IbPortCaps{}).max_vls, 8u);
  EXPECT_EQ(program_port_qos(conf, IbPortType::swe, IbPortCaps{}).max_vls, 4u);
  EXPECT_TRUE(has_warning(conf, "qos_ca_max_vls=16", 2));

  const auto bad = parse_opensm_conf("# c\n  qos_max_vls  eight\n", "o.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_config);
  EXPECT_EQ(bad.error().loc.line, 2u);
  EXPECT_EQ(bad.error().loc.column, 16u);
  EXPECT_EQ(bad.error().where, "qos_max_vls");
}

TEST(OpensmConf, VlIsTakenModulo15) {
  const OpensmConf conf = parse_ok("qos_vlarb_high 15:1,16:2,29:3,30:4\n");
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{5, 4, 1});
  EXPECT_EQ(qos.vlarb_high, entries({{0, 1}, {1, 2}, {14, 3}, {0, 4}}));
  EXPECT_TRUE(has_warning(conf, "vl=16 out of range", 1));
  EXPECT_EQ(conf.warnings.size(), 4u);
}

TEST(OpensmConf, WeightKeepsItsLowEightBits) {
  const OpensmConf conf = parse_ok("qos_vlarb_low 1:300,2:0x40\n");
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{4, 1, 2});
  EXPECT_EQ(qos.vlarb_low, entries({{1, 44}, {2, 64}}));
  EXPECT_TRUE(has_warning(conf, "weight=300 out of range", 1));
}

std::string many_entries(int count) {
  std::string text;
  for (int k = 0; k < count; ++k) {
    if (k > 0) text += ",";
    text += std::to_string(k % 8) + ":" + std::to_string(k + 1);
  }
  return text;
}

TEST(OpensmConf, MoreThan64EntriesAreDroppedWithAWarning) {
  const OpensmConf conf = parse_ok("qos_vlarb_low " + many_entries(70) + "\n");
  EXPECT_TRUE(has_warning(conf, "more than 64", 1));
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{4, 0, 40});
  ASSERT_EQ(qos.vlarb_low.size(), 40u);
  for (int k = 0; k < 40; ++k) {
    EXPECT_EQ(qos.vlarb_low[k], (VlArbEntry{uint8_t(k % 8), uint8_t(k + 1)})) << k;
  }
  EXPECT_TRUE(qos.vlarb_high.empty());
}

TEST(OpensmConf, A64EntryPortGetsAnEmptySecondBlockAsOpensmSendsIt) {
  // OpenSM sends block 1 with cap % 32 entries: 0 for a 64-entry port.
  const OpensmConf conf = parse_ok("qos_vlarb_low " + many_entries(64) + "\n");
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{4, 0, 64});
  ASSERT_EQ(qos.vlarb_low.size(), 64u);
  EXPECT_EQ(qos.vlarb_low[31], (VlArbEntry{7, 32}));
  for (int k = 32; k < 64; ++k) EXPECT_EQ(qos.vlarb_low[k], (VlArbEntry{0, 0})) << k;
}

TEST(OpensmConf, TablesAreCutToThePortCapacity) {
  const IbPortQos qos = program_port_qos(parse_ok(""), IbPortType::ca, IbPortCaps{4, 2, 3});
  EXPECT_EQ(qos.vlarb_high, entries({{0, 4}, {1, 0}}));
  EXPECT_EQ(qos.vlarb_low, entries({{0, 0}, {1, 4}, {2, 4}}));
  const IbPortQos none = program_port_qos(parse_ok(""), IbPortType::ca, IbPortCaps{4, 0, 0});
  EXPECT_TRUE(none.vlarb_high.empty());
  EXPECT_TRUE(none.vlarb_low.empty());
}

TEST(OpensmConf, VlsAreMaskedByTheOperationalVls) {
  const OpensmConf conf = parse_ok("qos_vlarb_low 5:10,6:20,7:30,14:40\n");
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, IbPortCaps{3, 0, 4}).vlarb_low,
            entries({{1, 10}, {2, 20}, {3, 30}, {2, 40}}));
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, IbPortCaps{2, 0, 4}).vlarb_low,
            entries({{1, 10}, {0, 20}, {1, 30}, {0, 40}}));
  EXPECT_EQ(program_port_qos(conf, IbPortType::ca, IbPortCaps{1, 0, 4}).vlarb_low,
            entries({{0, 10}, {0, 20}, {0, 30}, {0, 40}}));
  EXPECT_EQ(op_vls_mask(4), 7);
  EXPECT_EQ(op_vls_mask(5), 15);
  EXPECT_EQ(max_data_vl(5), 14);
  EXPECT_EQ(max_data_vl(3), 3);
}

TEST(OpensmConf, Sl2vlKeepsVl15AndMasksTheRest) {
  const OpensmConf conf = parse_ok("qos_ca_sl2vl 15,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n");
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{3, 8, 8});
  const std::array<uint8_t, 16> expected{15, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 15};
  EXPECT_EQ(qos.sl2vl, expected);
  EXPECT_TRUE(conf.warnings.empty());
}

TEST(OpensmConf, Sl2vlShortListAndOutOfRangeValuesWarn) {
  const OpensmConf conf = parse_ok("\nqos_sl2vl 1,2,17\n");
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{5, 8, 8});
  EXPECT_EQ(qos.sl2vl[0], 1);
  EXPECT_EQ(qos.sl2vl[1], 2);
  EXPECT_EQ(qos.sl2vl[2], 1);  // 17 keeps its low nibble
  for (size_t sl = 3; sl < 16; ++sl) EXPECT_EQ(qos.sl2vl[sl], 0) << sl;
  EXPECT_TRUE(has_warning(conf, "fewer than 16", 2));
  EXPECT_TRUE(has_warning(conf, "vl=17 out of range", 2));
}

TEST(OpensmConf, OpensmDocumentExample) {
  const OpensmConf conf = parse_ok(
      "qos_ca_max_vls 15\n"
      "qos_ca_high_limit 6\n"
      "qos_ca_vlarb_high 0:4\n"
      "qos_ca_vlarb_low 0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64\n"
      "qos_ca_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\n"
      "qos_swe_max_vls 15\n"
      "qos_swe_high_limit 6\n"
      "qos_swe_vlarb_high 0:4\n"
      "qos_swe_vlarb_low 0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64\n"
      "qos_swe_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7\n");
  EXPECT_TRUE(conf.warnings.empty());
  for (IbPortType type : {IbPortType::ca, IbPortType::swe}) {
    const IbPortQos qos = program_port_qos(conf, type, IbPortCaps{4, 8, 8});
    EXPECT_EQ(qos.high_limit, 6);
    EXPECT_EQ(qos.vlarb_high,
              entries({{0, 4}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}));
    EXPECT_EQ(qos.vlarb_low,
              entries({{0, 0}, {1, 64}, {2, 128}, {3, 192}, {4, 0}, {5, 64}, {6, 64}, {7, 64}}));
  }
  // sw0 and rtr are not configured: built-in defaults.
  EXPECT_EQ(program_port_qos(conf, IbPortType::rtr, IbPortCaps{4, 8, 8}).high_limit, 0);
}

TEST(OpensmConf, FileSyntaxAsOpensmReadsIt) {
  const OpensmConf conf = parse_ok(
      "# QoS\n"
      "qos_high_limit 3   # trailing comment\n"
      "\tqos_high_limit\t\"7\"\n"         // last occurrence wins, quotes dropped
      "qos_vlarb_high '1:4;2:8'\n"        // OpenSM skips any one separator character
      "qos_ca_vlarb_high (null)\n"        // OpenSM's unset marker
      "qos_bogus_option 1\n"              // unknown qos_ key: a warning, not an error
      "log_file /var/log/opensm.log\n");  // not a QoS option: ignored
  const IbPortQos qos = program_port_qos(conf, IbPortType::ca, IbPortCaps{4, 2, 0});
  EXPECT_EQ(qos.high_limit, 7);
  EXPECT_EQ(qos.vlarb_high, entries({{1, 4}, {2, 8}}));
  EXPECT_TRUE(has_warning(conf, "qos_bogus_option", 6));
}

TEST(OpensmConf, OptionWithoutValueIsAnErrorWithLineAndColumn) {
  const auto bad = parse_opensm_conf("qos TRUE\n   qos_ca_sl2vl   # none\n", "x.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().loc.file, "x.conf");
  EXPECT_EQ(bad.error().loc.line, 2u);
  EXPECT_EQ(bad.error().loc.column, 4u);
  EXPECT_EQ(bad.error().where, "qos_ca_sl2vl");
}

TEST(OpensmConf, PortCapsAndTypesAreValidated) {
  EXPECT_TRUE(validate_port_caps(IbPortCaps{}).ok());
  EXPECT_FALSE(validate_port_caps(IbPortCaps{0, 8, 8}).ok());
  EXPECT_FALSE(validate_port_caps(IbPortCaps{6, 8, 8}).ok());
  EXPECT_FALSE(validate_port_caps(IbPortCaps{4, 65, 8}).ok());
  EXPECT_TRUE(validate_port_caps(IbPortCaps{5, 64, 64}).ok());
  ASSERT_TRUE(parse_ib_port_type("sw0").ok());
  EXPECT_EQ(*parse_ib_port_type("sw0"), IbPortType::sw0);
  EXPECT_FALSE(parse_ib_port_type("switch").ok());
  const auto missing = load_opensm_conf("/nonexistent/opensm.conf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::invalid_config);
}

}  // namespace
}  // namespace qb::policy
