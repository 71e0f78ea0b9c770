// The EAL every DPDK test in this executable shares (one EAL per process): no hugepages, no
// PCI, one core, and the software ports the tests use; and the plans and lookups the tests share.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "dpdk_driver.hpp"

namespace qb::drv::test {

inline std::vector<std::string> test_eal_args() {
  return {"--no-huge", "-m", "512", "--no-pci", "-l", "0", "--log-level=lib.eal:error",
          // Tx only.
          "--vdev", "net_null0",
          // A loopback port: what it sends, it receives.
          "--vdev", "net_ring0"};
  // Peer ports (Tx on one, Rx on the other) are made by the driver: "ring_pair:qbpeer:0|1".
}

inline DpdkConfig test_config(std::string tx_port, std::string rx_port) {
  DpdkConfig config;
  config.eal_args = test_eal_args();
  config.tx_port = std::move(tx_port);
  config.rx_port = std::move(rx_port);
  config.tx_descriptors = 512;
  config.rx_descriptors = 512;
  return config;
}

/// An Ethernet plan (10 Gbit/s, MTU 1500) of `flows` flows f#0.. on one leaf.
inline policy::QosPlan eth_plan(uint32_t flows) {
  policy::QosPlan plan;
  plan.tree = policy::SchedTree::with_root();
  plan.tree.add_child(0, "default", true, 0);
  plan.wire = policy::WireModel{policy::Transport::eth, 1500};
  plan.port_rate_bps = 10e9;
  for (uint32_t f = 0; f < flows; ++f) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    flow.group = "f";
    flow.leaf = 1;
    flow.op = policy::RdmaOp::send;
    plan.flows.push_back(flow);
  }
  return plan;
}

/// One worker over the plan's port and flows.
inline Topology eth_topology(const policy::QosPlan& plan) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  topology.workers = 1;
  return topology;
}

/// A driver counter; a missing one is a test failure.
inline double stat(const DriverStats& stats, const std::string& key) {
  for (const auto& [name, value] : stats) {
    if (name == key) return value;
  }
  ADD_FAILURE() << "no stat " << key;
  return -1.0;
}

}  // namespace qb::drv::test
