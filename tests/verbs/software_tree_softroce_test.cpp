// tree = "software" as Soft-RoCE needs it (found running on rdma_rxe, tests/softroce): a suite
// port rate below the port's reported speed (rxe reports its netdev's nominal 10 Gbit/s) is the
// capacity the pacing divides, above it, and with tree = "nic" anything but the port's speed,
// is exit 2 at port.rate; a suite without a tree is paced too; a late worker catches up one
// message.
#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "fake_mlx5.hpp"
#include "software_tree.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

Status open_on(double port_bps, double suite_bps, TreeMode tree) {
  const policy::WireModel wire{policy::Transport::rocev2, 4096};
  FakeDeviceConfig device = fake_device_for_port(port_bps, wire, 0);
  device.sched_support = false;  // as Soft-RoCE
  FakeMlx5 fake(device);
  VerbsConfig config;
  config.tree = tree;
  auto driver = make_verbs_driver(config, &fake);
  Topology topology;
  topology.port_rate_bps = suite_bps;
  topology.wire = wire;
  topology.flow_count = 1;
  Status opened = driver->open(topology);
  driver->close();
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  return opened;
}

TEST(VerbsSoftwareTreeOnSoftRoce, ASuiteRateBelowThePortsSpeedOpens) {
  const Status s = open_on(10e9, 24e6, TreeMode::software);
  EXPECT_TRUE(s.ok()) << s.error().to_string();
}

TEST(VerbsSoftwareTreeOnSoftRoce, ASuiteRateAboveThePortsSpeedIsRefused) {
  const Status s = open_on(10e9, 25e9, TreeMode::software);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::invalid_config);
  EXPECT_EQ(s.error().where, "port.rate");
}

TEST(VerbsSoftwareTreeOnSoftRoce, TheNicTreeStillNeedsThePortsSpeed) {
  const Status s = open_on(10e9, 24e6, TreeMode::nic);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().where, "port.rate");
  EXPECT_NE(s.error().message.find("set rate = \"10Gbps\""), std::string::npos)
      << s.error().message;
}

// Without a [[sched]] tree the pace still holds the flows to their shares of the suite's rate
// (before, a suite without a tree was not paced: on Soft-RoCE two saturating flows of an
// 8 Mbit/s suite ran at 48 Mbit/s each).
TEST(VerbsSoftwareTreeOnSoftRoce, FlowsArePacedWithoutATree) {
  const policy::WireModel wire{policy::Transport::rocev2, 4096};
  policy::QosPlan plan;
  plan.tree = policy::SchedTree::with_root();
  const uint32_t leaf = plan.tree.add_child(0, std::string(policy::kDefaultLeafName), true, 0, 0.0);
  ASSERT_TRUE(policy::is_implicit_tree(plan.tree));
  plan.wire = wire;
  plan.port_rate_bps = 8e6;
  for (const char* name : {"a", "b"}) {
    policy::FlowPlan flow;
    flow.name = name;
    flow.leaf = leaf;
    flow.offered_wire_bps = std::numeric_limits<double>::infinity();  // saturating
    plan.flows.push_back(flow);
  }
  FakeDeviceConfig device = fake_device_for_port(10e9, wire, 0);
  device.sched_support = false;
  FakeMlx5 fake(device);
  VerbsConfig config;
  config.tree = TreeMode::software;
  auto driver = make_verbs_driver(config, &fake);
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = wire;
  topology.flow_count = 2;
  ASSERT_TRUE(driver->open(topology).ok());
  const Status applied = driver->apply(plan);
  ASSERT_TRUE(applied.ok()) << applied.error().to_string();
  double paced = -1;
  for (const auto& [name, value] : driver->stats()) {
    if (name == "software_paced_flows") paced = value;
  }
  EXPECT_EQ(paced, 2.0);
  driver->close();
}

// The pacer's bucket: a worker late by less than one message's link time at the pace loses
// nothing (before, anything beyond 20 us was lost: on Soft-RoCE in an emulated guest every
// flow of 4 KiB messages at 0.75 Mbit/s landed 30 % below its pace); later than that, the rest
// is lost; at a fast pace the 20 us bucket is unchanged.
TEST(VerbsSoftwareTreeOnSoftRoce, ALateWorkerCatchesUpOneMessage) {
  const double message_ns = 45e6;  // 4 KiB at about 0.75 Mbit/s
  const double next_ns = 1e9;
  EXPECT_EQ(pace_start_ns(next_ns, next_ns + 30e6, message_ns), next_ns);  // 30 ms late
  EXPECT_EQ(pace_start_ns(next_ns, next_ns + 100e6, message_ns), next_ns + 100e6 - message_ns);
  EXPECT_EQ(pace_start_ns(next_ns, next_ns - 5e6, message_ns), next_ns);  // not yet due
  // 4 KiB at 10 Gbit/s is 3.3 us: the 20 us bucket.
  EXPECT_EQ(pace_start_ns(next_ns, next_ns + 1e6, 3.3e3), next_ns + 1e6 - kPaceSlackNs);
}

}  // namespace
}  // namespace qb::drv::verbs
