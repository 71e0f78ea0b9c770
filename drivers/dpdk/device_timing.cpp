#include "device_timing.hpp"

#include <rte_ethdev.h>
#include <rte_mbuf_dyn.h>

#include <chrono>
#include <thread>

namespace qb::drv::dpdk {
namespace {

class RealDeviceOps final : public DeviceOps {
 public:
  std::string driver_name(uint16_t port) override {
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(port, &info) != 0 || info.driver_name == nullptr) return "";
    return info.driver_name;
  }
  uint64_t tx_offload_capa(uint16_t port) override {
    rte_eth_dev_info info{};
    return rte_eth_dev_info_get(port, &info) == 0 ? info.tx_offload_capa : 0;
  }
  uint64_t rx_offload_capa(uint16_t port) override {
    rte_eth_dev_info info{};
    return rte_eth_dev_info_get(port, &info) == 0 ? info.rx_offload_capa : 0;
  }
  int register_tx_timestamp(int* offset, uint64_t* flag) override {
    return rte_mbuf_dyn_tx_timestamp_register(offset, flag);
  }
  int register_rx_timestamp(int* offset, uint64_t* flag) override {
    return rte_mbuf_dyn_rx_timestamp_register(offset, flag);
  }
  int read_clock(uint16_t port, uint64_t* clock) override {
    return rte_eth_read_clock(port, clock);
  }
  std::vector<std::pair<std::string, uint64_t>> xstats(uint16_t port) override {
    std::vector<std::pair<std::string, uint64_t>> out;
    const int n = rte_eth_xstats_get_names(port, nullptr, 0);
    if (n <= 0) return out;
    std::vector<rte_eth_xstat_name> names(static_cast<size_t>(n));
    std::vector<rte_eth_xstat> values(static_cast<size_t>(n));
    if (rte_eth_xstats_get_names(port, names.data(), static_cast<unsigned>(n)) != n ||
        rte_eth_xstats_get(port, values.data(), static_cast<unsigned>(n)) != n) {
      return out;
    }
    for (const rte_eth_xstat& value : values) {
      if (value.id < names.size()) out.emplace_back(names[value.id].name, value.value);
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<DeviceOps> make_device_ops() {
  return std::make_unique<RealDeviceOps>();
}

Result<TimingPlan> plan_timing(DeviceOps& ops, uint16_t tx_port, uint16_t rx_port, bool receive,
                               bool hw_pacing) {
  TimingPlan plan;
  if (hw_pacing) {
    if ((ops.tx_offload_capa(tx_port) & RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP) == 0) {
      const std::string driver = ops.driver_name(tx_port);
      return make_error(
          Errc::not_supported,
          "dpdk: hardware pacing needs a port with send-on-time (SEND_ON_TIMESTAMP); port " +
              std::to_string(tx_port) + " (" + (driver.empty() ? "?" : driver) +
              ") has none. On ConnectX-6 Dx/7 add the devarg tx_pp=<ns> (e.g. -a "
              "0000:03:00.0,tx_pp=500), or set software pacing (hw_pacing = false)",
          "driver.dpdk.hw_pacing");
    }
    if (int rc = ops.register_tx_timestamp(&plan.tx_ts_offset, &plan.tx_ts_flag); rc != 0) {
      return make_error(Errc::runtime, "dpdk: cannot register the mbuf Tx timestamp field (error " +
                                           std::to_string(rc) + ")");
    }
    plan.tx_offloads |= RTE_ETH_TX_OFFLOAD_SEND_ON_TIMESTAMP;
    plan.hw_pacing = true;
  }
  if (receive && (ops.rx_offload_capa(rx_port) & RTE_ETH_RX_OFFLOAD_TIMESTAMP) != 0) {
    // Optional: without the dynfield the host TSC stamps still give latency.
    if (ops.register_rx_timestamp(&plan.rx_ts_offset, &plan.rx_ts_flag) == 0) {
      plan.rx_offloads |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
      plan.rx_hw_timestamps = true;
    }
  }
  plan.clock = "tsc";  // latency is host TSC to host TSC either way (see TimingPlan::clock)
  return plan;
}

nic::CounterSet xstats_counter_set(DeviceOps& ops, uint16_t port) {
  nic::CounterSet set;
  set.source = "dpdk";
  set.values = ops.xstats(port);
  if (set.values.empty()) set.note = "the DPDK port's PMD gives no xstats";
  return set;
}

std::vector<std::pair<std::string, double>> xstats_for_results(DeviceOps& ops, uint16_t port,
                                                               const std::string& port_label) {
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [name, value] : ops.xstats(port)) {
    if (value == 0 && !name.starts_with("tx_pp_")) continue;
    out.emplace_back("xstat." + port_label + "." + name, static_cast<double>(value));
  }
  return out;
}

Result<DeviceClockMap> map_device_clock(DeviceOps& ops, uint16_t port, uint64_t (*read_tsc)()) {
  DeviceClockMap map;
  uint64_t device1 = 0;
  if (ops.read_clock(port, &map.device0) != 0) {
    return make_error(Errc::not_supported, "dpdk: the port has no readable device clock");
  }
  map.tsc0 = read_tsc();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const uint64_t tsc1 = read_tsc();
  if (ops.read_clock(port, &device1) != 0 || tsc1 == map.tsc0 || device1 <= map.device0) {
    return make_error(Errc::not_supported, "dpdk: the device clock does not advance");
  }
  map.device_per_tsc =
      static_cast<double>(device1 - map.device0) / static_cast<double>(tsc1 - map.tsc0);
  return map;
}

}  // namespace qb::drv::dpdk
