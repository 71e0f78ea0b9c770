// Which DPDK ports have a NIC state to read, and where.
#include "port_state_hooks.hpp"

#include <net/if.h>
#include <rte_ethdev.h>

#include <cstdio>

namespace qb::drv::dpdk {
namespace {

void print_note(const std::string& text) {
  static std::vector<std::string> printed;
  for (const auto& p : printed) {
    if (p == text) return;
  }
  printed.push_back(text);
  std::fprintf(stderr, "qosbench: dpdk: %s\n", text.c_str());
}

}  // namespace

std::unique_ptr<nic::PortState> open_port_state(uint16_t port, const std::string& driver_name,
                                                const NicOptions& options) {
  if (options.mode == nic::QosMode::off && !options.counters) return nullptr;
  std::string netdev = options.netdev;
  if (options.root.empty()) {
    if (driver_name != "mlx5_pci") return nullptr;
    rte_eth_dev_info info{};
    char name[IF_NAMESIZE] = {};
    if (rte_eth_dev_info_get(port, &info) != 0 || info.if_index == 0 ||
        if_indextoname(info.if_index, name) == nullptr) {
      print_note(
          "the mlx5 port's kernel netdev is not known (no if_index): its QoS and counters "
          "are not read");
      return nullptr;
    }
    netdev = name;
  } else if (netdev.empty()) {
    return nullptr;
  }
  nic::NicSeams seams = nic::system_nic_seams(options.root.empty() ? "/" : options.root);
  const std::string rdma = nic::rdma_device_of_netdev(seams.root, netdev);
  auto state = std::make_unique<nic::PortState>(options.mode, options.counters, std::move(seams),
                                                "driver.dpdk.nic_qos", print_note);
  state->open(rdma, 1, netdev, false);
  return state;
}

}  // namespace qb::drv::dpdk
