// What the results record about a run beyond its measurements. Passed into judge() so that
// judging is a pure comparison (it reads neither the clock nor the host name).
#pragma once

#include <string>
#include <vector>

#include "qb/common/warning.hpp"

namespace qb::judge {

struct RunMetadata {
  std::string tool_version;
  std::string host;
  std::string date_utc;           // ISO 8601
  std::vector<Warning> warnings;  // from compiling the suite (its load warnings are in the Suite)
};

/// This build's version, this host, now (UTC), with `warnings`.
RunMetadata current_run_metadata(std::vector<Warning> warnings = {});

}  // namespace qb::judge
