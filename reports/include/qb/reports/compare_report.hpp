// The baseline comparison rendered: a readable table and the "qosbench.compare/1" JSON
// (judge/compare.hpp decides; this only writes).
#pragma once

#include <ostream>
#include <string>

#include "qb/judge/compare.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

/// Readable table, regressions first; at most `max_rows` rows of unflagged metrics.
void print_comparison(const Comparison& comparison, std::ostream& out, size_t max_rows = 20);

/// "qosbench.compare/1" JSON: options, counts, notes and every metric with its repetitions.
std::string comparison_to_json(const Comparison& comparison, int indent = 2);

}  // namespace qb::report
