#include "qb/reports/json_results.hpp"
#include "qb/reports/reporter.hpp"
#include "qb/reports/sender_results.hpp"

namespace qb::report {
namespace {

class JsonReporter final : public Reporter {
 public:
  std::string_view name() const override { return "json"; }

  Result<std::string> render(const ReportInput& input) const override {
    if (input.subject == ReportSubject::results) return results_to_json(input.results);
    if (input.subject == ReportSubject::sender) {
      if (input.sender == nullptr) return make_error(Errc::runtime, "no sender results to report");
      return sender_results_to_json(input.sender->results);
    }
    if (input.comparison == nullptr) return make_error(Errc::runtime, "no comparison to report");
    return comparison_to_json(*input.comparison);
  }
};

}  // namespace

std::unique_ptr<Reporter> make_json_reporter() {
  return std::make_unique<JsonReporter>();
}

}  // namespace qb::report
