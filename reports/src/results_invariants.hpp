// What the results writer guarantees, checked when a file is read back: an edited or corrupt
// file fails here (exit 2 naming the field) instead of being drawn or compared as if measured.
#pragma once

#include <string>

#include "qb/common/result.hpp"
#include "qb/judge/results.hpp"

namespace qb::report {

/// Errc::invalid_config with the field's path ("scenarios[0].repetitions_partial") and the
/// source file, for the first invariant broken; ok otherwise.
Status check_results_invariants(const judge::Results& results, const std::string& source_name);

}  // namespace qb::report
