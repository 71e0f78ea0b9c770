// The text of a live interval, iperf3 `-i` style: one line per [[flow]] entry and a total,
// tagged with the scenario and repetition (repetitions can run side by side), the interval's
// span in the measured window, goodput (payload), wire rate (preamble and gap included) and
// packets/s. Colour only when asked for (a terminal without NO_COLOR).
#pragma once

#include <string>
#include <vector>

#include "qb/engine/live.hpp"
#include "qb/reports/console_report.hpp"

namespace qb::cli {

/// What the lines call a scenario's parts (names already made terminal-safe).
struct IntervalLabels {
  std::string scenario;
  uint32_t repetitions = 1;
  std::vector<std::string> groups;  // per [[flow]] entry
  int64_t interval_ns = 0;          // the nominal interval: picks the time unit
};

struct IntervalStyle {
  bool colour = false;
  report::RateUnit unit = report::RateUnit::gbit_per_s;
};

/// The lines of one interval (no trailing newlines). The repetition's first interval starts
/// with a line saying what the columns are.
std::vector<std::string> interval_lines(const engine::LiveInterval& interval,
                                        const IntervalLabels& labels, const IntervalStyle& style);

/// NO_COLOR (https://no-color.org): set and not empty turns colour off.
bool colour_allowed();

}  // namespace qb::cli
