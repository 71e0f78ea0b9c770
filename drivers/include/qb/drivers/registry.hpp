// The explicit driver registry (no static self-registration): every driver qosbench knows,
// whether it is available on this build/machine, and why not.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "qb/drivers/driver.hpp"

namespace qb::drv {

/// What a driver is created with, beyond its name: the suite's per-driver options as the
/// command line amended them. A driver ignores the fields of the others.
struct DriverParams {
  struct Dpdk {
    std::vector<std::string> eal;  // EAL arguments without the program name; empty: EAL defaults
    std::string tx_port;           // ethdev name, PCI address or vdev string; empty: first port
    std::string rx_port;           // empty: the Tx port; "none": do not receive
    std::optional<bool> software_shaper;
    std::optional<bool> hw_pacing;  // mlx5 send-on-time (needs tx_pp=<ns> in the port devargs)
  } dpdk;
};

struct DriverInfo {
  std::string name;
  std::string description;
  bool available = false;
  std::string unavailable_reason;                                      // empty when available
  std::function<std::unique_ptr<Driver>(const DriverParams&)> create;  // null when unavailable
};

const std::vector<DriverInfo>& driver_registry();

/// The driver by name; Errc::usage for an unknown name, Errc::unavailable (with the reason)
/// for one that is not built or has no device.
Result<std::unique_ptr<Driver>> create_driver(std::string_view name,
                                              const DriverParams& params = {});

}  // namespace qb::drv
