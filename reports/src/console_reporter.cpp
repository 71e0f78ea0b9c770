#include <sstream>

#include "qb/judge/verdict.hpp"
#include "qb/reports/reporter.hpp"
#include "qb/reports/sender_summary.hpp"
#include "qb/judge/starvation_verdict.hpp"

namespace qb::report {
namespace {

// --quiet: the verdict's own first words ("PASSED", "FAILED", "NOT JUDGED", "INTERRUPTED"), so
// the one line never says more than was judged.
std::string quiet_verdict(const judge::Results& results) {
  const std::string summary = judge::verdict_of(results).summary;
  const size_t colon = summary.find(':');
  std::string head = colon == std::string::npos ? summary : summary.substr(0, colon);
  if (head.starts_with("INTERRUPTED, and FAILED")) head = "INTERRUPTED, FAILED";
  return head + "\n";
}

}  // namespace
namespace {

class ConsoleReporter final : public Reporter {
 public:
  ConsoleReporter(ConsoleDetail detail, const ConsoleOptions& options)
      : detail_(detail), options_(options) {}

  std::string_view name() const override { return "console"; }

  Result<std::string> render(const ReportInput& input) const override {
    const Comparison* comparison = input.comparison;
    const bool compare_failed = comparison != nullptr && comparison->failed();
    if (input.subject == ReportSubject::comparison) {
      if (comparison == nullptr) return make_error(Errc::runtime, "no comparison to report");
      if (detail_ == ConsoleDetail::verdict) return std::string(comparison->verdict()) + "\n";
      std::ostringstream out;
      print_comparison(*comparison, out);
      return out.str();
    }
    if (input.subject == ReportSubject::sender) {
      if (input.sender == nullptr) return make_error(Errc::runtime, "no sender results to report");
      if (detail_ == ConsoleDetail::verdict) {
        return std::string("SENT (sender only, not judged)") +
               (sender_starved_invalid(input.sender->run)
                    ? "; a worker was starved of CPU: invalid measurement\n"
                    : "\n");
      }
      std::ostringstream out;
      print_sender_summary(input.sender->run, out);
      return out.str();
    }
    if (detail_ == ConsoleDetail::verdict) {
      if (starved_invalid(input.results)) {
        return std::string("FAILED (invalid measurement: a worker was starved of CPU)\n");
      }
      if (!compare_failed) return quiet_verdict(input.results);
      return std::string(comparison->regressed() ? "FAILED (regression against the baseline)\n"
                                                 : "FAILED (inconclusive against the baseline)\n");
    }
    std::ostringstream out;
    print_console(input.results, out, options_);
    if (comparison != nullptr) {
      out << "\n";
      print_comparison(*comparison, out);
    }
    return out.str();
  }

 private:
  ConsoleDetail detail_;
  ConsoleOptions options_;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(ConsoleDetail detail,
                                                const ConsoleOptions& options) {
  return std::make_unique<ConsoleReporter>(detail, options);
}

}  // namespace qb::report
