// A diagnostic that does not stop the run (a tree that cannot be met, a key that means little on
// this port): printed as "file:line:col: warning: where: message" and kept in the results.
#pragma once

#include <string>

#include "qb/common/result.hpp"

namespace qb {

struct Warning {
  std::string message;
  std::string where;  // config key path, empty when not about a key
  SourceLoc loc;
};

}  // namespace qb
