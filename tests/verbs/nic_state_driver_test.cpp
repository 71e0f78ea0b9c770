// The verbs driver and the port's own state (qb/nic/port_state.hpp) on the fake ConnectX, with
// the NIC's seams given: the [eth] check and the capability check stop apply() before the tree
// and any QP; nic_qos = "apply" programs the port for the run and close() puts it back; the
// counters' deltas reach the driver stats.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../nic/fake_dcb_port.hpp"
#include "fake_mlx5.hpp"
#include "qb/nic/port_state.hpp"
#include "qb/nic/recorded.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(QB_SOURCE_DIR) + "/tests/nic/fixtures";

struct Loaded {
  suite::Suite suite;
  std::vector<suite::CompiledScenario> compiled;
};

Loaded load_roce_ets() {
  auto suite = suite::load_suite_file(std::string(QB_SOURCE_DIR) + "/configs/roce_ets.toml");
  EXPECT_TRUE(suite.ok());
  Loaded loaded{std::move(*suite), {}};
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(loaded.suite, warnings);
  EXPECT_TRUE(compiled.ok());
  loaded.compiled = std::move(*compiled);
  return loaded;
}

Topology topology_of(const suite::CompiledScenario& c) {
  Topology t;
  t.port_rate_bps = c.scenario->port.rate_bps;
  t.wire = c.scenario->port.wire;
  t.propagation_delay_ns = c.scenario->port.propagation_delay_ns;
  t.flow_count = static_cast<uint32_t>(c.plan.flows.size());
  t.max_message_bytes = 65536;
  return t;
}

nic::EthQosState pcp_port() {
  auto recorded = nic::make_recorded_dcb_transport(kFixtures + "/pcp_defaults");
  auto state = nic::read_eth_qos(*recorded, "/nonexistent", "ens1f0np0");
  EXPECT_TRUE(state.ok());
  return *state;
}

struct NicSetup {
  nic::test::TempStateDir state_dir;  // restore journals of its own
  std::shared_ptr<nic::test::FakeDcbPort> port =
      std::make_shared<nic::test::FakeDcbPort>(pcp_port());
  VerbsConfig config;
  explicit NicSetup(VerbsConfig::NicQos mode, bool net_admin) {
    auto seams = std::make_shared<nic::NicSeams>();
    seams->root = kFixtures + "/roce_ets";  // the sysfs tree: netdev and hw_counters
    seams->dcb = port;
    seams->ethtool = nic::make_recorded_ethtool_stats(kFixtures + "/roce_ets");
    seams->net_admin = net_admin;
    config.provider = Provider::fake;
    config.nic_qos = mode;
    config.nic_seams = seams;
  }
};

bool made_anything(const FakeMlx5& fake) {
  for (const auto& call : fake.calls()) {
    if (call.starts_with("create_qp") || call.starts_with("sched_node_create") ||
        call.starts_with("sched_leaf_create")) {
      return true;
    }
  }
  return false;
}

TEST(VerbsNicState, APortNotAsTheSuiteSaysStopsApplyBeforeTheTreeAndAnyQp) {
  const auto loaded = load_roce_ets();
  const auto& c = loaded.compiled[0];
  NicSetup setup(VerbsConfig::NicQos::check, true);
  FakeMlx5 fake(fake_device_for_port(c.scenario->port.rate_bps, c.scenario->port.wire,
                                     c.scenario->port.propagation_delay_ns));
  auto driver = make_verbs_driver(setup.config, &fake);
  ASSERT_TRUE(driver->open(topology_of(c)).ok());
  const Status s = driver->apply(c.plan);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::unavailable);  // exit 3
  EXPECT_EQ(s.error().where, "eth.trust");
  EXPECT_NE(s.error().message.find("mlx5_0 port 1 (netdev ens1f0np0"), std::string::npos);
  EXPECT_FALSE(made_anything(fake));
  driver->close();
}

TEST(VerbsNicState, ApplyWithoutCapNetAdminStopsBeforeAnyQpWithTheFix) {
  const auto loaded = load_roce_ets();
  const auto& c = loaded.compiled[0];
  NicSetup setup(VerbsConfig::NicQos::apply, false);
  FakeMlx5 fake(fake_device_for_port(c.scenario->port.rate_bps, c.scenario->port.wire,
                                     c.scenario->port.propagation_delay_ns));
  auto driver = make_verbs_driver(setup.config, &fake);
  ASSERT_TRUE(driver->open(topology_of(c)).ok());
  const Status s = driver->apply(c.plan);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "driver.verbs.nic_qos");
  EXPECT_NE(s.error().message.find("sudo setcap cap_net_admin+ep"), std::string::npos);
  EXPECT_FALSE(made_anything(fake));
  EXPECT_EQ(setup.port->cmds, (std::vector<uint8_t>{DCB_CMD_IEEE_GET}));  // nothing written
  driver->close();
}

TEST(VerbsNicState, ApplyProgramsThePortForTheRunAndCloseRestoresIt) {
  const auto loaded = load_roce_ets();
  const auto& c = loaded.compiled[0];
  NicSetup setup(VerbsConfig::NicQos::apply, true);
  const nic::EthQosState before = setup.port->state_;
  FakeMlx5 fake(fake_device_for_port(c.scenario->port.rate_bps, c.scenario->port.wire,
                                     c.scenario->port.propagation_delay_ns));
  auto driver = make_verbs_driver(setup.config, &fake);
  ASSERT_TRUE(driver->open(topology_of(c)).ok());
  ASSERT_TRUE(driver->apply(c.plan).ok());
  EXPECT_EQ(setup.port->state_.trust(), policy::EthTrust::dscp);
  const std::vector<uint8_t> dscps = {46, 0, 10};
  EXPECT_TRUE(nic::compare_eth_qos(c.plan.nic_qos.eth, dscps, setup.port->state_).empty());
  EXPECT_TRUE(made_anything(fake));
  ASSERT_TRUE(driver->start().ok());
  ASSERT_TRUE(driver->stop().ok());
  std::map<std::string, double> stats;
  for (const auto& [k, v] : driver->stats()) stats[k] = v;
  EXPECT_EQ(stats.at("nic.direction"), 0.0);  // loopback
  EXPECT_GT(stats.at("nic.counters_read"), 0.0);
  EXPECT_EQ(stats.count("nic.rdma.np_cnp_sent"), 1U);
  driver->close();
  EXPECT_TRUE(nic::state_differences(before, setup.port->state_).empty());
}

}  // namespace
}  // namespace qb::drv::verbs
