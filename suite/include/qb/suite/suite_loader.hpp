// Loads a suite from TOML (TOML++). Every key is checked: unknown keys, wrong types, bad units
// and out-of-range values are Errc::invalid_config errors carrying the file, line, column and
// key path. Semantic checks of the QoS sections happen later, in compile_scenario().
#pragma once

#include <string>
#include <string_view>

#include "qb/common/result.hpp"
#include "qb/suite/suite.hpp"

namespace qb::suite {

/// A path that cannot be opened or read is Errc::usage (the command line named it).
Result<Suite> load_suite_file(const std::string& path);
/// `source_name` is used in error locations (normally the file path).
Result<Suite> load_suite_string(std::string_view toml_text, const std::string& source_name);

}  // namespace qb::suite
