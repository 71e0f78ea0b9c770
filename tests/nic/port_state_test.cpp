// What a driver calls: the netdev of an RDMA port, the QoS check through its seams, and the
// counter deltas of a repetition from a sysfs tree under a root override (a ConnectX's names)
// and ethtool statistics, with missing counters a note.
#include "qb/nic/port_state.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "fake_dcb_port.hpp"
#include "qb/nic/recorded.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;

class StepEthtool final : public EthtoolStats {
 public:
  uint64_t step = 0;
  CounterSet read(const std::string&) override {
    CounterSet set;
    set.source = "ethtool";
    set.values = {{"tx_prio3_bytes", 1000 * step},
                  {"tx_prio0_bytes", 0},
                  {"rx_prio3_pause", 0},
                  {"tx_bytes", 1000 * step},
                  {"rx_crc_errors_phy", 0}};
    ++step;
    return set;
  }
};

struct Tree {
  // One per test process: ctest runs the cases side by side.
  fs::path root = fs::temp_directory_path() / ("qb_nic_port_state." + std::to_string(::getpid()));
  Tree() {
    fs::remove_all(root);
    const fs::path port = root / "sys/class/infiniband/mlx5_0/ports/1";
    fs::create_directories(port / "hw_counters");
    fs::create_directories(port / "gid_attrs/ndevs");
    std::ofstream(port / "gid_attrs/ndevs/3") << "ens1f0np0\n";
    fs::create_directories(root / "sys/class/net/ens1f0np0/device/infiniband/mlx5_0");
    set("np_cnp_sent", 5);
    set("out_of_sequence", 0);
    set("lifespan", 10);
  }
  ~Tree() { fs::remove_all(root); }
  void set(const std::string& name, uint64_t value) const {
    std::ofstream(root / "sys/class/infiniband/mlx5_0/ports/1/hw_counters" / name) << value << "\n";
  }
};

TEST(PortState, NetdevAndRdmaDeviceFromSysfs) {
  Tree tree;
  EXPECT_EQ(netdev_of_rdma_port(tree.root.string(), "mlx5_0", 1, 3), "ens1f0np0");
  EXPECT_EQ(netdev_of_rdma_port(tree.root.string(), "mlx5_0", 1, 7), "");
  EXPECT_EQ(rdma_device_of_netdev(tree.root.string(), "ens1f0np0"), "mlx5_0");
  EXPECT_EQ(rdma_device_of_netdev(tree.root.string(), "eth9"), "");
}

TEST(PortState, CounterDeltasOfARepetition) {
  Tree tree;
  NicSeams seams;
  seams.root = tree.root.string();
  auto ethtool = std::make_shared<StepEthtool>();
  seams.ethtool = ethtool;
  std::vector<std::string> notes;
  PortState state(QosMode::off, true, seams, "driver.verbs.nic_qos",
                  [&](const std::string& n) { notes.push_back(n); });
  state.open("mlx5_0", 1, "ens1f0np0", false);
  state.counters_before();
  tree.set("np_cnp_sent", 47);  // 42 CNPs during the repetition
  state.counters_after();
  std::vector<std::pair<std::string, double>> stats;
  state.add_stats(stats, CounterDirection::tx);
  const std::map<std::string, double> m(stats.begin(), stats.end());
  EXPECT_EQ(m.at("nic.direction"), 1.0);
  EXPECT_EQ(m.at("nic.rdma.np_cnp_sent"), 42.0);
  EXPECT_EQ(m.at("nic.rdma.out_of_sequence"), 0.0);  // zero, but a checked counter: kept
  EXPECT_EQ(m.at("nic.ethtool.tx_prio3_bytes"), 1000.0);
  EXPECT_EQ(m.at("nic.ethtool.tx_prio0_bytes"), 0.0);
  EXPECT_EQ(m.count("nic.ethtool.rx_crc_errors_phy"), 0U);  // zero and not checked: left out
  EXPECT_EQ(m.count("nic.rdma.lifespan"), 0U);
  EXPECT_EQ(m.at("nic.counters_read"), 2.0 + 5.0);  // hw_counters (no counters/ dir) + ethtool
  ASSERT_EQ(notes.size(), 1U);                      // the missing counters/ directory, once
  EXPECT_NE(notes[0].find("ports/1/counters"), std::string::npos);
}

TEST(PortState, AVfWithoutCountersRunsWithANote) {
  NicSeams seams;
  seams.root = "/nonexistent";
  std::vector<std::string> notes;
  PortState state(QosMode::off, true, seams, "k",
                  [&](const std::string& n) { notes.push_back(n); });
  state.open("mlx5_7", 1, "", false);
  state.counters_before();
  state.counters_after();
  std::vector<std::pair<std::string, double>> stats;
  state.add_stats(stats, CounterDirection::loopback);
  EXPECT_EQ(notes.size(), 2U);  // hw_counters and counters, each named
  const std::map<std::string, double> m(stats.begin(), stats.end());
  EXPECT_EQ(m.at("nic.counters_read"), 0.0);
}

TEST(PortState, TheQosCheckGoesThroughTheSeamAndRestoresAtClose) {
  const test::TempStateDir state_dir;
  Tree tree;
  const std::string fixtures = std::string(QB_SOURCE_DIR) + "/tests/nic/fixtures";
  auto recorded = make_recorded_dcb_transport(fixtures + "/pcp_defaults");
  auto get = read_eth_qos(*recorded, "/nonexistent", "ens1f0np0");
  ASSERT_TRUE(get.ok());
  auto port = std::make_shared<test::FakeDcbPort>(*get);
  NicSeams seams;
  seams.root = tree.root.string();
  seams.dcb = port;
  seams.net_admin = true;
  policy::QosPlan plan;
  plan.nic_qos.kind = policy::PortQos::Kind::ets;
  plan.nic_qos.eth = policy::default_eth_port_qos();
  plan.nic_qos.eth.trust = policy::EthTrust::dscp;
  {
    PortState check(QosMode::check, false, seams, "driver.verbs.nic_qos",
                    [](const std::string&) {});
    check.open("mlx5_0", 1, "ens1f0np0", false);
    const Status s = check.check_qos(plan, {26}, "mlx5_0 port 1");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().where, "eth.trust");
  }
  PortState apply(QosMode::apply, false, seams, "driver.verbs.nic_qos", [](const std::string&) {});
  apply.open("mlx5_0", 1, "ens1f0np0", false);
  ASSERT_TRUE(apply.check_qos(plan, {26}, "mlx5_0 port 1").ok());
  EXPECT_EQ(port->state_.trust(), policy::EthTrust::dscp);
  EXPECT_EQ(port->state_.dscp_priority(26), 3);
  ASSERT_TRUE(apply.close().ok());
  EXPECT_TRUE(state_differences(*get, port->state_).empty());
  // A suite without [eth]: nothing to compare, and nothing to apply.
  policy::QosPlan bare;
  PortState none(QosMode::apply, false, seams, "driver.verbs.nic_qos", [](const std::string&) {});
  none.open("mlx5_0", 1, "ens1f0np0", false);
  EXPECT_EQ(none.check_qos(bare, {}, "mlx5_0 port 1").error().code, Errc::invalid_config);
}

}  // namespace
}  // namespace qb::nic
