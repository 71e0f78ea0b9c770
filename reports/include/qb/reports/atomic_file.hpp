// Writes a file so that readers see either the old file or the whole new one, never half:
// write to a temporary file in the same directory, fsync, then rename over the target.
#pragma once

#include <string>
#include <string_view>

#include "qb/common/result.hpp"

namespace qb::report {

Status write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace qb::report
