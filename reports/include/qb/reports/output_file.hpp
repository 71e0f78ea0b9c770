// Where an output file (--json, --html, --junit, report -o) goes. A regular file or a new path is
// replaced atomically (write_file_atomically); a device, FIFO or socket is written through, never
// replaced (/dev/null and /dev/full stay devices); "-", /dev/stdout and /dev/stderr write to the
// process's own descriptor; a symbolic link is followed, so its target is written, not the link.
#pragma once

#include <string>
#include <string_view>

#include "qb/common/result.hpp"

namespace qb::report {

Status write_output_file(const std::string& path, std::string_view contents);

}  // namespace qb::report
