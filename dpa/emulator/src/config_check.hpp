// The emulator's config check (Emulator::configure): what a config must satisfy before any
// state changes.
#pragma once

#include <cstdint>
#include <vector>

#include "qb/dpa/emulator.hpp"

namespace qb::dpa {

/// Throws std::invalid_argument naming the first field that is wrong; returns the parameter
/// block the program will see (config.params, or every default when it is empty).
std::vector<int64_t> check_config(const EmulatorConfig& config);

}  // namespace qb::dpa
