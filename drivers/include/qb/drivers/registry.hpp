// The explicit driver registry (no static self-registration): every driver qosbench knows,
// whether it is available on this build/machine, and why not.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "qb/drivers/driver.hpp"

namespace qb::drv {

struct DriverInfo {
  std::string name;
  std::string description;
  bool available = false;
  std::string unavailable_reason;                   // empty when available
  std::function<std::unique_ptr<Driver>()> create;  // null when unavailable
};

const std::vector<DriverInfo>& driver_registry();

/// The driver by name; Errc::usage for an unknown name, Errc::unavailable (with the reason)
/// for one that is not built or has no device.
Result<std::unique_ptr<Driver>> create_driver(std::string_view name);

}  // namespace qb::drv
