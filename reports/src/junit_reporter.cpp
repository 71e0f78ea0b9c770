#include "qb/reports/junit.hpp"
#include "qb/reports/reporter.hpp"

namespace qb::report {
namespace {

class JunitReporter final : public Reporter {
 public:
  std::string_view name() const override { return "junit"; }

  Result<std::string> render(const ReportInput& input) const override {
    if (auto reason = declines(input)) return make_error(Errc::runtime, *reason);
    if (input.subject == ReportSubject::results) {
      return run_junit_xml(input.results, input.comparison);
    }
    if (input.comparison == nullptr) return make_error(Errc::runtime, "no comparison to report");
    return compare_junit_xml(*input.comparison);
  }

  // A sender-only run judges nothing: there is no report of it to give.
  std::optional<std::string> declines(const ReportInput& input) const override {
    if (input.subject != ReportSubject::sender) return std::nullopt;
    return std::string(kSenderOnlyMeasuresNothing);
  }
};

}  // namespace

std::unique_ptr<Reporter> make_junit_reporter() {
  return std::make_unique<JunitReporter>();
}

}  // namespace qb::report
