// The console table: per flow and per group expected vs measured, error, latency percentiles,
// fairness and gates. Large scenarios print every group and only the flows that err most.
#pragma once

#include <optional>
#include <ostream>
#include <string_view>

#include "qb/reports/results.hpp"

namespace qb::report {

/// The unit of the console's rate columns (`--units`), as perftest's --report_gbits and iperf3's
/// -f pick theirs. The JSON always keeps bit/s.
enum class RateUnit {
  gbit_per_s,   // Gbit/s (10^9 bit/s)
  gbyte_per_s,  // GB/s (10^9 byte/s)
  mpps,         // 10^6 packets/s
};

/// "gbit", "Gbit/s", "gbyte", "GB/s", "mpps", "Mpps" (any case); empty when none of them.
std::optional<RateUnit> parse_rate_unit(std::string_view text);

struct ConsoleOptions {
  size_t max_flows = 32;  // beyond this, show the worst `worst_flows` flows by |error|
  size_t worst_flows = 10;
  RateUnit units = RateUnit::gbit_per_s;
};

void print_console(const Results& results, std::ostream& out, const ConsoleOptions& options = {});

}  // namespace qb::report
