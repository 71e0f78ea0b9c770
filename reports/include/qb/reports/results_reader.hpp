// Reads a results JSON file ("qosbench.results/1", docs/results-schema.md) back into Results,
// so that `report` and `compare` work from files only. Strict: a file that is not JSON, is
// truncated, has another schema or lacks a field is Errc::invalid_config, with the file (and,
// for a bad field, its JSON path such as "scenarios[0].flows[3].measured_bps") in the Error.
#pragma once

#include <string>
#include <string_view>

#include "qb/common/result.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

/// `source_name` names the input in errors (a path, or "<stdin>").
Result<Results> results_from_json(std::string_view text, const std::string& source_name);

/// An unreadable file is Errc::invalid_config as well: the user named a bad input (exit 2).
Result<Results> read_results_file(const std::string& path);

}  // namespace qb::report
