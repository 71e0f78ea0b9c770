// The explicit driver registry. A driver joins by a line here (no static self-registration).
#include "qb/drivers/registry.hpp"

#include "qb/drivers/sim_driver.hpp"
#ifdef QB_HAVE_DPDK
#include "qb/drivers/dpdk_driver.hpp"
#endif

namespace qb::drv {
namespace {

#ifdef QB_HAVE_DPDK
std::unique_ptr<Driver> make_dpdk(const DriverParams& params) {
  DpdkConfig config;
  config.eal_args = params.dpdk.eal;
  config.tx_port = params.dpdk.tx_port;
  config.rx_port = params.dpdk.rx_port;
  if (params.dpdk.software_shaper) config.software_shaper = *params.dpdk.software_shaper;
  if (params.dpdk.hw_pacing) config.hw_pacing = *params.dpdk.hw_pacing;
  return make_dpdk_driver(std::move(config));
}
#endif

}  // namespace

const std::vector<DriverInfo>& driver_registry() {
  static const std::vector<DriverInfo> registry = [] {
    std::vector<DriverInfo> drivers;
    drivers.push_back(DriverInfo{
        "sim",
        "discrete-event model of an mlx5 port: send queues, the scheduling tree (DWRR + caps), "
        "link serialisation with wire overheads, propagation; virtual time, deterministic",
        true, "", [](const DriverParams&) { return make_sim_driver(); }});
    const char* dpdk_description =
        "kernel-bypass Ethernet traffic through DPDK (net_mlx5, or net_null/net_ring/net_af_xdp "
        "without a NIC)";
#ifdef QB_HAVE_DPDK
    drivers.push_back(DriverInfo{"dpdk", dpdk_description, true, "", make_dpdk});
#else
    drivers.push_back(DriverInfo{"dpdk", dpdk_description, false,
                                 "not built: the DPDK driver is not part of this build yet",
                                 nullptr});
#endif
    drivers.push_back(
        DriverInfo{"verbs", "RDMA RC QPs through rdma-core with the mlx5dv_sched tree", false,
                   "not built: the verbs driver is not part of this build yet", nullptr});
    return drivers;
  }();
  return registry;
}

Result<std::unique_ptr<Driver>> create_driver(std::string_view name, const DriverParams& params) {
  std::string known;
  for (const DriverInfo& info : driver_registry()) {
    if (info.name == name) {
      if (!info.available || !info.create) {
        return make_error(Errc::unavailable,
                          "driver '" + info.name + "' is unavailable: " + info.unavailable_reason);
      }
      return info.create(params);
    }
    known += known.empty() ? info.name : ", " + info.name;
  }
  return make_error(Errc::usage,
                    "unknown driver '" + std::string(name) + "' (known drivers: " + known + ")");
}

}  // namespace qb::drv
