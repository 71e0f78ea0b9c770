// Reporters as interchangeable sinks: every flag of a command yields its reporter, each reporter
// renders what its format's renderer renders, and a list writes nothing unless every output
// rendered, files before the console.
#include "qb/reports/reporter_list.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "qb/reports/compare_report.hpp"
#include "qb/reports/console_report.hpp"
#include "qb/reports/html_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/junit.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/reporter_list_" + name;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string render(const Reporter& reporter, const ReportInput& input) {
  auto output = reporter.render(input);
  EXPECT_TRUE(output) << output.error().to_string();
  return output ? *output : std::string();
}

Comparison regression() {
  auto compared = compare_results(testing::sample_results(5), testing::sample_results(5, 0.9), {});
  EXPECT_TRUE(compared) << compared.error().to_string();
  return *compared;
}

// A reporter that cannot render: stands for any output that fails before anything is written.
class FailingReporter final : public Reporter {
 public:
  std::string_view name() const override { return "failing"; }
  Result<std::string> render(const ReportInput&) const override {
    return make_error(Errc::runtime, "cannot render");
  }
};

TEST(ReporterList, EachFlagYieldsItsReporterInTheGivenOrder) {
  std::ostringstream console;
  OutputRequest request;
  request.files = {{OutputFormat::junit, "j.xml"},
                   {OutputFormat::json, "r.json"},
                   {OutputFormat::html, ""},  // flag not given
                   {OutputFormat::html, "r.html"}};
  request.console = ConsoleDetail::verdict;
  const ReporterList list = reporters_for(request, console);
  const auto& entries = list.entries();
  ASSERT_EQ(entries.size(), 4u);
  EXPECT_EQ(entries[0].reporter->name(), "junit");
  EXPECT_EQ(entries[0].path, "j.xml");
  EXPECT_EQ(entries[1].reporter->name(), "json");
  EXPECT_EQ(entries[1].path, "r.json");
  EXPECT_EQ(entries[2].reporter->name(), "html");
  EXPECT_EQ(entries[2].path, "r.html");
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(entries[i].stream, nullptr);
  EXPECT_EQ(entries[3].reporter->name(), "console");
  EXPECT_EQ(entries[3].stream, &console);
  EXPECT_EQ(request.path_of(OutputFormat::html), "r.html");
  EXPECT_EQ(request.path_of(OutputFormat::json), "r.json");

  request.console.reset();
  request.files.clear();
  EXPECT_TRUE(reporters_for(request, console).entries().empty());
  EXPECT_EQ(request.path_of(OutputFormat::json), "");
}

TEST(ReporterList, ReportersRenderTheResultsAsTheirFormatDoes) {
  const Results results = testing::sample_results(5);
  const Comparison comparison = regression();
  for (const Comparison* compared : {static_cast<const Comparison*>(nullptr), &comparison}) {
    const ReportInput input{results, compared};
    EXPECT_EQ(render(*make_json_reporter(), input), results_to_json(results));
    EXPECT_EQ(render(*make_html_reporter(), input), render_html_report(results, compared));
    EXPECT_EQ(render(*make_junit_reporter(), input), run_junit_xml(results, compared));
    std::ostringstream table;
    print_console(results, table);
    if (compared != nullptr) {
      table << "\n";
      print_comparison(*compared, table);
    }
    EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::full), input), table.str());
  }
  EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::verdict), {results}), "FAILED\n");
  EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::verdict), {results, &comparison}),
            "FAILED (regression against the baseline)\n");
  Results passed = results;
  passed.passed = true;
  for (auto& scenario : passed.scenarios) {
    scenario.passed = true;
    for (auto& gate : scenario.gates) gate.passed = true;
  }
  EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::verdict), {passed}), "PASSED\n");
  // The one line says no more than the verdict: nothing measured is not "FAILED" or "PASSED".
  Results unmeasured = passed;
  for (auto& scenario : unmeasured.scenarios) {
    scenario.repetitions_completed = 0;
    scenario.repetitions_partial = 0;
  }
  EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::verdict), {unmeasured}), "NOT JUDGED\n");
}

TEST(ReporterList, ReportersRenderAComparisonAsTheirFormatDoes) {
  const Results current = testing::sample_results(5, 0.9);
  const Comparison comparison = regression();
  const ReportInput input{current, &comparison, ReportSubject::comparison};
  EXPECT_EQ(render(*make_json_reporter(), input), comparison_to_json(comparison));
  EXPECT_EQ(render(*make_junit_reporter(), input), compare_junit_xml(comparison));
  EXPECT_EQ(render(*make_html_reporter(), input), render_html_report(current, &comparison));
  std::ostringstream table;
  print_comparison(comparison, table);
  EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::full), input), table.str());
  EXPECT_EQ(render(*make_console_reporter(ConsoleDetail::verdict), input), "REGRESSED\n");

  // Asked for a comparison there is none of: an error, not an empty file.
  const ReportInput nothing{current, nullptr, ReportSubject::comparison};
  EXPECT_FALSE(make_json_reporter()->render(nothing));
  EXPECT_FALSE(make_junit_reporter()->render(nothing));
  EXPECT_FALSE(make_console_reporter(ConsoleDetail::full)->render(nothing));
}

TEST(ReporterList, WritesEveryFileAtomicallyThenTheConsole) {
  const Results results = testing::sample_results(5);
  const std::string json = temp_path("written.json"), junit = temp_path("written.xml");
  std::filesystem::remove(json);
  std::filesystem::remove(junit);
  std::ostringstream console;
  OutputRequest request;
  request.files = {{OutputFormat::json, json}, {OutputFormat::junit, junit}};
  request.console = ConsoleDetail::verdict;
  const auto written = reporters_for(request, console).write({results});
  ASSERT_TRUE(written) << written.error().to_string();
  EXPECT_EQ(read_file(json), results_to_json(results));
  EXPECT_EQ(read_file(junit), run_junit_xml(results));
  EXPECT_EQ(console.str(), "FAILED\n");
  // No temporary file left beside the outputs.
  for (const auto& entry : std::filesystem::directory_iterator(::testing::TempDir())) {
    const std::string file = entry.path().filename().string();
    EXPECT_FALSE(file.starts_with("reporter_list_written") &&
                 file.find(".tmp.") != std::string::npos)
        << file;
  }
  std::filesystem::remove(json);
  std::filesystem::remove(junit);
}

TEST(ReporterList, NothingIsWrittenWhenOneReporterFailsToRender) {
  const Results results = testing::sample_results(5);
  const std::string fresh = temp_path("fresh.json"), existing = temp_path("existing.html");
  std::filesystem::remove(fresh);
  std::ofstream(existing) << "the old report";
  std::ostringstream console;
  ReporterList list;
  list.add_file(make_json_reporter(), fresh);
  list.add_stream(make_console_reporter(ConsoleDetail::full), console);
  list.add_file(make_html_reporter(), existing);
  list.add_file(std::make_unique<FailingReporter>(), temp_path("failing.out"));
  const auto written = list.write({results});
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().message, "cannot render");
  EXPECT_FALSE(std::filesystem::exists(fresh));
  EXPECT_EQ(read_file(existing), "the old report");
  EXPECT_FALSE(std::filesystem::exists(temp_path("failing.out")));
  EXPECT_EQ(console.str(), "");
  std::filesystem::remove(existing);
}

TEST(ReporterList, AFileThatCannotBeWrittenStopsBeforeTheConsole) {
  const Results results = testing::sample_results(5);
  std::ostringstream console;
  ReporterList list;
  list.add_stream(make_console_reporter(ConsoleDetail::verdict), console);  // added first
  list.add_file(make_json_reporter(), temp_path("no/such/dir/r.json"));
  const auto written = list.write({results});
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, Errc::io);
  EXPECT_EQ(console.str(), "");
}

}  // namespace
}  // namespace qb::report
