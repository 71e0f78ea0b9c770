// qos-policy.conf structure: OpenSM's documented examples parse; AC10-AC13 and syntax errors
// carry line:col.
#include "qb/policies/opensm_policy.hpp"

#include <gtest/gtest.h>

namespace qb::policy {
namespace {

const char* kFullExample = R"(#
port-groups
    port-group # using port GUIDs
        name: Storage
        use: SRP Targets
        port-guid: 0x10000000000001, 0x10000000000005-0x1000000000FFFA
        port-guid: 0x1000000000FFFF
    end-port-group
    port-group
        name: Virtual Servers
        port-name: vs1 HCA-1/P1, vs2 HCA-1/P1
    end-port-group
end-port-groups
qos-setup
    # parsed and ignored
end-qos-setup
qos-levels
    qos-level
        name: DEFAULT
        use: default QoS Level
        sl: 0
    end-qos-level
    qos-level
        name: WholeSet
        sl: 1
        mtu-limit: 4
        rate-limit: 5
        pkey: 0x1234
        packet-life: 8
    end-qos-level
end-qos-levels
qos-match-rules
    qos-match-rule
        use: by QoS class
        qos-class: 7-9,11
        qos-level-name: WholeSet
    end-qos-match-rule
    qos-match-rule
        use: match by all parameters
        qos-class: 7-9,11
        source: Virtual Servers
        destination: Storage
        service-id: 0x0000000000010000-0x000000000001FFFF
        pkey: 0x0F00-0x0FFF
        qos-level-name: WholeSet
    end-qos-match-rule
end-qos-match-rules
)";

const char* kSimplifiedExample = R"(qos-ulps
    default                       : 0 # default SL
    sdp, port-num 30000           : 0
    sdp, port-num 10000-20000     : 0
    sdp                           : 1
    rds                           : 2
    iser, port-num 900            : 0
    iser                          : 3
    ipoib, pkey 0x0001            : 0
    ipoib                         : 4
    any, service-id 0x6234        : 6
    any, pkey 0x0ABC              : 6
    srp, target-port-guid 0x1234  : 5
    any, target-port-guid 0x0ABC-0xFFFFF : 6
    any, source-port-guid 0x5678  : 7
	any, source-target-port-guid 0x9abcd : 8
end-qos-ulps
)";

TEST(OpensmPolicy, FullSyntaxDocumentExampleParses) {
  auto policy = parse_opensm_policy(kFullExample, "qos-policy.conf");
  ASSERT_TRUE(policy.ok()) << policy.error().to_string();
  ASSERT_EQ(policy->port_groups.size(), 2u);
  EXPECT_EQ(policy->port_groups[1].name, "Virtual Servers");
  ASSERT_EQ(policy->qos_levels.size(), 2u);
  EXPECT_EQ(policy->qos_levels[1].sl, 1);
  ASSERT_EQ(policy->match_rules.size(), 2u);
  EXPECT_EQ(policy->match_rules[1].source_groups, std::vector<std::string>{"Virtual Servers"});
  EXPECT_EQ(policy->match_rules[1].destination_groups, std::vector<std::string>{"Storage"});
  EXPECT_EQ(policy->default_sl, 0);
}

TEST(OpensmPolicy, SimplifiedSyntaxDocumentExampleParses) {
  auto policy = parse_opensm_policy(kSimplifiedExample, "p.conf");
  ASSERT_TRUE(policy.ok()) << policy.error().to_string();
  ASSERT_EQ(policy->ulp_rules.size(), 15u);
  EXPECT_EQ(policy->ulp_rules[1].ulp, "sdp");
  EXPECT_EQ(policy->ulp_rules[1].criterion, "port-num");
  EXPECT_EQ(policy->ulp_rules[1].values, "30000");
  EXPECT_EQ(policy->ulp_rules[14].criterion, "source-target-port-guid");
  EXPECT_EQ(policy->ulp_rules[14].sl, 8);
  EXPECT_EQ(policy->default_sl, 0);
  auto shortest = parse_opensm_policy("qos-ulps\n  default : 3\nend-qos-ulps\n", "p.conf");
  ASSERT_TRUE(shortest.ok());
  EXPECT_EQ(shortest->default_sl, 3);
}

TEST(OpensmPolicy, MissingDefaultLevelIsAc10AtTheLevelsSection) {
  auto policy = parse_opensm_policy(
      "# no default\n\n  qos-levels\n    qos-level\n      name: Fast\n      sl: 1\n"
      "    end-qos-level\n  end-qos-levels\n",
      "p.conf");
  ASSERT_FALSE(policy.ok());
  EXPECT_EQ(policy.error().code, Errc::invalid_config);
  EXPECT_NE(policy.error().message.find("AC10"), std::string::npos);
  EXPECT_EQ(policy.error().loc.line, 3u);
  EXPECT_EQ(policy.error().loc.column, 3u);

  auto ulps = parse_opensm_policy("qos-ulps\n  sdp : 1\nend-qos-ulps\n", "p.conf");
  ASSERT_FALSE(ulps.ok());
  EXPECT_NE(ulps.error().message.find("AC10"), std::string::npos);
  EXPECT_EQ(ulps.error().loc.line, 1u);

  // A level named "default" in any case satisfies OpenSM.
  EXPECT_TRUE(
      parse_opensm_policy(
          "qos-levels\nqos-level\nname: Default\nsl: 2\nend-qos-level\nend-qos-levels\n", "p.conf")
          .ok());
}

TEST(OpensmPolicy, UnknownLevelAndPortGroupsAreAc11ToAc13) {
  const std::string levels =
      "qos-levels\nqos-level\nname: DEFAULT\nsl: 0\nend-qos-level\nend-qos-levels\n";  // 6 lines
  auto ac11 = parse_opensm_policy(
      levels +
          "qos-match-rules\nqos-match-rule\n  qos-level-name: Nope\nend-qos-match-rule\n"
          "end-qos-match-rules\n",
      "p.conf");
  ASSERT_FALSE(ac11.ok());
  EXPECT_NE(ac11.error().message.find("AC11"), std::string::npos);
  EXPECT_EQ(ac11.error().loc.line, 9u);
  EXPECT_EQ(ac11.error().loc.column, 19u);

  auto ac12 = parse_opensm_policy(levels +
                                      "qos-match-rules\nqos-match-rule\nsource: Ghost\n"
                                      "qos-level-name: DEFAULT\nend-qos-match-rule\n"
                                      "end-qos-match-rules\n",
                                  "p.conf");
  ASSERT_FALSE(ac12.ok());
  EXPECT_NE(ac12.error().message.find("AC12"), std::string::npos);
  EXPECT_EQ(ac12.error().loc.line, 9u);

  auto ac13 = parse_opensm_policy(levels +
                                      "qos-match-rules\nqos-match-rule\ndestination: Ghost\n"
                                      "qos-level-name: DEFAULT\nend-qos-match-rule\n"
                                      "end-qos-match-rules\n",
                                  "p.conf");
  ASSERT_FALSE(ac13.ok());
  EXPECT_NE(ac13.error().message.find("AC13"), std::string::npos);
}

TEST(OpensmPolicy, SyntaxErrorsCarryLineAndColumn) {
  auto bad_keyword = parse_opensm_policy("qos-levels\n   bogus-level\nend-qos-levels\n", "p.conf");
  ASSERT_FALSE(bad_keyword.ok());
  EXPECT_EQ(bad_keyword.error().loc.line, 2u);
  EXPECT_EQ(bad_keyword.error().loc.column, 4u);

  auto bad_sl = parse_opensm_policy("qos-ulps\n  default : 16\nend-qos-ulps\n", "p.conf");
  ASSERT_FALSE(bad_sl.ok());
  EXPECT_NE(bad_sl.error().message.find("illegal SL"), std::string::npos);
  EXPECT_EQ(bad_sl.error().loc.line, 2u);
  EXPECT_EQ(bad_sl.error().loc.column, 13u);

  auto unclosed = parse_opensm_policy("qos-ulps\n  default : 1\n", "p.conf");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.error().message.find("end-qos-ulps"), std::string::npos);

  auto bad_criterion =
      parse_opensm_policy("qos-ulps\ndefault:0\nsdp, pkey 1 : 2\nend-qos-ulps\n", "p.conf");
  ASSERT_FALSE(bad_criterion.ok());
  EXPECT_EQ(bad_criterion.error().loc.line, 3u);
}

}  // namespace
}  // namespace qb::policy
