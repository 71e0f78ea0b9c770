// Which outputs each command writes, from its flags: the request reports/ turns into the
// command's ReporterList (reports/reporter_list.hpp).
#pragma once

#include "commands.hpp"
#include "qb/common/result.hpp"
#include "qb/reports/reporter_list.hpp"

namespace qb::cli {

/// run with several suite files: one RunArgs per suite, in order, each writing
/// DIR/<suite file name>.json under --out DIR. Errc::usage when a flag names one file
/// (--json, --html, --junit, --baseline) or two suites would write one file.
Result<std::vector<RunArgs>> runs_of_suites(const RunArgs& args);

/// run: --json (or, without it, --out DIR: DIR/results.json, the directory created here),
/// --html, --junit; the console table, or the verdict line with --quiet.
Result<report::OutputRequest> run_outputs(const RunArgs& args);

/// report: the HTML page (-o); nothing on the console.
report::OutputRequest report_outputs(const ReportArgs& args);

/// compare: --json, --junit, --html; the comparison table, or the verdict line with --quiet.
report::OutputRequest compare_outputs(const CompareArgs& args);

}  // namespace qb::cli
