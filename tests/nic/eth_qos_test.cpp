// The port's QoS through DCB netlink: the kernel's answer decoded (fixtures in dcbnl_ieee_fill's
// layout with mlx5's values, tests/nic/fixtures/make_dcb_fixtures.py), compared with a suite's
// [eth], programmed and put back through a port that takes settings as mlx5 does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fake_dcb_port.hpp"
#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/eth_qos_check.hpp"
#include "qb/nic/eth_qos_session.hpp"
#include "qb/nic/permissions.hpp"
#include "qb/nic/recorded.hpp"
#include "qb/policies/port_qos.hpp"

namespace qb::nic {
namespace {

const std::string kFixtures = std::string(QB_SOURCE_DIR) + "/tests/nic/fixtures";

EthQosState fixture(const std::string& name) {
  std::ifstream in(kFixtures + "/" + name + "/dcb/ens1f0np0.hex");
  std::stringstream text;
  text << in.rdbuf();
  const auto bytes = parse_hex(text.str());
  EXPECT_TRUE(bytes.has_value());
  auto state = decode_ieee_get_reply(*bytes, "ens1f0np0");
  EXPECT_TRUE(state.ok()) << state.error().message;
  return *state;
}

// configs/roce_ets.toml's [eth].
policy::EthPortQos roce_ets_suite() {
  policy::EthPortQos q = policy::default_eth_port_qos();
  q.trust = policy::EthTrust::dscp;
  for (uint8_t i = 0; i < 8; ++i) q.prio_tc[i] = i;
  q.tsa.fill(policy::TcSelect::ets);
  q.tsa[5] = policy::TcSelect::strict;
  q.ets_percent = {40, 60, 0, 0, 0, 0, 0, 0};
  q.tc_max_rate_bps[5] = policy::hw_tc_max_rate_bps(10'000'000);
  return q;
}

const std::vector<uint8_t> kRoceEtsDscps = {46, 0, 10};

TEST(DcbNetlink, GetRequestHasTheKernelsLayout) {
  const auto bytes = encode_ieee_get("ens1f0np0", 7);
  nlmsghdr header{};
  std::memcpy(&header, bytes.data(), sizeof header);
  EXPECT_EQ(header.nlmsg_len, bytes.size());
  EXPECT_EQ(header.nlmsg_type, RTM_GETDCB);
  EXPECT_EQ(header.nlmsg_flags, NLM_F_REQUEST);
  EXPECT_EQ(header.nlmsg_seq, 7U);
  EXPECT_EQ(bytes[NLMSG_HDRLEN + 1], DCB_CMD_IEEE_GET);
  // DCB_ATTR_IFNAME with the NUL: 4 + 10 bytes, padded to 16.
  EXPECT_EQ(bytes.size(), NLMSG_HDRLEN + sizeof(dcbmsg) + 16);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + NLMSG_HDRLEN + 8)),
            "ens1f0np0");
}

TEST(DcbNetlink, DecodesAConnectXAtTheDriversDefaults) {
  const EthQosState s = fixture("pcp_defaults");
  ASSERT_TRUE(s.ets && s.maxrate && s.pfc);
  EXPECT_EQ(s.trust(), policy::EthTrust::pcp);
  EXPECT_EQ(s.ets->ets_cap, 8);
  EXPECT_EQ(s.ets->prio_tc[0], 1);
  EXPECT_EQ(s.ets->prio_tc[1], 0);
  EXPECT_EQ(s.ets->tc_tsa[4], IEEE_8021QAZ_TSA_VENDOR);
  EXPECT_EQ(s.pfc_enabled(), 0);
  EXPECT_TRUE(s.apps.empty());
  // mlx5's defaults are the suite's defaults: a suite with a bare [eth] matches.
  EXPECT_TRUE(compare_eth_qos(policy::default_eth_port_qos(), {}, s).empty());
}

TEST(DcbNetlink, DecodesADscpTrustPortWithEtsCapsAndPfc) {
  const EthQosState s = fixture("roce_ets");
  EXPECT_EQ(s.trust(), policy::EthTrust::dscp);
  EXPECT_EQ(s.apps.size(), 64U);
  EXPECT_EQ(s.dscp_priority(46), 5);
  EXPECT_EQ(s.maxrate->tc_maxrate[5], 10'000'000U);
  EXPECT_EQ(s.pfc_enabled(), 1 << 3);
  EXPECT_TRUE(compare_eth_qos(roce_ets_suite(), kRoceEtsDscps, s).empty());
}

TEST(DcbNetlink, ErrorsAreNamed) {
  auto no_dcb = decode_ieee_get_reply(test::error_reply(1, EOPNOTSUPP), "eth0");
  ASSERT_FALSE(no_dcb.ok());
  EXPECT_NE(no_dcb.error().message.find("no DCB support"), std::string::npos);
  auto denied = decode_ieee_set_reply(test::error_reply(1, EPERM), "eth0");
  ASSERT_FALSE(denied.ok());
  EXPECT_NE(denied.error().message.find("CAP_NET_ADMIN"), std::string::npos);
  auto refused = decode_ieee_set_reply(test::set_reply(1, -EINVAL), "eth0");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("Invalid argument"), std::string::npos);
  EXPECT_TRUE(decode_ieee_set_reply(test::set_reply(1, 0), "eth0").ok());
  const std::vector<uint8_t> truncated = {1, 2, 3};
  EXPECT_EQ(decode_ieee_get_reply(truncated, "eth0").error().code, Errc::io);
}

TEST(EthQosCheck, APortInPcpTrustFailsADscpSuiteNamingEveryKey) {
  const auto mismatches = compare_eth_qos(roce_ets_suite(), kRoceEtsDscps, fixture("pcp_defaults"));
  std::vector<std::string> keys;
  for (const auto& m : mismatches) keys.push_back(m.key);
  // trust, the three DSCPs the flows mark (no APP entry), prio_tc, tsa, ets, the TC5 cap.
  EXPECT_EQ(keys,
            (std::vector<std::string>{"eth.trust", "eth.dscp2prio.\"0\"", "eth.dscp2prio.\"10\"",
                                      "eth.dscp2prio.\"46\"", "eth.prio_tc", "eth.tsa", "eth.ets",
                                      "eth.tc_max_rate"}));
  EXPECT_EQ(mismatches[0].suite, "\"dscp\"");
  EXPECT_NE(mismatches[0].nic.find("\"pcp\""), std::string::npos);
  EXPECT_EQ(mismatches[4].nic, "[1, 0, 2, 3, 4, 5, 6, 7]");
}

TEST(EthQosCheck, OneDifferenceIsFoundAlone) {
  EthQosState s = fixture("roce_ets");
  s.apps[46].priority = 3;  // DSCP 46 lands in priority 3, not the strict TC's 5
  auto m = compare_eth_qos(roce_ets_suite(), kRoceEtsDscps, s);
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(m[0].key, "eth.dscp2prio.\"46\"");
  EXPECT_EQ(m[0].nic, "3");
  s = fixture("roce_ets");
  s.maxrate->tc_maxrate[5] = 5'000'000;
  m = compare_eth_qos(roce_ets_suite(), kRoceEtsDscps, s);
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(m[0].key, "eth.tc_max_rate");
  // PFC only when the suite says: the fixture has PFC on 3.
  policy::EthPortQos suite = roce_ets_suite();
  suite.pfc_given = true;
  suite.pfc_enabled = 1 << 4;
  m = compare_eth_qos(suite, kRoceEtsDscps, fixture("roce_ets"));
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(m[0].key, "eth.pfc");
  EXPECT_EQ(m[0].nic, "[3]");
}

TEST(EthQosSession, CheckStopsWithTheKeysTheNicsValuesAndTheFix) {
  const test::TempStateDir state_dir;
  test::FakeDcbPort port(fixture("pcp_defaults"));
  EthQosTarget target{"ens1f0np0", "mlx5_0 port 1", roce_ets_suite(), kRoceEtsDscps,
                      "driver.verbs.nic_qos"};
  auto session = EthQosSession::begin(port, "/nonexistent", target, QosMode::check, true);
  ASSERT_FALSE(session.ok());
  const Error& e = session.error();
  EXPECT_EQ(e.code, Errc::unavailable);  // exit 3
  EXPECT_EQ(e.where, "eth.trust");
  EXPECT_NE(e.message.find("eth.trust: the suite says \"dscp\", the NIC has \"pcp\""),
            std::string::npos)
      << e.message;
  EXPECT_NE(e.message.find("dcb ets set dev ens1f0np0 prio-tc 0:0 1:1"), std::string::npos);
  EXPECT_NE(e.message.find("nic_qos=apply"), std::string::npos);
  // Nothing was written.
  EXPECT_EQ(port.cmds, (std::vector<uint8_t>{DCB_CMD_IEEE_GET}));
}

TEST(EthQosSession, ApplyProgramsTheSuiteAndRestoreRestoresThePort) {
  const test::TempStateDir state_dir;
  const EthQosState before = fixture("pcp_defaults");
  test::FakeDcbPort port(before);
  EthQosTarget target{"ens1f0np0", "mlx5_0 port 1", roce_ets_suite(), kRoceEtsDscps,
                      "driver.verbs.nic_qos"};
  {
    auto session = EthQosSession::begin(port, "/nonexistent", target, QosMode::apply, true);
    ASSERT_TRUE(session.ok()) << session.error().message;
    EXPECT_TRUE((*session)->programmed());
    EXPECT_TRUE(compare_eth_qos(target.suite, kRoceEtsDscps, port.state_).empty());
    EXPECT_NE((*session)->note().find("dcb ets set dev ens1f0np0 prio-tc 0:1 1:0"),
              std::string::npos);
    ASSERT_TRUE((*session)->restore().ok());
  }
  EXPECT_TRUE(state_differences(before, port.state_).empty());
  EXPECT_EQ(port.state_.trust(), policy::EthTrust::pcp);
}

TEST(EthQosSession, TheDestructorRestoresOnAnErrorPath) {
  const test::TempStateDir state_dir;
  // An exception (or an error return) after the program: the session's owner unwinds.
  const EthQosState before = fixture("roce_ets");
  test::FakeDcbPort port(before);
  policy::EthPortQos suite = policy::default_eth_port_qos();  // PCP trust over a DSCP port
  EthQosTarget target{"ens1f0np0", "mlx5_0 port 1", suite, {0}, "driver.verbs.nic_qos"};
  try {
    auto session = EthQosSession::begin(port, "/nonexistent", target, QosMode::apply, true);
    ASSERT_TRUE(session.ok()) << session.error().message;
    EXPECT_EQ(port.state_.trust(), policy::EthTrust::pcp);  // every DSCP entry deleted
    throw std::runtime_error("half way");
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(state_differences(before, port.state_).empty());
  EXPECT_EQ(port.state_.apps.size(), 64U);
}

TEST(EthQosSession, ApplyWithoutCapNetAdminStopsBeforeAnyWrite) {
  const test::TempStateDir state_dir;
  test::FakeDcbPort port(fixture("pcp_defaults"));
  EthQosTarget target{"ens1f0np0", "mlx5_0 port 1", roce_ets_suite(), kRoceEtsDscps,
                      "driver.verbs.nic_qos"};
  auto session = EthQosSession::begin(port, "/nonexistent", target, QosMode::apply, false);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.error().code, Errc::unavailable);
  EXPECT_NE(session.error().message.find("CAP_NET_ADMIN"), std::string::npos);
  EXPECT_NE(session.error().message.find("setcap cap_net_admin+ep"), std::string::npos);
  EXPECT_EQ(port.cmds, (std::vector<uint8_t>{DCB_CMD_IEEE_GET}));
}

TEST(EthQosSession, ADriverThatDropsTheSettingIsAnErrorNotASilentRun) {
  const test::TempStateDir state_dir;
  test::FakeDcbPort port(fixture("pcp_defaults"));
  port.ignore_sets = true;
  EthQosTarget target{"ens1f0np0", "mlx5_0 port 1", roce_ets_suite(), kRoceEtsDscps,
                      "driver.verbs.nic_qos"};
  auto session = EthQosSession::begin(port, "/nonexistent", target, QosMode::apply, true);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.error().message.find("reads back otherwise"), std::string::npos);
}

TEST(EthQosSession, AStateThatCannotBeRestoredIsAClearError) {
  const test::TempStateDir state_dir;
  test::FakeDcbPort port(fixture("pcp_defaults"));
  EthQosTarget target{"ens1f0np0", "mlx5_0 port 1", roce_ets_suite(), kRoceEtsDscps,
                      "driver.verbs.nic_qos"};
  auto session = EthQosSession::begin(port, "/nonexistent", target, QosMode::apply, true);
  ASSERT_TRUE(session.ok());
  port.refuse_sets = true;  // the driver refuses the old settings back
  const Status s = (*session)->restore();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("could not be put back"), std::string::npos);
  // The commands that put it back by hand: the state read before the run.
  EXPECT_NE(s.error().message.find("dcb ets set dev ens1f0np0 prio-tc 0:1 1:0"), std::string::npos);
  EXPECT_NE(s.error().message.find("dcb app flush dev ens1f0np0 dscp-prio"), std::string::npos);
  EXPECT_FALSE((*session)->restore().ok());  // the same answer again, nothing sent
}

TEST(EthQosSession, RecordedAnswersReplayThroughTheSameReader) {
  auto transport = make_recorded_dcb_transport(kFixtures + "/roce_ets");
  auto state = read_eth_qos(*transport, kFixtures + "/roce_ets", "ens1f0np0");
  ASSERT_TRUE(state.ok()) << state.error().message;
  EXPECT_EQ(state->trust(), policy::EthTrust::dscp);
  auto missing = read_eth_qos(*transport, "/nonexistent", "eth9");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("eth9"), std::string::npos);
}

TEST(EthQosSession, TheOfedSysfsTrustOverridesTheAppTable) {
  const auto root = std::filesystem::temp_directory_path() /
                    (std::string("qb_nic_trust_test") + "." + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "sys/class/net/ens1f0np0/qos");
  std::ofstream(root / "sys/class/net/ens1f0np0/qos/trust") << "dscp\n";
  test::FakeDcbPort port(fixture("pcp_defaults"));
  auto state = read_eth_qos(port, root.string(), "ens1f0np0");
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->trust(), policy::EthTrust::dscp);
  EXPECT_NE(state->trust_source().find("qos/trust"), std::string::npos);
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace qb::nic
