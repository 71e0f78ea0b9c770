// Which outputs each command writes, from its flags: the request reports/ turns into the
// command's ReporterList (reports/reporter_list.hpp).
#pragma once

#include "commands.hpp"
#include "qb/common/result.hpp"
#include "qb/reports/reporter_list.hpp"

namespace qb::cli {

/// run: --json (or, without it, --out DIR: DIR/results.json, the directory created here),
/// --html, --junit; the console table, or the verdict line with --quiet.
Result<report::OutputRequest> run_outputs(const RunArgs& args);

/// report: the HTML page (-o); nothing on the console.
report::OutputRequest report_outputs(const ReportArgs& args);

/// compare: --json, --junit, --html; the comparison table, or the verdict line with --quiet.
report::OutputRequest compare_outputs(const CompareArgs& args);

}  // namespace qb::cli
