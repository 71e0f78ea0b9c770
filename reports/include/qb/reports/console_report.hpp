// The console table: per flow and per group expected vs measured, error, latency percentiles,
// fairness and gates. Large scenarios print every group and only the flows that err most.
#pragma once

#include <ostream>

#include "qb/reports/results.hpp"

namespace qb::report {

struct ConsoleOptions {
  size_t max_flows = 32;  // beyond this, show the worst `worst_flows` flows by |error|
  size_t worst_flows = 10;
};

void print_console(const Results& results, std::ostream& out, const ConsoleOptions& options = {});

}  // namespace qb::report
