// The qos-policy.conf SL matcher: every rule kind, first-match order, rules before ULPs, ranges,
// and the default. Expected SLs are worked out by hand from OpenSM's documented semantics.
#include "qb/policies/opensm_policy_match.hpp"

#include <gtest/gtest.h>

#include <string>

namespace qb::policy {
namespace {

OpensmPolicy parse(const std::string& text) {
  auto policy = parse_opensm_policy(text, "qos-policy.conf");
  EXPECT_TRUE(policy.ok()) << (policy.ok() ? "" : policy.error().to_string());
  return policy.ok() ? std::move(policy).value() : OpensmPolicy{};
}

// Full syntax: groups by GUID list/range, node type, partition name and pkey; levels SL 0..6.
const std::string kFull = R"(
port-groups
  port-group
    name: Storage
    port-guid: 0x1000, 0x2000-0x20FF
    port-guid: 0x3000
  end-port-group
  port-group
    name: Compute
    port-guid: 0x5000-0x5FFF
  end-port-group
  port-group
    name: Switches
    node-type: SWITCH, SELF
  end-port-group
  port-group
    name: Part
    partition: Part1
    pkey: 0x8123
  end-port-group
  port-group
    name: ByName
    port-name: vs1 HCA-1/P1
  end-port-group
end-port-groups
qos-levels
  qos-level
    name: DEFAULT
    sl: 0
  end-qos-level
  qos-level
    name: ClassLevel
    sl: 1
  end-qos-level
  qos-level
    name: StorageLevel
    sl: 2
  end-qos-level
  qos-level
    name: BothLevel
    sl: 3
  end-qos-level
  qos-level
    name: PkeyLevel
    sl: 4
  end-qos-level
  qos-level
    name: SwitchLevel
    sl: 5
  end-qos-level
  qos-level
    name: PartLevel
    sl: 6
  end-qos-level
end-qos-levels
qos-match-rules
  qos-match-rule
    qos-class: 7-9,11
    qos-level-name: ClassLevel
  end-qos-match-rule
  qos-match-rule
    destination: storage
    service-id: 0x10000000000001, 0x10000000000008-0x10000000000FFF
    qos-level-name: StorageLevel
  end-qos-match-rule
  qos-match-rule
    source: Compute
    destination: Storage
    qos-level-name: bothlevel
  end-qos-match-rule
  qos-match-rule
    pkey: 0x0F00-0x0FFF
    qos-level-name: PkeyLevel
  end-qos-match-rule
  qos-match-rule
    source: Switches
    qos-level-name: SwitchLevel
  end-qos-match-rule
  qos-match-rule
    destination: Part, ByName
    qos-level-name: PartLevel
  end-qos-match-rule
end-qos-match-rules
qos-ulps
  default : 9
  any, service-id 0x42 : 13
end-qos-ulps
)";

TEST(OpensmPolicyMatch, ParserStoresRangesTheWayOpensmDoes) {
  const OpensmPolicy policy = parse(kFull);
  ASSERT_EQ(policy.port_groups.size(), 5u);
  const auto& storage = policy.port_groups[0];
  ASSERT_EQ(storage.port_guids.size(), 3u);
  EXPECT_EQ(storage.port_guids[1], (NumberRange{0x2000, 0x20FF}));
  EXPECT_EQ(policy.port_groups[2].node_types, kNodeTypeSwitch);
  EXPECT_TRUE(policy.port_groups[2].self);
  // The membership bit is dropped from pkeys, as OpenSM's parser does.
  ASSERT_EQ(policy.port_groups[3].pkeys.size(), 1u);
  EXPECT_EQ(policy.port_groups[3].pkeys[0], (NumberRange{0x0123, 0x0123}));
  ASSERT_EQ(policy.match_rules[0].qos_classes.size(), 2u);
  EXPECT_EQ(policy.match_rules[0].qos_classes[0], (NumberRange{7, 9}));
  EXPECT_EQ(policy.default_level_name, "DEFAULT");
}

TEST(OpensmPolicyMatch, QosClassRangeAndListNeedTheFieldInTheQuery) {
  const OpensmPolicy policy = parse(kFull);
  PathQuery query;
  query.qos_class = 8;
  EXPECT_EQ(match_sl(policy, query).sl, 1);
  query.qos_class = 11;
  EXPECT_EQ(match_sl(policy, query).sl, 1);
  query.qos_class = 10;  // between the range and the list: no rule, DEFAULT
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  EXPECT_EQ(match_sl(policy, PathQuery{}).sl, 0);
  EXPECT_EQ(match_sl(policy, PathQuery{}).rule, "default qos-level DEFAULT");
}

TEST(OpensmPolicyMatch, DestinationGroupAndServiceIdMustBothMatch) {
  const OpensmPolicy policy = parse(kFull);
  PathQuery query;
  query.destination_port_guid = 0x2010;  // in Storage's range (group named in other case)
  query.service_id = 0x10000000000009;
  const SlMatch hit = match_sl(policy, query);
  EXPECT_EQ(hit.sl, 2);
  EXPECT_EQ(hit.loc.line, 61u);
  EXPECT_EQ(hit.rule, "qos-match-rules[2] (line 61) -> qos-level StorageLevel");
  query.service_id = 0x10000000000002;  // between the listed id and the range
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  query.service_id.reset();  // the rule needs a service id
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  query.service_id = 0x10000000000001;
  query.destination_port_guid = 0x2100;  // just past the range
  EXPECT_EQ(match_sl(policy, query).sl, 0);
}

TEST(OpensmPolicyMatch, SourceAndDestinationGroupsNeedBothEnds) {
  const OpensmPolicy policy = parse(kFull);
  PathQuery query;
  query.source_port_guid = 0x5001;
  query.destination_port_guid = 0x3000;
  EXPECT_EQ(match_sl(policy, query).sl, 3);  // level named in another case
  query.destination_port_guid = 0x5002;      // destination not in Storage
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  query.source_port_guid = 0x1000;  // source not in Compute
  query.destination_port_guid = 0x1000;
  EXPECT_EQ(match_sl(policy, query).sl, 0);
}

TEST(OpensmPolicyMatch, PkeyComparesWithoutTheMembershipBit) {
  const OpensmPolicy policy = parse(kFull);
  PathQuery query;
  query.pkey = 0x8F80;  // full member of 0x0F80
  EXPECT_EQ(match_sl(policy, query).sl, 4);
  query.pkey = 0x0FFF;
  EXPECT_EQ(match_sl(policy, query).sl, 4);
  query.pkey = 0x1000;
  EXPECT_EQ(match_sl(policy, query).sl, 0);
}

TEST(OpensmPolicyMatch, NodeTypeSelfPartitionAndPkeyGroups) {
  const OpensmPolicy policy = parse(kFull);
  PathQuery query;
  query.source_port.node_type = kNodeTypeSwitch;
  EXPECT_EQ(match_sl(policy, query).sl, 5);
  query.source_port.node_type = kNodeTypeCa;
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  query.source_port.sm_port = true;  // SELF
  EXPECT_EQ(match_sl(policy, query).sl, 5);

  PathQuery part;
  part.destination_port.partition_names = {"Part1"};
  EXPECT_EQ(match_sl(policy, part).sl, 6);
  part.destination_port.partition_names = {"part1"};  // partition names are exact
  EXPECT_EQ(match_sl(policy, part).sl, 0);
  part.destination_port.partition_pkeys = {0x0123};  // group's 0x8123 without the bit
  EXPECT_EQ(match_sl(policy, part).sl, 6);
}

TEST(OpensmPolicyMatch, PortNameGroupsContainNoPort) {
  const OpensmPolicy policy = parse(kFull);
  ASSERT_EQ(policy.port_groups[4].port_names.size(), 1u);
  PathQuery query;
  query.destination_port_guid = 0x1;
  query.destination_port.node_type = kNodeTypeCa;
  EXPECT_EQ(match_sl(policy, query).sl, 0);
}

TEST(OpensmPolicyMatch, FirstMatchingRuleWinsAndRulesComeBeforeUlps) {
  const OpensmPolicy policy = parse(kFull);
  PathQuery query;
  query.qos_class = 7;      // rule 1
  query.pkey = 0x0F00;      // rule 4
  query.service_id = 0x42;  // ULP any, service-id
  EXPECT_EQ(match_sl(policy, query).sl, 1);
  query.qos_class.reset();
  EXPECT_EQ(match_sl(policy, query).sl, 4);
  query.pkey.reset();
  const SlMatch ulp = match_sl(policy, query);
  EXPECT_EQ(ulp.sl, 13);
  EXPECT_EQ(ulp.loc.line, 86u);
}

TEST(OpensmPolicyMatch, DefaultLevelWinsOverTheDefaultUlp) {
  const OpensmPolicy policy = parse(kFull);
  EXPECT_EQ(match_sl(policy, PathQuery{}).sl, 0);  // DEFAULT level 0, not `default : 9`
  const OpensmPolicy simple = parse("qos-ulps\n default : 9\nend-qos-ulps\n");
  EXPECT_EQ(match_sl(simple, PathQuery{}).sl, 9);
  EXPECT_EQ(match_sl(simple, PathQuery{}).loc.line, 0u);
}

// The simplified example of OpenSM's documentation (section 6) with distinct SLs (and the
// source-target GUID moved out of the target range so that rule can be reached).
const std::string kUlps = R"(qos-ulps
    default                       : 0
    sdp, port-num 30000           : 1
    sdp, port-num 10000-20000     : 2
    sdp                           : 3
    rds, port-num 5000            : 4
    rds                           : 5
    iser, port-num 900            : 6
    iser                          : 7
    ipoib, pkey 0x0001            : 8
    ipoib                         : 9
    any, service-id 0x6234        : 10
    any, pkey 0x0ABC              : 11
    srp, target-port-guid 0x1234  : 12
    any, target-port-guid 0x0ABC-0xFFFFF : 13
    any, source-port-guid 0x5678  : 14
    any, source-target-port-guid 0x9abcd00 : 15
end-qos-ulps
)";

uint8_t sl_for_service(const OpensmPolicy& policy, uint64_t service_id) {
  PathQuery query;
  query.service_id = service_id;
  return match_sl(policy, query).sl;
}

uint8_t sl_for_pkey(const OpensmPolicy& policy, uint16_t pkey) {
  PathQuery query;
  query.pkey = pkey;
  return match_sl(policy, query).sl;
}

TEST(OpensmPolicyMatch, SdpServiceIdsCarryTheTcpPort) {
  const OpensmPolicy policy = parse(kUlps);
  EXPECT_EQ(sl_for_service(policy, 0x10000 + 30000), 1);
  EXPECT_EQ(sl_for_service(policy, 0x10000 + 10000), 2);
  EXPECT_EQ(sl_for_service(policy, 0x10000 + 20000), 2);
  EXPECT_EQ(sl_for_service(policy, 0x10000 + 20001), 3);  // any other SDP port
  EXPECT_EQ(sl_for_service(policy, 0x1FFFF), 3);
  EXPECT_EQ(sl_for_service(policy, 0x20000), 0);  // not SDP: default
}

TEST(OpensmPolicyMatch, RdsAndIserDefaultPorts) {
  const OpensmPolicy policy = parse(kUlps);
  EXPECT_EQ(sl_for_service(policy, 0x1060000 + 5000), 4);
  EXPECT_EQ(sl_for_service(policy, 0x10648CA), 5);  // RDS default port 0x48CA
  EXPECT_EQ(sl_for_service(policy, 0x1060000 + 900), 6);
  EXPECT_EQ(sl_for_service(policy, 0x1060CBC), 7);  // iSER default port 0x0CBC
  EXPECT_EQ(sl_for_service(policy, 0x1060001), 0);  // the prefix alone is neither
  EXPECT_EQ(sl_for_service(policy, 0x6234), 10);
}

TEST(OpensmPolicyMatch, IpoibAndAnyByPkey) {
  const OpensmPolicy policy = parse(kUlps);
  EXPECT_EQ(sl_for_pkey(policy, 0x8001), 8);
  EXPECT_EQ(sl_for_pkey(policy, 0xFFFF), 9);  // default partition 0x7fff, full member
  EXPECT_EQ(sl_for_pkey(policy, 0x7FFF), 9);
  EXPECT_EQ(sl_for_pkey(policy, 0x0ABC), 11);
  EXPECT_EQ(sl_for_pkey(policy, 0x0002), 0);
}

TEST(OpensmPolicyMatch, PortGuidUlps) {
  const OpensmPolicy policy = parse(kUlps);
  PathQuery query;
  query.destination_port_guid = 0x1234;
  EXPECT_EQ(match_sl(policy, query).sl, 12);  // srp comes before the `any` target range
  query.destination_port_guid = 0xFFFFF;
  EXPECT_EQ(match_sl(policy, query).sl, 13);
  query.destination_port_guid = 0x100000;
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  query.source_port_guid = 0x5678;
  EXPECT_EQ(match_sl(policy, query).sl, 14);
  // source-target: OpenSM puts the generated group in both lists, so both ends must be in it.
  query.source_port_guid = 0x9abcd00;
  EXPECT_EQ(match_sl(policy, query).sl, 0);
  query.destination_port_guid = 0x9abcd00;
  EXPECT_EQ(match_sl(policy, query).sl, 15);
  // A destination in the earlier target range wins over the later source-target rule.
  query.destination_port_guid = 0x9abcd;
  EXPECT_EQ(match_sl(policy, query).sl, 13);
  query.destination_port_guid = 0x9abcd00;
  EXPECT_EQ(match_sl(policy, query).loc.line, 17u);
}

TEST(OpensmPolicyMatch, UlpServiceIds) {
  const OpensmPolicy policy = parse(kUlps);
  EXPECT_EQ(ulp_service_ids(policy.ulp_rules[3]), (std::vector<NumberRange>{{0x10000, 0x1FFFF}}));
  EXPECT_EQ(ulp_service_ids(policy.ulp_rules[2]),
            (std::vector<NumberRange>{{0x10000 + 10000, 0x10000 + 20000}}));
  EXPECT_TRUE(ulp_service_ids(policy.ulp_rules[8]).empty());  // ipoib: by pkey
}

TEST(OpensmPolicyMatch, ReversedRangesAndOctalNumbersReadAsOpensmReadsThem) {
  const OpensmPolicy policy = parse(
      "qos-ulps\n default : 0\n any, service-id 0x20-0x10 : 1\n any, pkey 010 : 2\n"
      "end-qos-ulps\n");
  ASSERT_EQ(policy.ulp_rules.size(), 3u);
  EXPECT_EQ(policy.ulp_rules[1].ranges[0], (NumberRange{0x10, 0x20}));
  EXPECT_EQ(sl_for_service(policy, 0x18), 1);
  EXPECT_EQ(sl_for_pkey(policy, 8), 2);  // strtoull base 0: a leading 0 is octal
}

TEST(OpensmPolicyMatch, BadListsAreSyntaxErrorsWithTheirColumn) {
  auto bad = parse_opensm_policy(
      "qos-ulps\n default : 0\n sdp, port-num 12, zz : 1\nend-qos-ulps\n", "p.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().loc.line, 3u);
  EXPECT_EQ(bad.error().loc.column, 20u);

  auto port = parse_opensm_policy(
      "qos-ulps\n default : 0\n sdp, port-num 70000 : 1\nend-qos-ulps\n", "p.conf");
  ASSERT_FALSE(port.ok());
  EXPECT_NE(port.error().message.find("port number"), std::string::npos);

  auto node = parse_opensm_policy(
      "port-groups\nport-group\nname: X\nnode-type: HOST\nend-port-group\nend-port-groups\n"
      "qos-ulps\ndefault : 0\nend-qos-ulps\n",
      "p.conf");
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.error().loc.line, 4u);

  auto no_sl = parse_opensm_policy(
      "qos-levels\nqos-level\nname: DEFAULT\nend-qos-level\n"
      "end-qos-levels\n",
      "p.conf");
  ASSERT_FALSE(no_sl.ok());
  EXPECT_EQ(no_sl.error().loc.line, 4u);

  auto port_name = parse_opensm_policy(
      "port-groups\nport-group\nname: X\nport-name: node/Q1\nend-port-group\nend-port-groups\n"
      "qos-ulps\ndefault : 0\nend-qos-ulps\n",
      "p.conf");
  ASSERT_FALSE(port_name.ok());
  EXPECT_NE(port_name.error().message.find("illegal port name"), std::string::npos);
}

}  // namespace
}  // namespace qb::policy
