#include "qb/policies/port_qos.hpp"

#include <gtest/gtest.h>

#include <array>

namespace qb::policy {
namespace {

EthPortQos ets_60_40_strict() {
  EthPortQos qos = default_eth_port_qos();
  qos.tsa = {TcSelect::ets,    TcSelect::ets,    TcSelect::strict, TcSelect::strict,
             TcSelect::vendor, TcSelect::vendor, TcSelect::vendor, TcSelect::vendor};
  qos.ets_percent = {60, 40, 0, 0, 0, 0, 0, 0};
  return qos;
}

TEST(PortQos, DefaultsAreTheDriverDefaults) {
  const EthPortQos qos = default_eth_port_qos();
  EXPECT_EQ(qos.trust, EthTrust::pcp);
  EXPECT_EQ(qos.prio_tc, (std::array<uint8_t, 8>{1, 0, 2, 3, 4, 5, 6, 7}));
  for (TcSelect tsa : qos.tsa) EXPECT_EQ(tsa, TcSelect::vendor);
  EXPECT_EQ(qos.dscp2prio[0], 0);
  EXPECT_EQ(qos.dscp2prio[7], 0);
  EXPECT_EQ(qos.dscp2prio[8], 1);
  EXPECT_EQ(qos.dscp2prio[46], 5);  // EF
  EXPECT_EQ(qos.dscp2prio[63], 7);
  EXPECT_TRUE(validate_eth_port_qos(qos).ok());
  EXPECT_EQ(ets_groups(qos), (std::array<uint8_t, 8>{7, 7, 7, 7, 7, 7, 7, 7}));
}

TEST(PortQos, ValidEtsPasses) {
  EXPECT_TRUE(validate_eth_port_qos(ets_60_40_strict()).ok());
}

TEST(PortQos, PrioTcOutOfRangeIsRejected) {
  EthPortQos qos = default_eth_port_qos();
  qos.prio_tc[3] = 8;
  const Status status = validate_eth_port_qos(qos);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, Errc::invalid_config);
  EXPECT_EQ(status.error().where, "prio_tc[3]");
}

TEST(PortQos, Dscp2PrioOutOfRangeIsRejected) {
  EthPortQos qos = default_eth_port_qos();
  qos.dscp2prio[46] = 9;
  const Status status = validate_eth_port_qos(qos);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().where, "dscp2prio[46]");
}

TEST(PortQos, EtsMustSumTo100) {
  EthPortQos qos = ets_60_40_strict();
  qos.ets_percent[1] = 30;
  const Status status = validate_eth_port_qos(qos);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().where, "ets_percent");
  EXPECT_NE(status.error().message.find("90"), std::string::npos);
}

TEST(PortQos, NonEtsTcMustHaveZeroPercent) {
  EthPortQos qos = ets_60_40_strict();
  qos.ets_percent = {50, 40, 10, 0, 0, 0, 0, 0};  // sums to 100, but TC2 is strict
  const Status status = validate_eth_port_qos(qos);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().where, "ets_percent[2]");
}

TEST(PortQos, CapAbove255GbitIsRejected) {
  EthPortQos qos = default_eth_port_qos();
  qos.tc_max_rate_bps[4] = 256e9;
  const Status status = validate_eth_port_qos(qos);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().where, "tc_max_rate[4]");
}

TEST(PortQos, GroupsStrictAboveEts) {
  EXPECT_EQ(ets_groups(ets_60_40_strict()), (std::array<uint8_t, 8>{0, 0, 1, 2, 7, 7, 7, 7}));
}

TEST(PortQos, ZeroPercentEtsTakesTheLowestGroup) {
  EthPortQos qos = default_eth_port_qos();
  qos.tsa = {TcSelect::ets,    TcSelect::ets,    TcSelect::ets,    TcSelect::strict,
             TcSelect::strict, TcSelect::vendor, TcSelect::vendor, TcSelect::vendor};
  qos.ets_percent = {0, 100, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(ets_groups(qos), (std::array<uint8_t, 8>{0, 1, 0, 2, 3, 7, 7, 7}));
}

TEST(PortQos, AllStrictStackFromZero) {
  EthPortQos qos = default_eth_port_qos();
  qos.tsa.fill(TcSelect::strict);
  EXPECT_EQ(ets_groups(qos), (std::array<uint8_t, 8>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(PortQos, HwMaxRateRounding) {
  EXPECT_EQ(hw_tc_max_rate_bps(0), 0.0);
  EXPECT_EQ(hw_tc_max_rate_bps(50'000), 100e6);  // below one unit: one unit
  EXPECT_EQ(hw_tc_max_rate_bps(4'000'000), 4e9);
  EXPECT_EQ(hw_tc_max_rate_bps(4'150'000), 4.1e9);
  EXPECT_EQ(hw_tc_max_rate_bps(25'500'000), 25.5e9);  // 255 x 100 Mbit/s: the last 100M value
  EXPECT_EQ(hw_tc_max_rate_bps(25'600'000), 25e9);    // Gbit/s units from here
  EXPECT_EQ(hw_tc_max_rate_bps(40'700'000), 40e9);
}

TEST(PortQos, ClassNames) {
  PortQos qos;
  EXPECT_EQ(arb_class_name(qos, 0), "port");
  qos.kind = PortQos::Kind::ets;
  EXPECT_EQ(arb_class_name(qos, 3), "TC3");
  qos.kind = PortQos::Kind::vlarb;
  EXPECT_EQ(arb_class_name(qos, 1), "VL1");
}

}  // namespace
}  // namespace qb::policy
