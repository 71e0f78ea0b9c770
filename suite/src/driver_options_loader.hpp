// Reads the per-driver option tables under [driver] ([driver.dpdk]); kept apart from the suite
// loader so driver options grow without touching the QoS sections.
#pragma once

#include "qb/suite/suite.hpp"
#include "toml_reader.hpp"

namespace qb::suite::detail {

/// `driver` is the [driver] table's reader; fails (ConfigError) like every other section.
void read_driver_options(const TableReader& driver, DriverOptions& options);

}  // namespace qb::suite::detail
