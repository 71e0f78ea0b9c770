// The exception a parser throws for bad input; caught at the parse boundary and turned into the
// Error (Errc::invalid_config, key path, file:line:col) that the caller returns.
#pragma once

#include "qb/common/result.hpp"

namespace qb {

struct ConfigError {
  Error error;
};

namespace config {
using qb::ConfigError;
}  // namespace config

}  // namespace qb
