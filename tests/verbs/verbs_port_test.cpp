// Reading the port: the speed x width encodings (InfiniBand data rates; Ethernet link speeds as
// the mlx5 kernel driver encodes them), through the fake ConnectX as through a device.
#include "verbs_port.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "fake_mlx5.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

// ibv_query_port(3)'s codes.
constexpr uint8_t kSdr = 1, kDdr = 2, kQdr = 4, kFdr10 = 8, kFdr = 16, kEdr = 32, kHdr = 64,
                  kNdr = 128;
constexpr uint8_t k1x = 1, k2x = 16, k4x = 2, k8x = 4, k12x = 8;

struct Pair {
  uint8_t speed;
  uint8_t width;
  double gbps;
};

// What drivers/infiniband/hw/mlx5/main.c (translate_eth_legacy_proto_oper,
// translate_eth_ext_proto_oper) reports for each Ethernet speed.
TEST(VerbsPort, EthernetSpeedsAreTheMlx5DriversEncodings) {
  for (const Pair& p :
       {Pair{kSdr, k1x, 1}, Pair{kDdr, k1x, 5}, Pair{kQdr, k1x, 10}, Pair{kEdr, k1x, 25},
        Pair{kQdr, k4x, 40}, Pair{kEdr, k2x, 50}, Pair{kHdr, k1x, 50}, Pair{kFdr, k4x, 56},
        Pair{kEdr, k4x, 100}, Pair{kHdr, k2x, 100}, Pair{kNdr, k1x, 100}, Pair{kHdr, k4x, 200},
        Pair{kNdr, k2x, 200}, Pair{kHdr, k8x, 400}, Pair{kNdr, k4x, 400}, Pair{kNdr, k8x, 800}}) {
    EXPECT_DOUBLE_EQ(port_speed_bps(p.speed, p.width, true), p.gbps * 1e9)
        << "speed " << int(p.speed) << " width " << int(p.width);
  }
}

// InfiniBand keeps the data rates (8b/10b up to QDR, 64b/66b from FDR10).
TEST(VerbsPort, InfinibandSpeedsAreDataRates) {
  for (const Pair& p :
       {Pair{kSdr, k1x, 2}, Pair{kSdr, k4x, 8}, Pair{kDdr, k4x, 16}, Pair{kQdr, k4x, 32},
        Pair{kFdr10, k4x, 40}, Pair{kFdr, k4x, 54.56}, Pair{kEdr, k4x, 100}, Pair{kHdr, k4x, 200},
        Pair{kHdr, k2x, 100}, Pair{kNdr, k4x, 400}, Pair{kNdr, k8x, 800}, Pair{kEdr, k12x, 300},
        Pair{kQdr, k1x, 8}}) {
    EXPECT_NEAR(port_speed_bps(p.speed, p.width, false), p.gbps * 1e9, 1e6)
        << "speed " << int(p.speed) << " width " << int(p.width);
  }
  EXPECT_EQ(port_speed_bps(3, k4x, false), 0.0);  // unknown codes
  EXPECT_EQ(port_speed_bps(kEdr, 3, true), 0.0);
}

double fake_port_speed(uint8_t link_layer, double rate_bps) {
  FakeDeviceConfig device;
  device.port.link_layer = link_layer;
  device.port.rate_bps = rate_bps;
  FakeMlx5 fake(device);
  VerbsConfig config;
  auto speed = read_port_speed_bps(config, &fake);
  EXPECT_TRUE(speed.ok()) << speed.error().to_string();
  return speed.ok() ? *speed : 0.0;
}

// A ConnectX on 1/10/25/40/50/100/200/400 GbE reads as that speed (the issue: 10 GbE read as
// 8 Gbit/s, 40 GbE as 32, 1 GbE as 2), and an IB port as its data rate.
TEST(VerbsPort, FakeConnectXReadsAsItsLinkSpeed) {
  for (const double gbps : {1.0, 10.0, 25.0, 40.0, 50.0, 56.0, 100.0, 200.0, 400.0}) {
    EXPECT_DOUBLE_EQ(fake_port_speed(IBV_LINK_LAYER_ETHERNET, gbps * 1e9), gbps * 1e9) << gbps;
  }
  for (const double gbps : {8.0, 16.0, 32.0, 40.0, 100.0, 200.0, 400.0}) {
    EXPECT_DOUBLE_EQ(fake_port_speed(IBV_LINK_LAYER_INFINIBAND, gbps * 1e9), gbps * 1e9) << gbps;
  }
  FakeDeviceConfig device;
  device.port.rate_bps = 40e9;
  FakeMlx5 fake(device);
  std::string name;
  auto context = open_verbs_device(fake, "", &name);
  ASSERT_TRUE(context.ok());
  auto port = query_verbs_port(fake, *context, name, VerbsConfig{});
  ASSERT_TRUE(port.ok()) << port.error().to_string();
  EXPECT_EQ(port->describe(), "mlx5_0 port 1: Ethernet (RoCE), 40 Gbit/s, active MTU 4096");
  fake.close_device(*context);
}

}  // namespace
}  // namespace qb::drv::verbs
