// The NIC's own state for a DPDK port (issue 27 parts 2-3; qb/nic/port_state.hpp): on an mlx5
// port (mlx5_pci, bifurcated: the kernel netdev stays), its QoS checked against the suite's
// [eth] through DCB netlink and its kernel-side counters (ethtool statistics, the RDMA port's
// hw_counters) read around each repetition; the DPDK xstats are the driver's own ("xstat.*").
// Other PMDs (net_ring, net_null, net_af_xdp) have no NIC state to read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "qb/nic/port_state.hpp"

namespace qb::drv::dpdk {

struct NicOptions {
  nic::QosMode mode = nic::QosMode::check;
  bool counters = true;
  std::string root;  // nic_root: a recorded machine (then `netdev` names its netdev)
  std::string netdev;
};

/// A PortState for the DPDK port `port` whose PMD is `driver_name`, or null when it has no
/// kernel netdev to read (not mlx5_pci, and no nic_root).
std::unique_ptr<nic::PortState> open_port_state(uint16_t port, const std::string& driver_name,
                                                const NicOptions& options);

}  // namespace qb::drv::dpdk
