// Per-port QoS in a fabric (issue 29 part 3): which PortQos each channel gets from the suite's
// defaults and the [[topology.switch_qos]] overrides, how a flow's marking maps to a class port
// by port, and hand-computed expectations where one switch arbitrates differently.
#include "qb/fabric/channel_qos.hpp"

#include <gtest/gtest.h>

#include "qb/fabric/expectation.hpp"
#include "qb/fabric/generators.hpp"
#include "qb/fabric/routing.hpp"
#include "qb/policies/opensm_conf.hpp"

namespace qb::fabric {
namespace {

constexpr double G = 1e9;

policy::PortQos strict_eth() {
  policy::PortQos qos;
  qos.kind = policy::PortQos::Kind::ets;
  qos.eth = policy::default_eth_port_qos();
  for (int tc = 0; tc < 8; ++tc) {
    qos.eth.tsa[tc] = policy::TcSelect::strict;
    qos.eth.prio_tc[tc] = static_cast<uint8_t>(tc);
  }
  return qos;
}

policy::PortQos opensm_ib(policy::IbPortType type) {
  policy::PortQos qos;
  qos.kind = policy::PortQos::Kind::vlarb;
  qos.ib.op_vls = 4;
  auto conf = policy::parse_opensm_conf("", "empty.conf");
  EXPECT_TRUE(conf);
  qos.ib.tables = policy::program_port_qos(*conf, type, policy::IbPortCaps{});
  return qos;
}

Topology two_by_two() {
  LeafSpineSpec spec;  // 2 leaves, 2 spines, 2 hosts per leaf
  auto t = leaf_spine(spec, GeneratedAt{"topology", {}});
  EXPECT_TRUE(t) << t.error().to_string();
  return std::move(*t);
}

TEST(ChannelQos, NameMatchesLiteralAndStarPatterns) {
  EXPECT_TRUE(name_matches("leaf0", "leaf0"));
  EXPECT_FALSE(name_matches("leaf0", "leaf01"));
  EXPECT_TRUE(name_matches("leaf*", "leaf17"));
  EXPECT_TRUE(name_matches("leaf*", "leaf"));
  EXPECT_FALSE(name_matches("leaf*", "spine0"));
  EXPECT_TRUE(name_matches("*", "S-0002c90000000000"));
  EXPECT_TRUE(name_matches("*1*", "spine10"));
  EXPECT_TRUE(name_matches("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(name_matches("a*b*c", "aXbYbZ"));
  EXPECT_FALSE(name_matches("", "x"));
}

TEST(ChannelQos, HostsTakeTheCaSetSwitchesTheirsAndOverridesWinInOrder) {
  const Topology t = two_by_two();
  FabricQosSpec spec;
  spec.ca = spec.swe = strict_eth();
  spec.ca.eth.prio_tc[1] = 5;  // tell the NIC set from the switch set
  SwitchQosOverride spines;
  spines.switches = {"spine*"};
  spines.eth = strict_eth().eth;
  spines.eth->prio_tc[3] = 6;
  SwitchQosOverride one_port;
  one_port.switches = {"spine1"};
  one_port.ports = {2};
  one_port.eth = strict_eth().eth;
  one_port.eth->prio_tc[3] = 7;
  spec.overrides = {spines, one_port};
  auto qos = channel_qos(t, spec);
  ASSERT_TRUE(qos) << qos.error().to_string();
  ASSERT_EQ(qos->size(), t.channel_count());
  int hosts = 0, leaves = 0, spine_ports = 0, last_wins = 0;
  for (uint32_t c = 0; c < t.channel_count(); ++c) {
    const Channel ch = t.channel(c);
    const Node& from = t.nodes()[ch.from];
    const policy::EthPortQos& eth = (*qos)[c].eth;
    if (from.kind == NodeKind::host) {
      ++hosts;
      EXPECT_EQ(eth.prio_tc[1], 5) << t.channel_name(c);
      EXPECT_EQ(port_class((*qos)[c], 1, 0), 5);
    } else if (from.name.starts_with("leaf")) {
      ++leaves;
      EXPECT_EQ(eth.prio_tc[3], 3) << t.channel_name(c);
      EXPECT_EQ(eth.prio_tc[1], 1);
    } else if (from.name == "spine1" && ch.from_port == 2) {
      ++last_wins;
      EXPECT_EQ(port_class((*qos)[c], 3, 0), 7) << t.channel_name(c);
    } else {
      ++spine_ports;
      EXPECT_EQ(port_class((*qos)[c], 3, 0), 6) << t.channel_name(c);
    }
  }
  EXPECT_EQ(hosts, 4);
  EXPECT_EQ(leaves, 8);  // 2 hosts + 2 uplinks each
  EXPECT_EQ(spine_ports, 3);
  EXPECT_EQ(last_wins, 1);
}

TEST(ChannelQos, PortClassFollowsTrustAndSl2vl) {
  policy::PortQos eth = strict_eth();
  eth.eth.trust = policy::EthTrust::dscp;
  eth.eth.dscp2prio[46] = 5;
  eth.eth.prio_tc[5] = 2;
  EXPECT_EQ(port_class(eth, 0, 46), 2);
  EXPECT_EQ(port_class(eth, 5, 0), 0);  // trust dscp: the PCP is not read
  eth.eth.trust = policy::EthTrust::pcp;
  EXPECT_EQ(port_class(eth, 5, 0), 2);
  policy::PortQos ib = opensm_ib(policy::IbPortType::swe);
  ib.ib.tables.sl2vl[4] = policy::kDropVl;
  EXPECT_EQ(port_class(ib, 9, 0), 1);  // OpenSM's default SL2VL: SL mod 8
  EXPECT_EQ(port_class(ib, 4, 0), policy::kDropVl);
  EXPECT_EQ(port_class(policy::PortQos{}, 7, 63), 0);
}

TEST(ChannelQos, BadOverridesAreRefusedAtTheirEntry) {
  const Topology t = two_by_two();
  FabricQosSpec spec;
  spec.ca = spec.swe = strict_eth();
  SwitchQosOverride entry;
  entry.where = "topology.switch_qos[0]";
  entry.loc = SourceLoc{"suite.toml", 12, 1};
  entry.eth = strict_eth().eth;
  auto refused = [&](const SwitchQosOverride& e, std::string_view words) {
    spec.overrides = {e};
    auto qos = channel_qos(t, spec);
    ASSERT_FALSE(qos);
    EXPECT_EQ(qos.error().code, Errc::invalid_config);
    EXPECT_EQ(qos.error().where, "topology.switch_qos[0]");
    EXPECT_EQ(qos.error().loc.line, 12u);
    EXPECT_NE(qos.error().message.find(words), std::string::npos) << qos.error().message;
  };
  SwitchQosOverride e = entry;
  e.switches = {"core*"};
  refused(e, "matches no switch");
  e.switches = {"h0"};
  refused(e, "is a host");
  e.switches = {"leaf0"};
  e.ports = {9};
  refused(e, "no connected port 9");
  // Ethernet keys on an IB fabric, IB tables on an Ethernet one.
  spec.ca = opensm_ib(policy::IbPortType::ca);
  spec.swe = opensm_ib(policy::IbPortType::swe);
  e = entry;
  e.switches = {"leaf0"};
  refused(e, "without [eth]");
  e.eth.reset();
  e.ib.vlarb_low = std::vector<policy::VlArbEntry>{{9, 4}};
  refused(e, "beyond the port's operational VLs");
  e.ib.vlarb_low.reset();
  std::array<uint8_t, 16> sl2vl{};
  sl2vl[3] = policy::kDropVl;  // VL15 is a drop, not a VL beyond the port's
  e.ib.sl2vl = sl2vl;
  spec.overrides = {e};
  EXPECT_TRUE(channel_qos(t, spec));
  spec.ca = spec.swe = strict_eth();
  refused(e, "without [ib]");
}

// h0, h1 on s0; s0 -> s1 at 60G; h2 on s1 (100G host links). Flow A (h0, PCP 3) and B (h1,
// PCP 2), both saturating, both strict. With A's class above B's everywhere, A takes the 40G
// of s1 -> h2 and B gets nothing; with s1 swapping priorities 2 and 3, B takes the 40G there
// and A gets nothing: x_A = min(60, 40 - x_B), x_B = min(60 - x_A, 40) has the one solution
// (0, 40).
TEST(ChannelQos, ASwitchThatSwapsPrioritiesHandsTheBottleneckToTheOtherFlow) {
  TopologyBuilder b;
  for (int h = 0; h < 3; ++h) ASSERT_TRUE(b.add_host("h" + std::to_string(h), "h", {}));
  ASSERT_TRUE(b.add_switch("s0", 0, "s", {}));
  ASSERT_TRUE(b.add_switch("s1", 0, "s", {}));
  ASSERT_TRUE(b.add_link(0, 0, 3, 0, 100 * G, 0, "l", {}));
  ASSERT_TRUE(b.add_link(1, 0, 3, 0, 100 * G, 0, "l", {}));
  ASSERT_TRUE(b.add_link(3, 0, 4, 0, 60 * G, 0, "l", {}));
  ASSERT_TRUE(b.add_link(2, 0, 4, 0, 40 * G, 0, "l", {}));
  auto t = std::move(b).finish();
  ASSERT_TRUE(t) << t.error().to_string();
  const std::vector<FlowEndpoints> ends{{0, 2}, {1, 2}};
  auto routes = route_flows(*t, ends, RoutingSpec{});
  ASSERT_TRUE(routes);
  std::vector<FabricFlow> flows(2);
  flows[0].sl = 3;
  flows[1].sl = 2;
  FabricQosSpec spec;
  spec.ca = spec.swe = strict_eth();
  PortPolicy policy;
  policy.channel_qos = *channel_qos(*t, spec);
  auto rates = expected_fabric_rates(*t, flows, *routes, policy);
  ASSERT_TRUE(rates) << rates.error().to_string();
  EXPECT_DOUBLE_EQ(rates->flow_bps[0], 40 * G);
  EXPECT_DOUBLE_EQ(rates->flow_bps[1], 0.0);

  SwitchQosOverride swap;
  swap.switches = {"s1"};
  swap.eth = strict_eth().eth;
  swap.eth->prio_tc[2] = 3;
  swap.eth->prio_tc[3] = 2;
  spec.overrides = {swap};
  policy.channel_qos = *channel_qos(*t, spec);
  rates = expected_fabric_rates(*t, flows, *routes, policy);
  ASSERT_TRUE(rates) << rates.error().to_string();
  EXPECT_NEAR(rates->flow_bps[0], 0.0, 1e-3);
  EXPECT_NEAR(rates->flow_bps[1], 40 * G, 40 * G * 1e-9);
  EXPECT_EQ(rates->bottleneck[1], t->host_downlink(2));
  // A channel_qos of the wrong size is refused.
  policy.channel_qos.pop_back();
  EXPECT_FALSE(expected_fabric_rates(*t, flows, *routes, policy));
}

// IB, OpenSM's default tables (SL n -> VL n mod 8, VL1..7 weight 4 in the low table): SL1 and
// SL2 share the bottleneck 1:1. A switch whose low table weighs VL2 three times VL1 (in whole
// packets of 66 credits) splits it 1:3; one whose SL2VL sends SL2 to VL15 drops that flow, and
// SL1 takes the link.
TEST(ChannelQos, IbSwitchTablesPerPortSetTheSharesAndDrops) {
  TopologyBuilder b;
  for (int h = 0; h < 3; ++h) ASSERT_TRUE(b.add_host("h" + std::to_string(h), "h", {}));
  ASSERT_TRUE(b.add_switch("s0", 0, "s", {}));
  ASSERT_TRUE(b.add_switch("s1", 0, "s", {}));
  ASSERT_TRUE(b.add_link(0, 0, 3, 0, 100 * G, 0, "l", {}));
  ASSERT_TRUE(b.add_link(1, 0, 3, 0, 100 * G, 0, "l", {}));
  ASSERT_TRUE(b.add_link(3, 0, 4, 0, 50 * G, 0, "l", {}));
  ASSERT_TRUE(b.add_link(2, 0, 4, 0, 100 * G, 0, "l", {}));
  auto t = std::move(b).finish();
  ASSERT_TRUE(t);
  auto routes = route_flows(*t, std::vector<FlowEndpoints>{{0, 2}, {1, 2}}, RoutingSpec{});
  ASSERT_TRUE(routes);
  std::vector<FabricFlow> flows(2);
  flows[0].sl = 1;
  flows[1].sl = 2;
  for (auto& f : flows) f.packet_wire_bytes = 66 * 64;
  FabricQosSpec spec;
  spec.ca = opensm_ib(policy::IbPortType::ca);
  spec.swe = opensm_ib(policy::IbPortType::swe);
  PortPolicy policy;
  policy.channel_qos = *channel_qos(*t, spec);
  auto rates = expected_fabric_rates(*t, flows, *routes, policy);
  ASSERT_TRUE(rates) << rates.error().to_string();
  EXPECT_DOUBLE_EQ(rates->flow_bps[0], 25 * G);
  EXPECT_DOUBLE_EQ(rates->flow_bps[1], 25 * G);

  SwitchQosOverride weights;
  weights.switches = {"s0"};
  weights.ib.vlarb_low = std::vector<policy::VlArbEntry>{{1, 66}, {2, 198}};
  spec.overrides = {weights};
  policy.channel_qos = *channel_qos(*t, spec);
  rates = expected_fabric_rates(*t, flows, *routes, policy);
  ASSERT_TRUE(rates);
  EXPECT_NEAR(rates->flow_bps[0], 12.5 * G, 1e-9 * G);
  EXPECT_NEAR(rates->flow_bps[1], 37.5 * G, 1e-9 * G);

  SwitchQosOverride drop;
  drop.switches = {"s1"};
  std::array<uint8_t, 16> sl2vl = spec.swe.ib.tables.sl2vl;
  sl2vl[2] = policy::kDropVl;
  drop.ib.sl2vl = sl2vl;
  spec.overrides = {weights, drop};
  policy.channel_qos = *channel_qos(*t, spec);
  rates = expected_fabric_rates(*t, flows, *routes, policy);
  ASSERT_TRUE(rates);
  EXPECT_DOUBLE_EQ(rates->flow_bps[0], 50 * G);
  EXPECT_EQ(rates->flow_bps[1], 0.0);
}

}  // namespace
}  // namespace qb::fabric
