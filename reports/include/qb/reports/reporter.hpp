// Reporters: one output format each (console, JSON, HTML, JUnit) over the same results structs,
// interchangeable behind one interface. Each implementation is its own file
// (console_reporter.cpp, json_reporter.cpp, html_reporter.cpp, junit_reporter.cpp); a command
// writes the ReporterList its flags ask for (reporter_list.hpp).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "qb/common/result.hpp"
#include "qb/reports/compare_report.hpp"
#include "qb/reports/console_report.hpp"
#include "qb/reports/html_report.hpp"
#include "qb/reports/results.hpp"
#include "qb/reports/sender_results.hpp"

namespace qb::report {

/// What a command reports.
enum class ReportSubject {
  results,     // run, report: the results, with the baseline comparison when there is one
  comparison,  // compare: the comparison of two results files (`results`: the current one)
  sender,      // run of a send-only driver: what was sent, nothing judged (`results`: its run)
};

/// What a send-only run reports: its results document and the run the console's table is
/// printed from (print_sender_summary).
struct SenderReport {
  const SenderResults& results;
  const engine::SuiteRun& run;
};

/// Why HTML, JUnit and a baseline have nothing to say of a send-only run.
inline constexpr std::string_view kSenderOnlyMeasuresNothing =
    "a sender-only run measures nothing; its receiver's run writes and judges the results";

struct ReportInput {
  const Results& results;
  const Comparison* comparison = nullptr;  // required for ReportSubject::comparison
  ReportSubject subject = ReportSubject::results;
  /// The baseline results the comparison was made from (HTML overlays them); may be null.
  const Results* baseline = nullptr;
  const SenderReport* sender = nullptr;  // required for ReportSubject::sender
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  /// "console", "json", "html", "junit".
  virtual std::string_view name() const = 0;
  /// The whole output, computed without writing anything: a list renders every output before
  /// it writes the first, so bad input writes nothing.
  virtual Result<std::string> render(const ReportInput& input) const = 0;
  /// Why this format has nothing to say of `input` (HTML and JUnit of a sender-only run), or
  /// empty when it renders it. A list writes nothing of a reporter that declines.
  virtual std::optional<std::string> declines(const ReportInput& /*input*/) const {
    return std::nullopt;
  }
};

/// How much the console says: the verdict line only (--quiet), or the tables and the verdict.
enum class ConsoleDetail { verdict, full };

/// results: the table of print_console and, with a comparison, print_comparison after it;
/// comparison: print_comparison. Verdict: "PASSED" / "FAILED" / "REGRESSED" and the like.
/// sender: print_sender_summary; verdict "SENT (sender only, not judged)", naming a starved worker.
std::unique_ptr<Reporter> make_console_reporter(ConsoleDetail detail,
                                                const ConsoleOptions& options = {});
/// results: the results JSON (qosbench.results/1); comparison: qosbench.compare/1;
/// sender: the sender-only results (sender_results_to_json).
std::unique_ptr<Reporter> make_json_reporter();
/// The HTML report of the results, with the comparison when there is one (results and
/// comparison); declines sender.
std::unique_ptr<Reporter> make_html_reporter(const HtmlOptions& options = {});
/// results: one case per gate, plus the comparison's cases; comparison: one case per metric;
/// declines sender.
std::unique_ptr<Reporter> make_junit_reporter();

}  // namespace qb::report
