// The mlx5 timing seam without a NIC (send-on-time through the tx_pp devarg, Rx hardware
// timestamps, xstats: the paths that need a ConnectX port): a fake DeviceOps stands for a port with
// or without send-on-time and Rx timestamps. Checked: hardware pacing refused naming tx_pp when
// the offload is missing; with it, the offload and dynfield are planned and the worker writes
// each frame's scheduled time (device clock) into the dynfield and sets the flag; Rx timestamps
// only when offered; the device clock map; xstats into the driver stats; the clock name; and
// the suite key.
#include "device_timing.hpp"

#include <gtest/gtest.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include <array>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "dpdk_test_env.hpp"
#include "dpdk_worker.hpp"
#include "eal.hpp"
#include "dpdk_driver.hpp"
#include "port.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::drv::dpdk {
namespace {

constexpr int kFakeTxOffset = 96;
constexpr uint64_t kFakeTxFlag = uint64_t{1} << 40;
constexpr int kFakeRxOffset = 104;
constexpr uint64_t kFakeRxFlag = uint64_t{1} << 41;

// A port as the test says it is. Dynfield registration is faked unless `real_dynfields` (the
// worker test writes into real mbufs, so it needs the real field).
class FakeDeviceOps final : public DeviceOps {
 public:
  std::string name = "mlx5_pci";
  uint64_t tx_capa = 0;
  uint64_t rx_capa = 0;
  int register_rc = 0;
  bool real_dynfields = false;
  std::vector<uint64_t> clock_reads;  // returned in order; read_clock fails when none is left
  std::vector<std::pair<std::string, uint64_t>> counters;
  int tx_registrations = 0;
  int rx_registrations = 0;

  std::string driver_name(uint16_t) override { return name; }
  uint64_t tx_offload_capa(uint16_t) override { return tx_capa; }
  uint64_t rx_offload_capa(uint16_t) override { return rx_capa; }
  int register_tx_timestamp(int* offset, uint64_t* flag) override {
    ++tx_registrations;
    if (real_dynfields) return rte_mbuf_dyn_tx_timestamp_register(offset, flag);
    *offset = kFakeTxOffset;
    *flag = kFakeTxFlag;
    return register_rc;
  }
  int register_rx_timestamp(int* offset, uint64_t* flag) override {
    ++rx_registrations;
    *offset = kFakeRxOffset;
    *flag = kFakeRxFlag;
    return register_rc;
  }
  int read_clock(uint16_t, uint64_t* clock) override {
    if (clock_reads.empty()) return -ENOTSUP;
    *clock = clock_reads.front();
    clock_reads.erase(clock_reads.begin());
    return 0;
  }
  std::vector<std::pair<std::string, uint64_t>> xstats(uint16_t) override { return counters; }
};

TEST(PlanTiming, HardwarePacingWithoutSendOnTimeIsNotSupportedAndNamesTxPp) {
  FakeDeviceOps ops;
  ops.rx_capa = RTE_ETH_RX_OFFLOAD_TIMESTAMP;
  auto plan = plan_timing(ops, 0, 0, true, true);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, Errc::not_supported);
  EXPECT_NE(plan.error().message.find("tx_pp"), std::string::npos) << plan.error().message;
  EXPECT_NE(plan.error().message.find("mlx5_pci"), std::string::npos) << plan.error().message;
  EXPECT_EQ(plan.error().where, "driver.dpdk.hw_pacing");
  EXPECT_EQ(ops.tx_registrations, 0);
}

TEST(PlanTiming, HardwarePacingWithSendOnTimeAddsTheOffloadAndTheDynfield) {
  FakeDeviceOps ops;
  ops.tx_capa = RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
  auto plan = plan_timing(ops, 0, 0, true, true);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_TRUE(plan->hw_pacing);
  EXPECT_EQ(plan->tx_offloads, RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP);  // nothing else
  EXPECT_EQ(plan->tx_ts_offset, kFakeTxOffset);
  EXPECT_EQ(plan->tx_ts_flag, kFakeTxFlag);
  EXPECT_EQ(plan->clock, "tsc");
  // Not asked for: the offload is left alone even where the port has it.
  auto software = plan_timing(ops, 0, 0, true, false);
  ASSERT_TRUE(software.ok());
  EXPECT_FALSE(software->hw_pacing);
  EXPECT_EQ(software->tx_offloads, 0u);
  EXPECT_EQ(software->tx_ts_offset, -1);
}

TEST(PlanTiming, FailedDynfieldRegistrationIsARuntimeError) {
  FakeDeviceOps ops;
  ops.tx_capa = RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
  ops.register_rc = -ENOMEM;
  auto plan = plan_timing(ops, 0, 0, false, true);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, Errc::runtime);
}

TEST(PlanTiming, RxTimestampsOnlyWhenOfferedAndReceiving) {
  FakeDeviceOps offered;
  offered.rx_capa = RTE_ETH_RX_OFFLOAD_TIMESTAMP | RTE_ETH_RX_OFFLOAD_CHECKSUM;
  auto on = plan_timing(offered, 0, 1, true, false);
  ASSERT_TRUE(on.ok());
  EXPECT_TRUE(on->rx_hw_timestamps);
  EXPECT_EQ(on->rx_offloads, RTE_ETH_RX_OFFLOAD_TIMESTAMP);
  EXPECT_EQ(on->rx_ts_offset, kFakeRxOffset);
  EXPECT_EQ(on->rx_ts_flag, kFakeRxFlag);
  EXPECT_EQ(on->clock, "tsc");  // latency stays host TSC to host TSC

  auto tx_only = plan_timing(offered, 0, 1, false, false);
  ASSERT_TRUE(tx_only.ok());
  EXPECT_FALSE(tx_only->rx_hw_timestamps);
  EXPECT_EQ(tx_only->rx_offloads, 0u);

  FakeDeviceOps none;
  auto off = plan_timing(none, 0, 1, true, false);
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->rx_hw_timestamps);
  EXPECT_EQ(off->rx_offloads, 0u);
  EXPECT_EQ(off->rx_ts_offset, -1);
  EXPECT_EQ(none.rx_registrations, 0);

  // Optional: a port that offers them but whose field cannot be registered runs without.
  FakeDeviceOps failing;
  failing.rx_capa = RTE_ETH_RX_OFFLOAD_TIMESTAMP;
  failing.register_rc = -ENOMEM;
  auto without = plan_timing(failing, 0, 1, true, false);
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->rx_hw_timestamps);
  EXPECT_EQ(without->rx_offloads, 0u);
}

TEST(XstatsForResults, TxPpAlwaysOthersWhenNotZero) {
  FakeDeviceOps ops;
  ops.counters = {{"tx_pp_missed_interrupt_errors", 0},
                  {"tx_pp_jitter", 12},
                  {"rx_good_packets", 5},
                  {"rx_errors", 0}};
  const auto stats = xstats_for_results(ops, 0, "0000:03:00.0");
  const std::vector<std::pair<std::string, double>> want = {
      {"xstat.0000:03:00.0.tx_pp_missed_interrupt_errors", 0.0},
      {"xstat.0000:03:00.0.tx_pp_jitter", 12.0},
      {"xstat.0000:03:00.0.rx_good_packets", 5.0}};
  EXPECT_EQ(stats, want);
}

uint64_t fake_tsc_value = 0;
uint64_t fake_tsc() {
  return fake_tsc_value += 1'000'000;  // every read a million ticks later
}

TEST(DeviceClock, MapsTscToTheDeviceClock) {
  FakeDeviceOps ops;
  ops.clock_reads = {5'000'000, 5'500'000};  // 500k device units over 1M TSC ticks
  fake_tsc_value = 0;
  auto map = map_device_clock(ops, 0, fake_tsc);
  ASSERT_TRUE(map.ok()) << map.error().message;
  EXPECT_EQ(map->tsc0, 1'000'000u);
  EXPECT_EQ(map->device0, 5'000'000u);
  EXPECT_DOUBLE_EQ(map->device_per_tsc, 0.5);
  EXPECT_EQ(map->to_device(3'000'000), 6'000'000u);
  EXPECT_EQ(map->to_device(0), 4'500'000u);  // before the reads: below device0

  FakeDeviceOps no_clock;
  EXPECT_EQ(map_device_clock(no_clock, 0, fake_tsc).error().code, Errc::not_supported);
  FakeDeviceOps stuck;
  stuck.clock_reads = {7, 7};
  EXPECT_EQ(map_device_clock(stuck, 0, fake_tsc).error().code, Errc::not_supported);
}

// With the plan of a send-on-time port, every frame the worker sends carries its scheduled
// time in device clock units in the Tx timestamp dynfield, with the flag set. Read back on the
// peer of a ring pair (the mbuf itself crosses the ring, dynfields included).
TEST(DeviceTiming, WorkerStampsFramesWithTheirScheduledDeviceTime) {
  ASSERT_TRUE(ensure_eal(test::test_eal_args()).ok());
  FakeDeviceOps ops;
  ops.tx_capa = RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
  ops.real_dynfields = true;
  auto timing = plan_timing(ops, 0, 0, false, true);
  ASSERT_TRUE(timing.ok()) << timing.error().message;
  ASSERT_GE(timing->tx_ts_offset, 0);
  ASSERT_NE(timing->tx_ts_flag, 0u);

  auto tx_port = find_port("ring_pair:qbtiming:0");
  auto rx_port = find_port("ring_pair:qbtiming:1");
  ASSERT_TRUE(tx_port.ok() && rx_port.ok());
  auto pool = shared_pool(pool_mbufs_for(1, 512, 1, 512, rte_lcore_count()),
                          RTE_PKTMBUF_HEADROOM + 1518, 0);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  // net_ring has no send-on-time: the port is configured without it (what the worker does to
  // the mbufs is what is checked here).
  ASSERT_TRUE(configure_port(PortQueues{*tx_port, 1, 0, 512, 512, 0, 0}, *pool).ok());
  ASSERT_TRUE(configure_port(PortQueues{*rx_port, 0, 1, 512, 512, 0, 0}, *pool).ok());
  ASSERT_TRUE(start_port(*tx_port).ok());
  ASSERT_TRUE(start_port(*rx_port).ok());

  WorkerSetup setup;
  setup.tx_port = *tx_port;
  setup.pool = *pool;
  setup.wire = policy::WireModel{policy::Transport::eth, 1500};
  setup.udp_dst_port = 5142;
  FrameSpec spec;
  spec.dst_port = 5142;
  setup.templates.emplace_back(spec);
  setup.tx_ts_offset = timing->tx_ts_offset;
  setup.tx_ts_flag = timing->tx_ts_flag;
  DpdkWorker worker(std::move(setup));
  constexpr uint64_t kDevice0 = 1'000'000'000'000;
  constexpr double kDevicePerTsc = 0.5;
  const uint64_t before = rte_rdtsc();
  worker.set_device_clock(DeviceClockMap{before, kDevice0, kDevicePerTsc});
  worker.start();  // time zero: a TSC between `before` and `after`
  const uint64_t after = rte_rdtsc();
  const std::array<Message, 2> messages{Message{0, 128, 1'000'000, 0},
                                        Message{0, 128, 3'000'000, 1}};
  ASSERT_EQ(worker.tx_burst(messages), 2u);

  rte_mbuf* frames[4] = {};
  uint16_t got = 0;
  for (int i = 0; i < 1000 && got < 2; ++i) {
    got = static_cast<uint16_t>(got + rte_eth_rx_burst(*rx_port, 0, frames + got, 4 - got));
  }
  ASSERT_EQ(got, 2u);
  const double ticks_per_ns = static_cast<double>(rte_get_tsc_hz()) / 1e9;
  uint64_t when[2] = {};
  for (int i = 0; i < 2; ++i) {
    EXPECT_NE(frames[i]->ol_flags & timing->tx_ts_flag, 0u) << "frame " << i;
    std::memcpy(&when[i], reinterpret_cast<uint8_t*>(frames[i]) + timing->tx_ts_offset,
                sizeof when[i]);
    // scheduled TSC = time zero + scheduled_ns in ticks; device = device0 + (that - before) * k
    const double scheduled_ticks =
        static_cast<double>(messages[static_cast<size_t>(i)].scheduled_ns) * ticks_per_ns;
    const double low = kDevice0 + scheduled_ticks * kDevicePerTsc - 2;
    const double high =
        kDevice0 + (static_cast<double>(after - before) + scheduled_ticks) * kDevicePerTsc + 2;
    EXPECT_GE(static_cast<double>(when[i]), low) << "frame " << i;
    EXPECT_LE(static_cast<double>(when[i]), high) << "frame " << i;
  }
  // Two milliseconds apart in schedule, so two milliseconds of device clock apart.
  EXPECT_NEAR(static_cast<double>(when[1] - when[0]), 2e6 * ticks_per_ns * kDevicePerTsc, 2.0);
  rte_pktmbuf_free_bulk(frames, got);
  worker.stop();
  stop_port(*tx_port);
  stop_port(*rx_port);
}

bool has_stat(const DriverStats& stats, const std::string& key) {
  for (const auto& entry : stats) {
    if (entry.first == key) return true;
  }
  return false;
}

TEST(DeviceTimingDriver, HardwarePacingOnAPortWithoutItFailsOpenNamingTxPp) {
  auto ops = std::make_unique<FakeDeviceOps>();
  ops->name = "net_null";
  auto config = test::test_config("net_null0", "none");
  config.hw_pacing = true;
  auto driver = make_dpdk_driver_with_ops(config, std::move(ops));
  const Status s = driver->open(test::eth_topology(test::eth_plan(1)));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::not_supported);
  EXPECT_NE(s.error().message.find("tx_pp"), std::string::npos) << s.error().message;
  driver->close();
}

// The driver copies the port's tx_pp_* and non-zero xstats into its stats, and names its clock.
TEST(DeviceTimingDriver, XstatsAndClockNameReachTheDriverStats) {
  auto ops = std::make_unique<FakeDeviceOps>();
  ops->name = "net_null";
  ops->counters = {{"tx_pp_wander", 0}, {"tx_q0_packets", 3}, {"tx_errors", 0}};
  auto config = test::test_config("net_null0", "none");
  config.software_shaper = false;
  auto driver = make_dpdk_driver_with_ops(config, std::move(ops));
  const auto plan = test::eth_plan(1);
  ASSERT_TRUE(driver->open(test::eth_topology(test::eth_plan(1))).ok());
  EXPECT_FALSE(driver->capabilities().hw_timestamps);  // the fake offers none
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  EXPECT_EQ(driver->clock(0).name(), "tsc");
  ASSERT_TRUE(driver->stop().ok());
  const DriverStats stats = driver->stats();
  EXPECT_EQ(test::stat(stats, "xstat.net_null0.tx_pp_wander"), 0.0);
  EXPECT_EQ(test::stat(stats, "xstat.net_null0.tx_q0_packets"), 3.0);
  EXPECT_FALSE(has_stat(stats, "xstat.net_null0.tx_errors"));
  EXPECT_EQ(test::stat(stats, "hw_pacing"), 0.0);
  driver->close();
}

TEST(DeviceTimingSuite, HwPacingKeyIsRead) {
  constexpr const char* kSuite = R"(
[suite]
name = "hw pacing"
[driver]
name = "dpdk"
[driver.dpdk]
tx_port = "0000:03:00.0,tx_pp=500"
hw_pacing = true
[port]
rate = "100Gbps"
transport = "eth"
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "root"
[[flow]]
name = "a"
leaf = "a"
size = 64
rate = "1Gbps"
)";
  const auto suite = suite::load_suite_string(kSuite, "hw_pacing.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  EXPECT_TRUE(parse_dpdk_config(suite::driver_table(*suite, "dpdk")).hw_pacing);
  std::string text = kSuite;
  text.replace(text.find("hw_pacing = true"), 16, "");
  const auto plain = suite::load_suite_string(text, "plain.toml");
  ASSERT_TRUE(plain.ok()) << plain.error().to_string();
  EXPECT_FALSE(parse_dpdk_config(suite::driver_table(*plain, "dpdk")).hw_pacing);
}

}  // namespace
}  // namespace qb::drv::dpdk
