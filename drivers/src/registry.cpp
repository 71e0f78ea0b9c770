// The explicit driver registry. A driver joins by a line here (no static self-registration).
#include "qb/drivers/registry.hpp"

#include "qb/drivers/sim_driver.hpp"

namespace qb::drv {

const std::vector<DriverInfo>& driver_registry() {
  static const std::vector<DriverInfo> registry = [] {
    std::vector<DriverInfo> drivers;
    drivers.push_back(DriverInfo{
        "sim",
        "discrete-event model of an mlx5 port: send queues, the scheduling tree (DWRR + caps), "
        "link serialisation with wire overheads, propagation; virtual time, deterministic",
        true, "", [] { return make_sim_driver(); }});
    drivers.push_back(DriverInfo{"dpdk",
                                 "kernel-bypass Ethernet traffic through DPDK (net_mlx5, or "
                                 "net_null/net_ring/net_af_xdp without a NIC)",
                                 false, "not built: the DPDK driver is not part of this build yet",
                                 nullptr});
    drivers.push_back(
        DriverInfo{"verbs", "RDMA RC QPs through rdma-core with the mlx5dv_sched tree", false,
                   "not built: the verbs driver is not part of this build yet", nullptr});
    return drivers;
  }();
  return registry;
}

Result<std::unique_ptr<Driver>> create_driver(std::string_view name) {
  std::string known;
  for (const DriverInfo& info : driver_registry()) {
    if (info.name == name) {
      if (!info.available || !info.create) {
        return make_error(Errc::unavailable,
                          "driver '" + info.name + "' is unavailable: " + info.unavailable_reason);
      }
      return info.create();
    }
    known += known.empty() ? info.name : ", " + info.name;
  }
  return make_error(Errc::usage,
                    "unknown driver '" + std::string(name) + "' (known drivers: " + known + ")");
}

}  // namespace qb::drv
