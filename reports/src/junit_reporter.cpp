#include "qb/reports/junit.hpp"
#include "qb/reports/reporter.hpp"

namespace qb::report {
namespace {

class JunitReporter final : public Reporter {
 public:
  std::string_view name() const override { return "junit"; }

  Result<std::string> render(const ReportInput& input) const override {
    if (input.subject == ReportSubject::results) {
      return run_junit_xml(input.results, input.comparison);
    }
    if (input.comparison == nullptr) return make_error(Errc::runtime, "no comparison to report");
    return compare_junit_xml(*input.comparison);
  }
};

}  // namespace

std::unique_ptr<Reporter> make_junit_reporter() {
  return std::make_unique<JunitReporter>();
}

}  // namespace qb::report
