// A send-only run goes through the same reporters as any other (ReportSubject::sender): the JSON
// reporter writes the sender-only results document, the console its table or the "SENT" verdict
// line, and HTML and JUnit decline it with a note, writing nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "qb/reports/reporter_list.hpp"
#include "qb/reports/sender_results.hpp"
#include "qb/reports/sender_summary.hpp"
#include "sender_fixture.hpp"

namespace qb::report {
namespace {

using testing::sender_only_run;
using testing::sender_only_suite;
using testing::SenderCounts;

// A send-only run that posted `posted` messages; `lost_fraction` of the worker's time lost to
// other processes.
engine::SuiteRun sender_run(const suite::Suite& suite, uint64_t posted, double lost_fraction) {
  return sender_only_run(suite, SenderCounts{posted, 1000.0, 1'000'000.0, lost_fraction});
}

RunMetadata metadata() {
  RunMetadata m;
  m.tool_version = "0.1.0";
  m.host = "vm";
  m.date_utc = "2026-11-27T14:18:01Z";
  return m;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(SenderReporter, AListWritesTheSenderResultsAndTableAndDeclinesHtmlAndJunit) {
  const suite::Suite suite = sender_only_suite();
  const engine::SuiteRun run = sender_run(suite, 1000, 0.0);
  const SenderResults sent = sender_results(suite, run, metadata());
  const SenderReport sender{sent, run};
  const ReportInput input{sent.run, nullptr, ReportSubject::sender, nullptr, &sender};

  const std::string dir = ::testing::TempDir() + "/sender_reporter";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  OutputRequest request;
  request.files = {{OutputFormat::json, dir + "/tx.json"},
                   {OutputFormat::html, dir + "/tx.html"},
                   {OutputFormat::junit, dir + "/tx.xml"}};
  request.console = ConsoleDetail::full;
  std::ostringstream console;
  const ReporterList list = reporters_for(request, console);

  const auto declined = list.declined(input);
  ASSERT_EQ(declined.size(), 2u);
  EXPECT_EQ(declined[0].reporter, "html");
  EXPECT_EQ(declined[1].reporter, "junit");
  for (const auto& d : declined) EXPECT_EQ(d.reason, kSenderOnlyMeasuresNothing);

  const auto written = list.write(input);
  ASSERT_TRUE(written) << written.error().to_string();
  EXPECT_EQ(read_file(dir + "/tx.json"), sender_results_to_json(sent));
  EXPECT_EQ(read_file(dir + "/tx.json"), sender_results_json(suite, run, metadata()));
  EXPECT_FALSE(std::filesystem::exists(dir + "/tx.html"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/tx.xml"));
  std::ostringstream table;
  print_sender_summary(run, table);
  EXPECT_EQ(console.str(), table.str());
  EXPECT_NE(console.str().find("sender only (driver dpdk, clock tsc)"), std::string::npos);

  // HTML and JUnit asked for it directly refuse it rather than write an empty report.
  EXPECT_FALSE(make_html_reporter()->render(input));
  EXPECT_FALSE(make_junit_reporter()->render(input));
  // Nothing declines the run's results.
  const ReportInput results_input{sent.run};
  EXPECT_TRUE(list.declined(results_input).empty());
  std::filesystem::remove_all(dir);
}

TEST(SenderReporter, QuietConsoleSaysSentAndNamesAStarvedWorker) {
  const suite::Suite suite = sender_only_suite();
  for (const auto& [lost, expected] :
       {std::pair{0.0, "SENT (sender only, not judged)\n"},
        std::pair{0.5,
                  "SENT (sender only, not judged); a worker was starved of CPU: invalid "
                  "measurement\n"}}) {
    const engine::SuiteRun run = sender_run(suite, 1000, lost);
    const SenderResults sent = sender_results(suite, run, metadata());
    const SenderReport sender{sent, run};
    const ReportInput input{sent.run, nullptr, ReportSubject::sender, nullptr, &sender};
    auto line = make_console_reporter(ConsoleDetail::verdict)->render(input);
    ASSERT_TRUE(line) << line.error().to_string();
    EXPECT_EQ(*line, expected);
    EXPECT_EQ(sender_starved_invalid(run), lost > 0.0);
  }
  // Asked for a sender report there is none of: an error, not an empty file.
  const Results empty;
  const ReportInput nothing{empty, nullptr, ReportSubject::sender};
  EXPECT_FALSE(make_json_reporter()->render(nothing));
  EXPECT_FALSE(make_console_reporter(ConsoleDetail::full)->render(nothing));
}

}  // namespace
}  // namespace qb::report
