#include "qb/reports/reporter.hpp"

namespace qb::report {
namespace {

class HtmlReporter final : public Reporter {
 public:
  explicit HtmlReporter(const HtmlOptions& options) : options_(options) {}

  std::string_view name() const override { return "html"; }

  // The page is about the results either way; a comparison adds its section and verdict.
  Result<std::string> render(const ReportInput& input) const override {
    if (auto reason = declines(input)) return make_error(Errc::runtime, *reason);
    return render_html_report(input.results, input.comparison, options_, input.baseline);
  }

  // A sender-only run judges nothing: there is no report of it to give.
  std::optional<std::string> declines(const ReportInput& input) const override {
    if (input.subject != ReportSubject::sender) return std::nullopt;
    return std::string(kSenderOnlyMeasuresNothing);
  }

 private:
  HtmlOptions options_;
};

}  // namespace

std::unique_ptr<Reporter> make_html_reporter(const HtmlOptions& options) {
  return std::make_unique<HtmlReporter>(options);
}

}  // namespace qb::report
