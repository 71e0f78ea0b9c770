// The EAL every DPDK test in this executable shares (one EAL per process): no hugepages, no
// PCI, one core, and the software ports the tests use.
#pragma once

#include <string>
#include <vector>

#include "qb/drivers/dpdk_driver.hpp"

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

}  // namespace qb::drv::test
