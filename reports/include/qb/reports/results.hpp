// The reports render the judged results (judge/results.hpp): its types are used here as they are.
#pragma once

#include "qb/judge/results.hpp"

namespace qb::report {
using namespace qb::judge;  // NOLINT(google-build-using-namespace): reports render judge's model
}  // namespace qb::report
