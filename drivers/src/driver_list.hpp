// The drivers of this build, in qb_add_driver() order; defined in the generated driver_list.cpp.
#pragma once

#include <vector>

#include "qb/drivers/registry.hpp"

namespace qb::drv::detail {

std::vector<DriverEntry> listed_drivers();

}  // namespace qb::drv::detail
