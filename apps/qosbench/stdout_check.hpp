// A command's output is its result: when standard output cannot take it (a full disk,
// /dev/full, a closed pipe), the command fails with exit 3 instead of exiting 0 having said
// nothing.
#pragma once

#include <functional>

namespace qb::cli {

/// Runs `command`, then flushes standard output; a write error (reported by the stream or thrown
/// by fmt) is printed on stderr and the exit code becomes 3.
int with_checked_stdout(const std::function<int()>& command);

}  // namespace qb::cli
