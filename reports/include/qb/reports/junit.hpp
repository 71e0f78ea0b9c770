// JUnit XML for CI systems: one <testcase> per gate (classname "<suite>.<scenario>", name the
// gate) and, with a baseline comparison, one per compared metric (classname
// "<suite>.<scenario>.compare"), failing on a regression. Write it with write_file_atomically.
#pragma once

#include <string>
#include <string_view>

#include "qb/reports/compare_report.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

/// `run`: gates of every scenario (an incomplete run adds a "complete" case in error), plus the
/// comparison's cases when `comparison` is given.
std::string run_junit_xml(const Results& results, const Comparison* comparison = nullptr);

/// `compare`: one case per compared metric.
std::string compare_junit_xml(const Comparison& comparison);

/// Text and attribute values: the five markup characters as entities, tab/newline/CR as
/// character references (kept in attributes), other control characters and invalid UTF-8 as
/// U+FFFD (XML 1.0 cannot carry them at all).
std::string xml_escape(std::string_view text);

}  // namespace qb::report
