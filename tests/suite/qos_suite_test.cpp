// The QoS sections of a suite: loader errors at their exact location, class resolution with
// hand-computed classes, tclass inheritance, provider profiles and the OpenSM files.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "qb/suite/compile.hpp"
#include "load_error.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::suite {
namespace {

using policy::TcLabel;

Result<Suite> load(std::string_view text) {
  return load_suite_string(text, "q.toml");
}

using test_support::expect_error;
using test_support::Expected;

void expect_load_error(std::string_view text, const Expected& expected) {
  test_support::expect_load_error(text, "q.toml", expected);
}

// Loads and compiles the first scenario; fails the test on any error.
struct Compiled {
  Suite suite;
  CompiledScenario scenario;
  std::vector<Warning> warnings;
};

std::unique_ptr<Compiled> compile(std::string_view text) {
  auto suite = load(text);
  EXPECT_TRUE(suite) << suite.error().to_string();
  if (!suite) return nullptr;
  auto out = std::make_unique<Compiled>();
  out->suite = std::move(*suite);
  auto compiled = compile_scenario(out->suite.scenarios.front(), out->warnings);
  EXPECT_TRUE(compiled) << compiled.error().to_string();
  if (!compiled) return nullptr;
  out->scenario = std::move(*compiled);
  return out;
}

const policy::FlowPlan& flow_named(const CompiledScenario& compiled, std::string_view name) {
  for (const auto& flow : compiled.plan.flows) {
    if (flow.name == name) return flow;
  }
  ADD_FAILURE() << "no flow " << name;
  return compiled.plan.flows.front();
}

std::string source_path(std::string_view relative) {
  return std::string(QB_SOURCE_DIR) + "/" + std::string(relative);
}

// A file in the test's temporary directory.
std::string write_temp(std::string_view name, std::string_view text) {
  const auto dir = std::filesystem::temp_directory_path() / "qb_qos_suite_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

constexpr std::string_view kFlow = "[[flow]]\nname = \"f\"\nsize = 4096\nrate = \"saturate\"\n";

// ---- loader errors ---------------------------------------------------------------------------

TEST(QosSuiteErrors, PrioTcEntryOutOfRange) {
  expect_load_error("[eth]\nprio_tc = [0, 1, 2, 8, 4, 5, 6, 7]\n",
                    {"eth.prio_tc[3]", 2, 21, "TC must be in 0..7, got 8"});
  expect_load_error("[eth]\nprio_tc = [0, 1, 2]\n", {"eth.prio_tc", 2, 11, "expected 8 TCs"});
}

TEST(QosSuiteErrors, EtsMustSumTo100) {
  expect_load_error(
      "[eth]\n"
      "tsa = [\"ets\", \"ets\", \"strict\", \"vendor\", \"vendor\", \"vendor\", \"vendor\", "
      "\"vendor\"]\n"
      "ets = [60, 30, 0, 0, 0, 0, 0, 0]\n",
      {"eth.ets", 3, 7, "sum to 100 when any TC is ETS, got 90"});
  // ETS TCs but no percentages at all: the sum is 0, reported at tsa.
  expect_load_error(
      "[eth]\ntsa = [\"ets\", \"strict\", \"strict\", \"strict\", \"strict\", "
      "\"strict\", \"strict\", \"strict\"]\n",
      {"eth.tsa", 2, 7, "got 0"});
}

TEST(QosSuiteErrors, NonEtsTcWithPercentage) {
  expect_load_error(
      "[eth]\n"
      "tsa = [\"ets\", \"ets\", \"strict\", \"vendor\", \"vendor\", \"vendor\", \"vendor\", "
      "\"vendor\"]\n"
      "ets = [60, 40, 10, 0, 0, 0, 0, 0]\n",
      {"eth.ets[2]", 3, 16, "TC2 has 10% but is not an ETS TC"});
  expect_load_error(
      "[eth]\ntsa = [\"ets\", \"fair\", \"ets\", \"ets\", \"ets\", \"ets\", \"ets\", "
      "\"ets\"]\n",
      {"eth.tsa[1]", 2, 15, "unknown selection 'fair'"});
}

TEST(QosSuiteErrors, Dscp2PrioKeysAndValues) {
  expect_load_error("[eth]\ntrust = \"dscp\"\n[eth.dscp2prio]\n64 = 1\n",
                    {"eth.dscp2prio.\"64\"", 4, 1, "DSCP must be in 0..63, got 64"});
  expect_load_error("[eth]\ntrust = \"dscp\"\n[eth.dscp2prio]\n46 = 8\n",
                    {"eth.dscp2prio.\"46\"", 4, 6, "priority must be in 0..7, got 8"});
  expect_load_error("[eth]\ntrust = \"dscp\"\n[eth.dscp2prio]\nef = 5\n",
                    {"eth.dscp2prio.\"ef\"", 4, 1, "DSCP values 0..63"});
  expect_load_error("[eth]\ntrust = \"cos\"\n", {"eth.trust", 2, 9, "unknown trust 'cos'"});
}

TEST(QosSuiteErrors, TcMaxRate) {
  expect_load_error("[eth]\ntc_max_rate = [0, 0, \"2Mpps\", 0, 0, 0, 0, 0]\n",
                    {"eth.tc_max_rate[2]", 2, 22, "not a packet rate"});
  expect_load_error("[eth]\ntc_max_rate = [0, \"300Gbps\", 0, 0, 0, 0, 0, 0]\n",
                    {"eth.tc_max_rate[1]", 2, 19, "at most 255 Gbit/s"});
}

TEST(QosSuiteErrors, EthAndIbNeedTheirTransport) {
  expect_load_error("[port]\ntransport = \"ib\"\n[eth]\ntrust = \"dscp\"\n",
                    {"eth", 3, 1, "applies to rocev2 and eth ports"});
  expect_load_error("[port]\ntransport = \"rocev2\"\n[ib]\nop_vls = 3\n",
                    {"ib", 3, 1, "applies to ib ports; this port is rocev2"});
}

TEST(QosSuiteErrors, FlowClassKeys) {
  const std::string base = std::string(kFlow);
  expect_load_error(base + "dscp = 64\n", {"flow[0].dscp", 5, 8, "DSCP must be in 0..63"});
  expect_load_error(base + "tx_tclass = \"dscp:64\"\n",
                    {"flow[0].tx_tclass", 5, 13, "DSCP must be in 0..63, got 64"});
  expect_load_error(base + "tx_tclass = \"fast\"\n",
                    {"flow[0].tx_tclass", 5, 13, "unknown traffic class 'fast'"});
  expect_load_error(base + "tx_tclass = \"bulk_data\"\ndscp = 10\n",
                    {"flow[0].dscp", 6, 8, "either tx_tclass or dscp"});
  expect_load_error(base + "sl = 16\n", {"flow[0].sl", 5, 6, "SL must be in 0..15, got 16"});
  expect_load_error(base + "pcp = 3\n", {"flow[0].pcp", 5, 7, "pcp applies to eth"});
  expect_load_error(
      "[port]\ntransport = \"eth\"\nmtu = 1500\n[[flow]]\nname = \"f\"\nsize = "
      "1518\nrate = \"saturate\"\nsl = 3\n",
      {"flow[0].sl", 8, 6, "eth has no SL"});
  expect_load_error("[port]\ntransport = \"ib\"\n" + base + "dscp = 10\n",
                    {"flow[0].dscp", 7, 8, "InfiniBand packets carry no DSCP"});
}

TEST(QosSuiteErrors, TrafficClassSection) {
  expect_load_error("[traffic_class]\ntclass = \"gold\"\n",
                    {"traffic_class.tclass", 2, 10, "unknown traffic class 'gold'"});
  expect_load_error("[traffic_class]\nprovider = \"psm3\"\n",
                    {"traffic_class.provider", 2, 12, "unknown provider 'psm3'"});
  expect_load_error("[traffic_class.dscp_table]\nlow_latency = 64\n",
                    {"traffic_class.dscp_table.low_latency", 2, 15, "DSCP must be in 0..63"});
  expect_load_error("[traffic_class.dscp_table]\nunspec = 4\n",
                    {"traffic_class.dscp_table.unspec", 2, 1, "unknown key 'unspec'"});
}

TEST(QosSuiteErrors, IbTables) {
  const std::string ib = "[port]\ntransport = \"ib\"\n[ib]\n";
  // Entry 15 starts 30 characters into the string, which starts at column 10.
  expect_load_error(ib + "sl2vl = \"0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,16\"\n",
                    {"ib.sl2vl[15]", 4, 40, "must be in 0..15, got 16"});
  expect_load_error(ib + "sl2vl = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 9]\n",
                    {"ib.sl2vl[15]", 4, 55, "VL 9 is not operational"});
  expect_load_error(ib + "sl2vl = \"0,1,2\"\n", {"ib.sl2vl", 4, 9, "expected 16 VLs"});
  expect_load_error(ib + "vlarb_low = \"0:0,1:64,2:300\"\n",
                    {"ib.vlarb_low[2]", 4, 25, "weight (64-byte credits) must be in 0..255"});
  expect_load_error(ib + "vlarb_low = \"0:0,15:64\"\n",
                    {"ib.vlarb_low[1]", 4, 18, "VL must be in 0..14, got 15"});
  expect_load_error(ib + "vlarb_high = [[0, 4], [16, 1]]\n",
                    {"ib.vlarb_high[1][0]", 4, 24, "VL must be in 0..14, got 16"});
  expect_load_error(ib + "vlarb_high_cap = 1\nvlarb_high = \"0:4,1:4\"\n",
                    {"ib.vlarb_high[1]", 5, 19, "the port holds 1 entries"});
  expect_load_error(ib + "high_limit = 256\n", {"ib.high_limit", 4, 14, "0..255"});
  expect_load_error(ib + "op_vls = 6\n", {"ib.op_vls", 4, 10, "1..5"});
}

TEST(QosSuiteErrors, FabricAndHosts) {
  expect_load_error("[fabric]\nhosts = 2\n" + std::string(kFlow) + "host = 2\n",
                    {"flow[0].host", 7, 8, "host 2 does not exist: [fabric] hosts = 2"});
  expect_load_error("[fabric]\nhosts = 2\nswitch = false\nswitch_rate = \"50Gbps\"\n",
                    {"fabric.switch_rate", 4, 15, "needs switch = true"});
  expect_load_error("[fabric]\nhosts = 0\n", {"fabric.hosts", 2, 9, "1..1024"});
}

TEST(QosSuiteErrors, PolicyKeysNeedAPolicy) {
  expect_load_error("[port]\ntransport = \"ib\"\n" + std::string(kFlow) + "service_id = 0x1000\n",
                    {"flow[0].service_id", 7, 14, "name one in [ib] qos_policy"});
  expect_load_error(
      "[port]\ntransport = \"ib\"\n" + std::string(kFlow) + "source_guid = \"0xzz\"\n",
      {"flow[0].source_guid", 7, 15, "not a number"});
}

TEST(QosSuiteErrors, OpensmPolicyFatalErrorNamesThePolicyFile) {
  // AC10: no DEFAULT qos-level.
  const std::string policy = write_temp("no-default.qos-policy.conf",
                                        "qos-levels\n    qos-level\n        name: FAST\n"
                                        "        sl: 3\n    end-qos-level\nend-qos-levels\n");
  auto suite = load("[port]\ntransport = \"ib\"\n[ib]\nqos_policy = \"" + policy + "\"\n");
  ASSERT_FALSE(suite);
  EXPECT_EQ(suite.error().code, Errc::invalid_config);
  EXPECT_EQ(suite.error().where, "ib.qos_policy");
  EXPECT_EQ(suite.error().loc.file, policy) << suite.error().to_string();
  EXPECT_NE(suite.error().loc.line, 0u) << suite.error().to_string();

  auto missing = load("[port]\ntransport = \"ib\"\n[ib]\nopensm_conf = \"no/such/opensm.conf\"\n");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().where, "ib.opensm_conf");
  EXPECT_EQ(exit_code_for(missing.error().code), 2);
}

TEST(QosSuiteErrors, CxiRejectsAtTheKeyThatChoseTheClass) {
  auto suite =
      load("[traffic_class]\nprovider = \"cxi\"\ntclass = \"network_ctrl\"\n" + std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto compiled = compile_scenario(suite->scenarios.front(), warnings);
  ASSERT_FALSE(compiled);
  expect_error(compiled.error(), {"traffic_class.tclass", 3, 10, "provider cxi rejects"});

  suite = load("[traffic_class]\nprovider = \"cxi\"\n" + std::string(kFlow) + "dscp = 10\n");
  ASSERT_TRUE(suite) << suite.error().to_string();
  compiled = compile_scenario(suite->scenarios.front(), warnings);
  ASSERT_FALSE(compiled);
  expect_error(compiled.error(), {"flow[0].dscp", 7, 8, "rejects tclass dscp:10"});
}

// ---- resolution ------------------------------------------------------------------------------

TEST(QosSuiteResolution, ExistingSuitesKeepTheirPlan) {
  auto c = compile(kFlow);
  ASSERT_TRUE(c);
  const auto& plan = c->scenario.plan;
  EXPECT_EQ(plan.nic_qos.kind, policy::PortQos::Kind::none);
  EXPECT_EQ(plan.hosts, 1u);
  EXPECT_FALSE(plan.switched);
  const auto& flow = plan.flows.front();
  EXPECT_EQ(flow.dscp, 0);
  EXPECT_EQ(flow.sl, 0);
  EXPECT_EQ(flow.arb_class, 0);
  EXPECT_TRUE(flow.class_note.empty());
  // 4096 B write on RoCEv2: one packet of 4096 + 14+20+8+12+16+4 + 24 (L1) = 4194 wire bytes.
  EXPECT_DOUBLE_EQ(c->scenario.mean_packet_wire_bytes.front(), 4194.0);
  EXPECT_DOUBLE_EQ(c->scenario.expected.flow_bps.front(), 100e9);
}

constexpr std::string_view kRoceDscp = R"([port]
transport = "rocev2"
[traffic_class]
tclass = "bulk_data"
[traffic_class.dscp_table]
scavenger = 1
[eth]
trust = "dscp"
tsa = ["ets", "ets", "ets", "ets", "ets", "strict", "vendor", "vendor"]
ets = [10, 20, 30, 20, 20, 0, 0, 0]
[eth.dscp2prio]
10 = 2
[[flow]]
name = "inherit"
size = 4096
rate = "saturate"
[[flow]]
name = "ll"
size = 4096
rate = "saturate"
tx_tclass = "low_latency"
rx_tclass = "best_effort"
[[flow]]
name = "af31"
size = 4096
rate = "saturate"
dscp = 26
[[flow]]
name = "scav"
size = 4096
rate = "saturate"
tx_tclass = "scavenger"
)";

TEST(QosSuiteResolution, RoceDscpTrust) {
  auto c = compile(kRoceDscp);
  ASSERT_TRUE(c);
  const auto& plan = c->scenario.plan;
  ASSERT_EQ(plan.nic_qos.kind, policy::PortQos::Kind::ets);
  // Domain bulk_data -> DSCP 10 (AF11) -> dscp2prio override 2 -> prio_tc default -> TC2.
  const auto& inherit = flow_named(c->scenario, "inherit");
  EXPECT_EQ(inherit.tx_tclass, (policy::TrafficClass{TcLabel::bulk_data, 0}));
  EXPECT_EQ(inherit.rx_tclass, (policy::TrafficClass{TcLabel::bulk_data, 0}));
  EXPECT_EQ(inherit.dscp, 10);
  EXPECT_EQ(inherit.priority, 2);
  EXPECT_EQ(inherit.arb_class, 2);
  EXPECT_NE(inherit.class_note.find("(domain)"), std::string::npos) << inherit.class_note;
  // low_latency -> EF 46 -> 46 >> 3 = 5 -> TC5; rx keeps its own best_effort.
  const auto& ll = flow_named(c->scenario, "ll");
  EXPECT_EQ(ll.dscp, 46);
  EXPECT_EQ(ll.priority, 5);
  EXPECT_EQ(ll.arb_class, 5);
  EXPECT_EQ(ll.rx_tclass.label, TcLabel::best_effort);
  // dscp 26 -> 26 >> 3 = 3 -> TC3.
  const auto& af31 = flow_named(c->scenario, "af31");
  EXPECT_EQ(af31.tx_tclass, (policy::TrafficClass{TcLabel::dscp, 26}));
  EXPECT_EQ(af31.priority, 3);
  EXPECT_EQ(af31.arb_class, 3);
  // scavenger overridden to DSCP 1 -> prio 0 -> mlx5 default prio_tc[0] = TC1.
  const auto& scav = flow_named(c->scenario, "scav");
  EXPECT_EQ(scav.dscp, 1);
  EXPECT_EQ(scav.priority, 0);
  EXPECT_EQ(scav.arb_class, 1);
  EXPECT_EQ(plan.nic_qos.eth.ets_percent[2], 30);
}

TEST(QosSuiteResolution, RocePcpTrustUsesSlAnd7) {
  auto c = compile(R"([port]
transport = "rocev2"
[eth]
prio_tc = [0, 1, 2, 3, 4, 5, 6, 7]
[[flow]]
name = "a"
size = 4096
rate = "saturate"
sl = 3
tx_tclass = "low_latency"
[[flow]]
name = "b"
size = 4096
rate = "saturate"
sl = 9
)");
  ASSERT_TRUE(c);
  const auto& a = flow_named(c->scenario, "a");
  EXPECT_EQ(a.dscp, 46);  // marked, but PCP trust ignores it
  EXPECT_EQ(a.priority, 3);
  EXPECT_EQ(a.arb_class, 3);
  const auto& b = flow_named(c->scenario, "b");
  EXPECT_EQ(b.sl, 9);
  EXPECT_EQ(b.priority, 1);  // 9 & 7
  EXPECT_EQ(b.arb_class, 1);
}

TEST(QosSuiteResolution, EfaResetsWithAWarningAndMapsLowLatencyToSl8) {
  auto c = compile(R"([port]
transport = "rocev2"
[traffic_class]
provider = "efa"
[eth]
[[flow]]
name = "bulk"
size = 4096
rate = "saturate"
tx_tclass = "bulk_data"
[[flow]]
name = "ll"
size = 4096
rate = "saturate"
tx_tclass = "low_latency"
)");
  ASSERT_TRUE(c);
  const auto& bulk = flow_named(c->scenario, "bulk");
  EXPECT_EQ(bulk.tx_tclass, policy::TrafficClass{});
  EXPECT_EQ(bulk.dscp, 0);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0].where, "flow[0].tx_tclass");
  EXPECT_EQ(c->warnings[0].loc.line, 10u);
  EXPECT_EQ(c->warnings[0].loc.column, 13u);
  EXPECT_NE(c->warnings[0].message.find("reset to unspec"), std::string::npos);
  // low_latency: SL 8 -> priority 8 & 7 = 0 -> default prio_tc[0] = TC1.
  const auto& ll = flow_named(c->scenario, "ll");
  EXPECT_EQ(ll.sl, 8);
  EXPECT_EQ(ll.dscp, 46);
  EXPECT_EQ(ll.priority, 0);
  EXPECT_EQ(ll.arb_class, 1);
}

TEST(QosSuiteResolution, VerbsIgnoresTclass) {
  auto c = compile("[traffic_class]\nprovider = \"verbs\"\ntclass = \"low_latency\"\n" +
                   std::string(kFlow));
  ASSERT_TRUE(c);
  const auto& flow = c->scenario.plan.flows.front();
  EXPECT_EQ(flow.dscp, 0);
  EXPECT_EQ(flow.tx_tclass, policy::TrafficClass{});
  EXPECT_NE(flow.class_note.find("ignores"), std::string::npos) << flow.class_note;
}

TEST(QosSuiteResolution, IbDocExampleGivesTheTablesImportOpensmGives) {
  auto c = compile("[port]\ntransport = \"ib\"\n[ib]\nopensm_conf = \"" +
                   source_path("tests/conformance/configs/doc-example.conf") +
                   "\"\n[fabric]\nhosts = 2\n" + std::string(kFlow) + "sl = 10\n" +
                   "[[flow]]\nname = \"g\"\nsize = 4096\nrate = \"saturate\"\nhost = 1\n");
  ASSERT_TRUE(c);
  const auto& plan = c->scenario.plan;
  ASSERT_EQ(plan.nic_qos.kind, policy::PortQos::Kind::vlarb);
  // tests/conformance/examples/doc-example.json (what OpenSM programmed on ibsim).
  const std::array<uint8_t, 16> sl2vl = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};
  const std::vector<policy::VlArbEntry> high = {{0, 4}, {0, 0}, {0, 0}, {0, 0},
                                                {0, 0}, {0, 0}, {0, 0}, {0, 0}};
  const std::vector<policy::VlArbEntry> low = {{0, 0}, {1, 64}, {2, 128}, {3, 192},
                                               {4, 0}, {5, 64}, {6, 64},  {7, 64}};
  for (const policy::PortQos* port : {&plan.nic_qos, &plan.switch_qos}) {
    EXPECT_EQ(port->ib.tables.sl2vl, sl2vl);
    EXPECT_EQ(port->ib.tables.vlarb_high, high);
    EXPECT_EQ(port->ib.tables.vlarb_low, low);
    EXPECT_EQ(port->ib.tables.high_limit, 6);
  }
  EXPECT_EQ(plan.hosts, 2u);
  EXPECT_TRUE(plan.switched);
  EXPECT_DOUBLE_EQ(plan.switch_rate_bps, 100e9);
  const auto& f = flow_named(c->scenario, "f");
  EXPECT_EQ(f.sl, 10);
  EXPECT_EQ(f.arb_class, 2);  // SL 10 -> VL 10 & 7
  EXPECT_EQ(f.switch_arb_class, 2);
  const auto& g = flow_named(c->scenario, "g");
  EXPECT_EQ(g.host, 1u);
  EXPECT_EQ(g.arb_class, 0);
}

TEST(QosSuiteResolution, IbDirectValuesOverrideTheFileAndVl15Drops) {
  auto c = compile("[port]\ntransport = \"ib\"\n[ib]\nopensm_conf = \"" +
                   source_path("tests/conformance/configs/doc-example.conf") +
                   "\"\nsl2vl = \"0,1,2,3,4,15,6,7,0,1,2,3,4,5,6,7\"\n"
                   "vlarb_low = [[1, 32], [2, 96]]\nhigh_limit = 255\n" +
                   std::string(kFlow) + "sl = 5\n");
  ASSERT_TRUE(c);
  const auto& tables = c->scenario.plan.nic_qos.ib.tables;
  EXPECT_EQ(tables.sl2vl[5], 15);
  const std::vector<policy::VlArbEntry> low = {{1, 32}, {2, 96}, {0, 0}, {0, 0},
                                               {0, 0},  {0, 0},  {0, 0}, {0, 0}};
  EXPECT_EQ(tables.vlarb_low, low);
  EXPECT_EQ(tables.high_limit, 255);
  EXPECT_EQ(tables.vlarb_high[0], (policy::VlArbEntry{0, 4}));  // still the file's
  const auto& flow = c->scenario.plan.flows.front();
  EXPECT_TRUE(flow.dropped);
  EXPECT_EQ(flow.arb_class, 15);
  EXPECT_DOUBLE_EQ(c->scenario.expected.flow_bps.front(), 0.0);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0].where, "flow[0].sl");
  EXPECT_NE(c->warnings[0].message.find("VL15"), std::string::npos);
}

TEST(QosSuiteResolution, SlFromTheQosPolicyExplicitSlWins) {
  const std::string policy = write_temp("fast.qos-policy.conf", R"(qos-levels
  qos-level
    name: DEFAULT
    sl: 1
  end-qos-level
  qos-level
    name: FAST
    sl: 3
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    service-id: 0x1000
    qos-level-name: FAST
  end-qos-match-rule
end-qos-match-rules
)");
  auto c = compile("[port]\ntransport = \"ib\"\n[ib]\nqos_policy = \"" + policy + "\"\n" +
                   "[[flow]]\nname = \"match\"\nsize = 4096\nrate = \"saturate\"\n"
                   "service_id = 0x1000\n"
                   "[[flow]]\nname = \"other\"\nsize = 4096\nrate = \"saturate\"\n"
                   "service_id = \"0x2000\"\n"
                   "[[flow]]\nname = \"explicit\"\nsize = 4096\nrate = \"saturate\"\n"
                   "service_id = 0x1000\nsl = 5\n");
  ASSERT_TRUE(c);
  // Default OpenSM tables on op_vls 4: SL n -> VL n for n < 8.
  const auto& match = flow_named(c->scenario, "match");
  EXPECT_EQ(match.sl, 3);
  EXPECT_EQ(match.arb_class, 3);
  EXPECT_NE(match.class_note.find("FAST"), std::string::npos) << match.class_note;
  const auto& other = flow_named(c->scenario, "other");
  EXPECT_EQ(other.sl, 1);
  EXPECT_EQ(other.arb_class, 1);
  const auto& explicit_sl = flow_named(c->scenario, "explicit");
  EXPECT_EQ(explicit_sl.sl, 5);
  EXPECT_EQ(explicit_sl.arb_class, 5);
}

TEST(QosSuiteResolution, OpensmWarningsBecomeSuiteWarnings) {
  const std::string conf = write_temp("warn.conf", "qos TRUE\nqos_high_limit 300\n");
  auto suite = load("[port]\ntransport = \"ib\"\n[ib]\nopensm_conf = \"" + conf + "\"\n" +
                    std::string(kFlow));
  ASSERT_TRUE(suite) << suite.error().to_string();
  ASSERT_FALSE(suite->warnings.empty());
  EXPECT_EQ(suite->warnings[0].where, "ib.opensm_conf");
  EXPECT_EQ(suite->warnings[0].loc.file, conf);
  EXPECT_EQ(suite->warnings[0].loc.line, 2u);
}

TEST(QosSuiteResolution, RelativeOpensmPathsFollowTheSuiteFile) {
  const std::string suite_path = source_path("tests/conformance/configs/relative.toml");
  auto suite = load_suite_string(
      "[port]\ntransport = \"ib\"\n[ib]\nopensm_conf = "
      "\"doc-example.conf\"\n" +
          std::string(kFlow),
      suite_path);
  ASSERT_TRUE(suite) << suite.error().to_string();
  EXPECT_EQ(suite->scenarios[0].ib.opensm_conf_path,
            source_path("tests/conformance/configs/doc-example.conf"));
}

TEST(QosSuiteResolution, ScenariosInheritAndReplaceQosSections) {
  auto suite = load(R"([port]
transport = "rocev2"
[eth]
prio_tc = [0, 1, 2, 3, 4, 5, 6, 7]
[[flow]]
name = "f"
size = 4096
rate = "saturate"
sl = 6
[[scenario]]
name = "inherits"
[[scenario]]
name = "replaces"
[scenario.eth]
prio_tc = [0, 1, 2, 3, 4, 5, 0, 0]
)");
  ASSERT_TRUE(suite) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto first = compile_scenario(suite->scenarios[0], warnings);
  auto second = compile_scenario(suite->scenarios[1], warnings);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->plan.flows[0].arb_class, 6);
  EXPECT_EQ(second->plan.flows[0].arb_class, 0);
}

TEST(QosSuiteResolution, FuzzSeedsLoadAsIntended) {
  for (const char* seed : {"roce_ets_classes.toml", "ib_vlarb_tables.toml"}) {
    auto suite = load_suite_file(source_path("tests/fuzz/corpus/") + seed);
    ASSERT_TRUE(suite) << suite.error().to_string();
    std::vector<Warning> warnings;
    auto compiled = compile_scenario(suite->scenarios.front(), warnings);
    EXPECT_TRUE(compiled) << seed << ": " << compiled.error().to_string();
  }
  auto bad = load_suite_file(source_path("tests/fuzz/corpus/bad_ets_sum.toml"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "eth.ets");
}

}  // namespace
}  // namespace qb::suite
