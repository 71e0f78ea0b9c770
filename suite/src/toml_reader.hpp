// The suite loader reads TOML through qb::config's located readers (common/toml_reader.hpp).
#pragma once

#include "qb/common/toml_reader.hpp"

namespace qb::suite::detail {
using namespace qb::config;  // NOLINT(google-build-using-namespace): the loaders' vocabulary
}  // namespace qb::suite::detail
