// The class oracle: hand-computed expected rates for each arbitration rule.
#include "qb/policies/class_oracle.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace qb::policy {
namespace {

constexpr double kGbps = 1e9;
constexpr double kTol = 1e-3;  // bit/s: the arithmetic is exact up to rounding

// Root with two leaves weighted 3:1; one flow each.
QosPlan two_leaf_plan(double port_bps) {
  QosPlan plan;
  plan.tree = SchedTree::with_root();
  const uint32_t a = plan.tree.add_child(0, "a", true, 3);
  const uint32_t b = plan.tree.add_child(0, "b", true, 1);
  plan.port_rate_bps = port_bps;
  plan.flows.resize(2);
  plan.flows[0].name = "fa";
  plan.flows[0].leaf = a;
  plan.flows[1].name = "fb";
  plan.flows[1].leaf = b;
  return plan;
}

TEST(ClassOracleTest, NoClassesOneHostEqualsTreeOracle) {
  const QosPlan plan = two_leaf_plan(100 * kGbps);
  const std::vector<double> offered = {kUnlimited, kUnlimited};
  const std::vector<double> packet = {4096.0, 4096.0};
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, packet);
  const std::vector<FlowDemand> demands = {{plan.flows[0].leaf, kUnlimited},
                                           {plan.flows[1].leaf, kUnlimited}};
  const OracleResult tree = expected_rates(plan.tree, demands, plan.port_rate_bps);
  ASSERT_EQ(result.flows.flow_bps.size(), 2u);
  EXPECT_EQ(result.flows.flow_bps, tree.flow_bps);
  EXPECT_EQ(result.flows.element_bps, tree.element_bps);
  EXPECT_DOUBLE_EQ(result.flows.flow_bps[0], 75 * kGbps);
  EXPECT_DOUBLE_EQ(result.flows.flow_bps[1], 25 * kGbps);
  ASSERT_EQ(result.class_bps.size(), 1u);
  EXPECT_DOUBLE_EQ(result.class_bps[0], 100 * kGbps);
  EXPECT_TRUE(result.notes.empty());
}

TEST(ClassOracleTest, DroppedFlowGetsNothingAndLeavesItsShare) {
  QosPlan plan = two_leaf_plan(100 * kGbps);
  plan.flows[0].dropped = true;
  const std::vector<double> offered = {kUnlimited, kUnlimited};
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, {});
  EXPECT_DOUBLE_EQ(result.flows.flow_bps[0], 0.0);
  EXPECT_DOUBLE_EQ(result.flows.flow_bps[1], 100 * kGbps);
}

// ---- ETS ----------------------------------------------------------------------------------------

PortQos ets_60_40() {
  PortQos qos;
  qos.kind = PortQos::Kind::ets;
  qos.eth = default_eth_port_qos();
  qos.eth.tsa.fill(TcSelect::ets);
  qos.eth.ets_percent = {60, 40, 0, 0, 0, 0, 0, 0};
  return qos;
}

std::vector<ClassDemand> demands(std::vector<double> bps, double packet_bytes = 4096.0) {
  std::vector<ClassDemand> out;
  for (const double d : bps) out.push_back(ClassDemand{d, d > 0.0 ? packet_bytes : 0.0});
  return out;
}

TEST(ArbitrateClassesTest, Ets60_40SaturatedSplitsByPercent) {
  const auto share = arbitrate_classes(
      ets_60_40(), demands({kUnlimited, kUnlimited, 0, 0, 0, 0, 0, 0}), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 60 * kGbps, kTol);
  EXPECT_NEAR(share[1], 40 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, EtsIsWorkConserving) {
  const auto share = arbitrate_classes(
      ets_60_40(), demands({20 * kGbps, kUnlimited, 0, 0, 0, 0, 0, 0}), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 20 * kGbps, kTol);
  EXPECT_NEAR(share[1], 80 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, StrictTcGoesFirstThenEts) {
  PortQos qos = ets_60_40();
  qos.eth.tsa[5] = TcSelect::strict;  // the low-latency TC: 30 Gbit/s of it
  const auto share = arbitrate_classes(
      qos, demands({kUnlimited, kUnlimited, 0, 0, 0, 30 * kGbps, 0, 0}), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[5], 30 * kGbps, kTol);
  EXPECT_NEAR(share[0], 42 * kGbps, kTol);  // 60 % of the 70 left
  EXPECT_NEAR(share[1], 28 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, SaturatingStrictTcStarvesEts) {
  PortQos qos = ets_60_40();
  qos.eth.tsa[5] = TcSelect::strict;
  const auto share = arbitrate_classes(
      qos, demands({kUnlimited, kUnlimited, 0, 0, 0, kUnlimited, 0, 0}), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[5], 100 * kGbps, kTol);
  EXPECT_NEAR(share[0], 0.0, kTol);
  EXPECT_NEAR(share[1], 0.0, kTol);
}

TEST(ArbitrateClassesTest, PerTcCapHwRoundedAndRedistributed) {
  PortQos qos = ets_60_40();
  qos.eth.tc_max_rate_bps[0] = hw_tc_max_rate_bps(2'345'678);  // 100 Mbit/s units: 2.3 Gbit/s
  const auto share = arbitrate_classes(qos, demands({kUnlimited, kUnlimited, 0, 0, 0, 0, 0, 0}),
                                       100 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 2.3 * kGbps, kTol);
  EXPECT_NEAR(share[1], 97.7 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, ZeroPercentEtsTcsShareWhatIsLeftEqually) {
  PortQos qos = ets_60_40();
  qos.eth.ets_percent = {100, 0, 0, 0, 0, 0, 0, 0};
  const auto share = arbitrate_classes(
      qos, demands({40 * kGbps, 0, kUnlimited, kUnlimited, 0, 0, 0, 0}), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 40 * kGbps, kTol);
  EXPECT_NEAR(share[2], 30 * kGbps, kTol);
  EXPECT_NEAR(share[3], 30 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, VendorTcsAreTheHighestGroupAndSplitEqually) {
  PortQos qos;
  qos.kind = PortQos::Kind::ets;
  qos.eth = default_eth_port_qos();  // all vendor
  qos.eth.tsa[0] = TcSelect::ets;
  qos.eth.ets_percent[0] = 100;
  const auto share = arbitrate_classes(
      qos, demands({kUnlimited, kUnlimited, kUnlimited, 0, 0, 0, 0, 0}), 90 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 0.0, kTol);
  EXPECT_NEAR(share[1], 45 * kGbps, kTol);
  EXPECT_NEAR(share[2], 45 * kGbps, kTol);
}

// ---- VLArb --------------------------------------------------------------------------------------

PortQos vlarb(std::vector<VlArbEntry> high, std::vector<VlArbEntry> low, uint8_t high_limit) {
  PortQos qos;
  qos.kind = PortQos::Kind::vlarb;
  qos.ib.tables.vlarb_high = std::move(high);
  qos.ib.tables.vlarb_low = std::move(low);
  qos.ib.tables.high_limit = high_limit;
  return qos;
}

std::vector<double> vl_demands_inf(std::initializer_list<uint32_t> vls) {
  std::vector<double> out(15, 0.0);
  for (const uint32_t vl : vls) out[vl] = kUnlimited;
  return out;
}

TEST(ArbitrateClassesTest, VlArbWeightsMultipleOf64ExactShares) {
  // 4096-byte packets cost 64 credits: 64/128/192 send 1/2/3 packets per pass.
  const PortQos qos = vlarb({}, {{1, 64}, {2, 128}, {3, 192}}, 0);
  std::vector<std::string> notes;
  const auto share =
      arbitrate_classes(qos, demands(vl_demands_inf({1, 2, 3})), 120 * kGbps, &notes);
  EXPECT_NEAR(share[1], 20 * kGbps, kTol);
  EXPECT_NEAR(share[2], 40 * kGbps, kTol);
  EXPECT_NEAR(share[3], 60 * kGbps, kTol);
  EXPECT_TRUE(notes.empty());
}

TEST(ArbitrateClassesTest, VlArb100_50With4KPacketsMatchesWeights) {
  // ceil(100/64) = 2, ceil(50/64) = 1 packets: 2:1, the same as the weights: no note.
  const PortQos qos = vlarb({}, {{1, 100}, {2, 50}}, 0);
  std::vector<std::string> notes;
  const auto share = arbitrate_classes(qos, demands(vl_demands_inf({1, 2})), 90 * kGbps, &notes);
  EXPECT_NEAR(share[1], 60 * kGbps, kTol);
  EXPECT_NEAR(share[2], 30 * kGbps, kTol);
  EXPECT_TRUE(notes.empty());
}

TEST(ArbitrateClassesTest, VlArbCreditRuleDiffersFromWeights) {
  // 32 and 64 credits each start one 64-credit packet: 1:1, not 1:2.
  const PortQos qos = vlarb({}, {{1, 32}, {2, 64}}, 0);
  std::vector<std::string> notes;
  const auto share = arbitrate_classes(qos, demands(vl_demands_inf({1, 2})), 90 * kGbps, &notes);
  EXPECT_NEAR(share[1], 45 * kGbps, kTol);
  EXPECT_NEAR(share[2], 45 * kGbps, kTol);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "VLArb credit rule (low table): VL1:VL2 = 1:1 by packets, 1:2 by weights");
}

TEST(ArbitrateClassesTest, VlArbCreditRuleOverrunGivesMore) {
  // 100 credits start two 64-credit packets, 64 one: 2:1 where the weights say 1.56:1.
  const PortQos qos = vlarb({}, {{1, 100}, {2, 64}}, 0);
  std::vector<std::string> notes;
  const auto share = arbitrate_classes(qos, demands(vl_demands_inf({1, 2})), 90 * kGbps, &notes);
  EXPECT_NEAR(share[1], 60 * kGbps, kTol);
  EXPECT_NEAR(share[2], 30 * kGbps, kTol);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "VLArb credit rule (low table): VL1:VL2 = 2:1 by packets, 1.56:1 by weights");
}

TEST(ArbitrateClassesTest, VlArbEntriesOfOneVlAddUpZeroWeightAndAbsentVlsGetNothing) {
  // VL1: two entries of 32 -> 2 packets; VL2: 64 -> 1; VL3 weight 0; VL4 in no table.
  const PortQos qos = vlarb({}, {{1, 32}, {2, 64}, {3, 0}, {1, 32}}, 0);
  const auto share =
      arbitrate_classes(qos, demands(vl_demands_inf({1, 2, 3, 4})), 90 * kGbps, nullptr);
  EXPECT_NEAR(share[1], 60 * kGbps, kTol);
  EXPECT_NEAR(share[2], 30 * kGbps, kTol);
  EXPECT_DOUBLE_EQ(share[3], 0.0);
  EXPECT_DOUBLE_EQ(share[4], 0.0);
}

TEST(ArbitrateClassesTest, VlArbWorkConservingInsideATable) {
  const PortQos qos = vlarb({}, {{1, 64}, {2, 128}, {3, 192}}, 0);
  std::vector<double> d = vl_demands_inf({2, 3});
  d[1] = 5 * kGbps;
  const auto share = arbitrate_classes(qos, demands(d), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[1], 5 * kGbps, kTol);
  EXPECT_NEAR(share[2], 38 * kGbps, kTol);  // 2:3 of the 95 left
  EXPECT_NEAR(share[3], 57 * kGbps, kTol);
}

// OpenSM's documentation example: VL0 high, high_limit 6; VL1-VL3 low at 64/128/192; VL4 off.
PortQos opensm_doc_example(uint8_t high_limit) {
  return vlarb({{0, 255}}, {{1, 64}, {2, 128}, {3, 192}, {4, 0}}, high_limit);
}

TEST(ArbitrateClassesTest, HighLimitSixGivesSixHighPacketsPerLowPacket) {
  std::vector<std::string> notes;
  const auto share = arbitrate_classes(
      opensm_doc_example(6), demands(vl_demands_inf({0, 1, 2, 3, 4})), 70 * kGbps, &notes);
  // 6 x 4096 B of high, then one 4096 B low packet: high 6/7; low 1/7 split 1:2:3.
  EXPECT_NEAR(share[0], 60 * kGbps, kTol);
  EXPECT_NEAR(share[1], 70 * kGbps / 42, kTol);
  EXPECT_NEAR(share[2], 70 * kGbps * 2 / 42, kTol);
  EXPECT_NEAR(share[3], 70 * kGbps * 3 / 42, kTol);
  EXPECT_DOUBLE_EQ(share[4], 0.0);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("high_limit 6"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("85.7 %"), std::string::npos) << notes[0];
}

TEST(ArbitrateClassesTest, HighLimitZeroIsOneHighPacket) {
  const auto share = arbitrate_classes(opensm_doc_example(0), demands(vl_demands_inf({0, 1, 2, 3})),
                                       60 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 30 * kGbps, kTol);
  EXPECT_NEAR(share[1], 5 * kGbps, kTol);
  EXPECT_NEAR(share[2], 10 * kGbps, kTol);
  EXPECT_NEAR(share[3], 15 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, HighLimit255IsStrict) {
  const auto share = arbitrate_classes(opensm_doc_example(255),
                                       demands(vl_demands_inf({0, 1, 2, 3})), 60 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 60 * kGbps, kTol);
  EXPECT_NEAR(share[1] + share[2] + share[3], 0.0, kTol);
}

TEST(ArbitrateClassesTest, HighLimitDoesNotHoldBackWhatLowDoesNotNeed) {
  std::vector<double> d = vl_demands_inf({1, 2, 3});
  d[0] = 10 * kGbps;  // below its 6/7
  const auto share = arbitrate_classes(opensm_doc_example(6), demands(d), 100 * kGbps, nullptr);
  EXPECT_NEAR(share[0], 10 * kGbps, kTol);
  EXPECT_NEAR(share[1], 15 * kGbps, kTol);
  EXPECT_NEAR(share[2], 30 * kGbps, kTol);
  EXPECT_NEAR(share[3], 45 * kGbps, kTol);
}

TEST(ArbitrateClassesTest, HighLimitCountsWholePacketsThatOverrun) {
  // high_limit 1 = 4096 B; 3000 B high packets: the second starts at 3000 < 4096 and completes,
  // so 6000 B of high per 4096 B low packet.
  const PortQos qos = vlarb({{0, 255}}, {{1, 64}}, 1);
  std::vector<ClassDemand> d(15);
  d[0] = ClassDemand{kUnlimited, 3000.0};
  d[1] = ClassDemand{kUnlimited, 4096.0};
  const auto share = arbitrate_classes(qos, d, 10096 * 1e6, nullptr);
  EXPECT_NEAR(share[0], 6000 * 1e6, kTol);
  EXPECT_NEAR(share[1], 4096 * 1e6, kTol);
}

// ---- NIC tree inside classes --------------------------------------------------------------------

TEST(ClassOracleTest, TreeAppliesInsideEachEtsClass) {
  QosPlan plan = two_leaf_plan(100 * kGbps);  // a:b = 3:1, both in TC0
  const uint32_t c_leaf = plan.tree.add_child(0, "c", true, 1);
  plan.flows.push_back(FlowPlan{});
  plan.flows[2].name = "fc";
  plan.flows[2].leaf = c_leaf;
  plan.flows[2].arb_class = 1;
  plan.nic_qos = ets_60_40();
  const std::vector<double> offered(3, kUnlimited);
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, {});
  EXPECT_NEAR(result.flows.flow_bps[0], 45 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[1], 15 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[2], 40 * kGbps, kTol);
  ASSERT_EQ(result.class_bps.size(), 8u);
  EXPECT_NEAR(result.class_bps[0], 60 * kGbps, kTol);
  EXPECT_NEAR(result.class_bps[1], 40 * kGbps, kTol);
  EXPECT_NEAR(result.flows.element_bps[0], 100 * kGbps, kTol);
}

TEST(ClassOracleTest, VlArbNotesReachTheResult) {
  QosPlan plan = two_leaf_plan(90 * kGbps);
  plan.nic_qos = vlarb({}, {{1, 32}, {2, 64}}, 0);
  plan.flows[0].arb_class = 1;
  plan.flows[1].arb_class = 2;
  const std::vector<double> offered(2, kUnlimited);
  const std::vector<double> packet(2, 4096.0);
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, packet);
  EXPECT_NEAR(result.flows.flow_bps[0], 45 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[1], 45 * kGbps, kTol);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "VLArb credit rule (low table): VL1:VL2 = 1:1 by packets, 1:2 by weights");
}

TEST(ClassOracleTest, HostsWithoutSwitchEachHaveTheirOwnLink) {
  QosPlan plan = two_leaf_plan(100 * kGbps);
  plan.hosts = 2;
  plan.flows[1].host = 1;
  const std::vector<double> offered(2, kUnlimited);
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, {});
  EXPECT_NEAR(result.flows.flow_bps[0], 100 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[1], 100 * kGbps, kTol);
  EXPECT_NEAR(result.class_bps[0], 200 * kGbps, kTol);
}

// ---- Fabric: hosts through one switch egress ---------------------------------------------------

// Host 0: flows a and b on equal leaves; host 1: flow c. One switch egress of 100 Gbit/s.
QosPlan incast_plan() {
  QosPlan plan;
  plan.tree = SchedTree::with_root();
  const uint32_t la = plan.tree.add_child(0, "a", true, 1);
  const uint32_t lb = plan.tree.add_child(0, "b", true, 1);
  plan.port_rate_bps = 100 * kGbps;
  plan.hosts = 2;
  plan.switched = true;
  plan.switch_rate_bps = 100 * kGbps;
  plan.flows.resize(3);
  plan.flows[0].name = "a";
  plan.flows[0].leaf = la;
  plan.flows[1].name = "b";
  plan.flows[1].leaf = lb;
  plan.flows[2].name = "c";
  plan.flows[2].leaf = la;
  plan.flows[2].host = 1;
  return plan;
}

TEST(ClassOracleTest, TwoHostIncastSplitsTheEgressByHost) {
  const QosPlan plan = incast_plan();
  const std::vector<double> offered(3, kUnlimited);
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, {});
  EXPECT_NEAR(result.flows.flow_bps[0], 25 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[1], 25 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[2], 50 * kGbps, kTol);
  ASSERT_EQ(result.class_bps.size(), 1u);
  EXPECT_NEAR(result.class_bps[0], 100 * kGbps, kTol);
  // Element totals over both hosts: leaf a carries a and c.
  EXPECT_NEAR(result.flows.element_bps[1], 75 * kGbps, kTol);
}

TEST(ClassOracleTest, BackPressureRedistributesInsideAHostsTree) {
  // a offers 10: host 0's 50 at the switch goes through its tree as 10 + 40, not 5 + 45.
  const QosPlan plan = incast_plan();
  const std::vector<double> offered = {10 * kGbps, kUnlimited, kUnlimited};
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, {});
  EXPECT_NEAR(result.flows.flow_bps[0], 10 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[1], 40 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[2], 50 * kGbps, kTol);
}

TEST(ClassOracleTest, BackPressureAcrossSwitchClassesFreesTheNic) {
  // Switch: VL1 strict over VL0. Host 0 sends a on VL1 and b on VL0; host 1 sends c (30) on VL1.
  // b is held at the switch, so host 0's NIC gives a all it can use: a 70, c 30, b 0.
  QosPlan plan = incast_plan();
  plan.switch_qos = vlarb({{1, 64}}, {{0, 64}}, 255);
  plan.flows[0].switch_arb_class = 1;
  plan.flows[1].switch_arb_class = 0;
  plan.flows[2].switch_arb_class = 1;
  const std::vector<double> offered = {kUnlimited, kUnlimited, 30 * kGbps};
  const std::vector<double> packet(3, 4096.0);
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, packet);
  EXPECT_NEAR(result.flows.flow_bps[0], 70 * kGbps, kTol);
  EXPECT_NEAR(result.flows.flow_bps[1], 0.0, kTol);
  EXPECT_NEAR(result.flows.flow_bps[2], 30 * kGbps, kTol);
  ASSERT_EQ(result.class_bps.size(), 15u);
  EXPECT_NEAR(result.class_bps[1], 100 * kGbps, kTol);
}

TEST(ClassOracleTest, SwitchNotesArePrefixed) {
  QosPlan plan = incast_plan();
  plan.switch_qos = vlarb({}, {{1, 32}, {2, 64}}, 0);
  plan.flows[0].switch_arb_class = 1;
  plan.flows[1].switch_arb_class = 1;
  plan.flows[2].switch_arb_class = 2;
  const std::vector<double> offered(3, kUnlimited);
  const std::vector<double> packet(3, 4096.0);
  const ClassOracleResult result = expected_rates_with_classes(plan, offered, packet);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(
      result.notes[0],
      "switch egress: VLArb credit rule (low table): VL1:VL2 = 1:1 by packets, 1:2 by weights");
  EXPECT_NEAR(result.flows.flow_bps[2], 50 * kGbps, kTol);
}

}  // namespace
}  // namespace qb::policy
