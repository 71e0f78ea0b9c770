// Where the command line's output goes: stdout write errors are exit 3 with a message (never an
// abort, never exit 0 with nothing written), output paths that are devices or links are written
// through, not replaced (/dev/null and /dev/full stay character devices even as root), an
// unreadable opensm.conf is exit 2 naming it, control characters in names reach the terminal
// escaped, and a series bin coarsened to bound the results is said and recorded.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "process.hpp"
#include "process_stdout.hpp"
#include "one_flow_suite.hpp"

namespace qb::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kTwoGroups = QB_SOURCE_DIR "/configs/mlx5_two_groups.toml";
const std::string kIbDocExample = QB_SOURCE_DIR "/configs/ib_opensm_doc_example.toml";

std::string small_suite(const std::string& flow_name) {
  OneFlow suite;
  suite.name = "outputs";
  suite.duration = "2ms";
  suite.flow = flow_name;
  return one_flow_suite(suite);
}

void expect_stdout_error(const Outcome& outcome) {
  EXPECT_EQ(outcome.exit_code, 3) << outcome.err;
  EXPECT_NE(outcome.err.find("cannot write to standard output"), std::string::npos) << outcome.err;
}

TEST(OutputCli, ExplainJsonToAFullDeviceIsExitThreeNotAnAbort) {
  expect_stdout_error(run_qosbench_stdout_to("/dev/full", {"explain", kTwoGroups, "--json"}));
}

TEST(OutputCli, ExplainTextToAFullDeviceIsExitThree) {
  expect_stdout_error(run_qosbench_stdout_to("/dev/full", {"explain", kTwoGroups}));
}

TEST(OutputCli, ImportOpensmToAFullDeviceIsExitThree) {
  const std::string conf = QB_SOURCE_DIR "/configs/opensm/doc-example.conf";
  expect_stdout_error(
      run_qosbench_stdout_to("/dev/full", {"import-opensm", "--opensm-conf", conf, "--json"}));
}

TEST(OutputCli, RunToAFullDeviceIsExitThree) {
  const std::string suite = write_temp("qb_outputs_full.toml", small_suite("f"));
  expect_stdout_error(run_qosbench_stdout_to("/dev/full", {"run", suite, "--quiet"}));
}

TEST(OutputCli, UnreadableOpensmConfIsExitTwoNamingIt) {
  const std::string dir = ::testing::TempDir() + "/qb_outputs_conf_dir";
  fs::create_directories(dir);
  const Outcome outcome = run_qosbench({"import-opensm", "--opensm-conf", dir, "--json"});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.out;
  EXPECT_EQ(outcome.out, "");
  EXPECT_NE(outcome.err.find(dir), std::string::npos) << outcome.err;
}

TEST(OutputCli, SuiteWithAnUnreadableOpensmConfIsExitTwoNamingIt) {
  std::ifstream in(kIbDocExample);
  std::stringstream text;
  text << in.rdbuf();
  const std::string dir = ::testing::TempDir() + "/qb_outputs_suite_conf_dir";
  fs::create_directories(dir);
  const std::string suite =
      write_temp("qb_outputs_ib.toml",
                 std::regex_replace(text.str(), std::regex("opensm/doc-example.conf"), dir));
  const Outcome outcome = run_qosbench({"validate", suite});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.out;
  EXPECT_NE(outcome.err.find(dir), std::string::npos) << outcome.err;
}

TEST(OutputCli, AnOpensmConfWithoutReadPermissionIsExitTwoNamingIt) {
  // Root reads a mode-000 file all the same: only another user can see the refusal.
  if (::geteuid() == 0) GTEST_SKIP() << "root reads a file of mode 000: nothing to refuse";
  const std::string conf = write_temp("qb_outputs_unreadable.conf", "qos TRUE\n");
  ASSERT_EQ(::chmod(conf.c_str(), 0), 0);
  const Outcome outcome = run_qosbench({"import-opensm", "--opensm-conf", conf, "--json"});
  ::chmod(conf.c_str(), 0600);
  EXPECT_EQ(outcome.exit_code, 2) << outcome.out << outcome.err;
  EXPECT_EQ(outcome.out, "");
  EXPECT_NE(outcome.err.find(conf), std::string::npos) << outcome.err;
}

// Root may replace any file, devices included: results written to /dev/null or /dev/full must
// go through the device (a write error for /dev/full), never rename a regular file over it.
TEST(OutputCli, JsonToDevNullAndDevFullKeepsThemCharacterDevicesAsRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "not root: /dev cannot be replaced anyway";
  ASSERT_TRUE(fs::is_character_file("/dev/null"));
  ASSERT_TRUE(fs::is_character_file("/dev/full"));
  const std::string suite = write_temp("qb_outputs_devices.toml", small_suite("f"));
  const Outcome to_null = run_qosbench({"run", suite, "--quiet", "--json", "/dev/null"});
  EXPECT_EQ(to_null.exit_code, 0) << to_null.out << to_null.err;
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  const Outcome to_full = run_qosbench({"run", suite, "--quiet", "--json", "/dev/full"});
  EXPECT_EQ(to_full.exit_code, 3) << to_full.out << to_full.err;
  EXPECT_NE(to_full.err.find("/dev/full"), std::string::npos) << to_full.err;
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
  struct stat null_stat {};
  ASSERT_EQ(::stat("/dev/null", &null_stat), 0);
  EXPECT_EQ(null_stat.st_mode & 0777, 0666u);  // still everyone's
}

// 1 ns bins over a 2 ms window would be 2 million per flow: the series uses 2 us bins (at most
// 1000), and says so on the console and in the results, recording both bins.
TEST(OutputCli, ACoarsenedSeriesBinIsAWarningAndRecordsBothBins) {
  std::string text = small_suite("f");
  text.replace(text.find("duration = \"2ms\"\n"), 16, "duration = \"2ms\"\nbin = \"1ns\"\n");
  const std::string suite = write_temp("qb_outputs_bin.toml", text);
  const std::string json_path = ::testing::TempDir() + "/qb_outputs_bin.json";
  const Outcome outcome = run_qosbench({"run", suite, "--json", json_path});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.out << outcome.err;
  const std::string said = "series bin 1 ns requested, 2.00 us used";
  EXPECT_NE((outcome.out + outcome.err).find(said), std::string::npos)
      << outcome.out << outcome.err;
  std::ifstream in(json_path);
  const auto results = nlohmann::json::parse(in);
  const auto& scenario = results["scenarios"][0];
  EXPECT_EQ(scenario["bin_ns"], 2000);
  EXPECT_EQ(scenario["bin_requested_ns"], 1);
  bool warned = false;
  for (const auto& warning : results["warnings"]) {
    warned = warned || warning.get<std::string>().find(said) != std::string::npos;
  }
  EXPECT_TRUE(warned) << results["warnings"];

  // A bin used as asked: no warning, no field.
  const std::string plain = write_temp("qb_outputs_bin_plain.toml", small_suite("f"));
  const Outcome as_asked = run_qosbench({"run", plain, "--json", json_path});
  ASSERT_EQ(as_asked.exit_code, 0) << as_asked.err;
  EXPECT_EQ((as_asked.out + as_asked.err).find("series bin"), std::string::npos);
  std::ifstream again(json_path);
  EXPECT_FALSE(nlohmann::json::parse(again)["scenarios"][0].contains("bin_requested_ns"));
}

TEST(OutputCli, ReportToDevStdoutPrintsTheReportAndKeepsTheLink) {
  const std::string results = ::testing::TempDir() + "/qb_outputs_results.json";
  ASSERT_EQ(run_qosbench({"run", kTwoGroups, "--quiet", "--json", results}).exit_code, 0);
  const Outcome outcome = run_qosbench({"report", results, "-o", "/dev/stdout"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(outcome.out.find("<html"), std::string::npos);
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
}

TEST(OutputCli, JsonToAFifoIsWrittenThrough) {
  const std::string fifo = ::testing::TempDir() + "/qb_outputs_results.fifo";
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const int writer_keepalive = ::open(fifo.c_str(), O_WRONLY);  // reads see no EOF meanwhile
  ::fcntl(reader, F_SETPIPE_SZ, 1 << 20);
  const std::string suite = write_temp("qb_outputs_fifo.toml", small_suite("f"));
  const Outcome outcome = run_qosbench({"run", suite, "--quiet", "--json", fifo});
  ::close(writer_keepalive);
  std::string got;
  char buffer[65536];
  for (ssize_t n; (n = ::read(reader, buffer, sizeof buffer)) > 0;) got.append(buffer, n);
  ::close(reader);
  EXPECT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_NE(got.find("\"schema\""), std::string::npos);
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(OutputCli, ControlCharactersInNamesReachTheConsoleEscaped) {
  // \u001b]0;pwned\u0007 would set the terminal title; \u001b[2J would clear the screen.
  const std::string suite =
      write_temp("qb_outputs_escape.toml", small_suite("f\\u001b]0;pwned\\u0007\\u001b[2J"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", suite}, {"explain", suite}, {"validate", suite}}) {
    const Outcome outcome = run_qosbench(args);
    EXPECT_EQ(outcome.out.find('\x1b'), std::string::npos) << args[0];
    EXPECT_EQ(outcome.out.find('\x07'), std::string::npos) << args[0];
    EXPECT_EQ(outcome.err.find('\x1b'), std::string::npos) << args[0];
  }
  const Outcome run = run_qosbench({"run", suite});
  EXPECT_NE(run.out.find("f\\x1b]0;pwned\\x07\\x1b[2J"), std::string::npos) << run.out;
}

TEST(OutputCli, ControlCharactersInErrorsReachTheConsoleEscaped) {
  const std::string suite = write_temp("qb_outputs_escape_error.toml",
                                       small_suite("f") + "\n[[flow]]\nname = \"\\u001b[2J\"\n");
  const Outcome outcome = run_qosbench({"validate", suite});
  EXPECT_EQ(outcome.exit_code, 2);
  EXPECT_EQ(outcome.err.find('\x1b'), std::string::npos) << outcome.err;
}

}  // namespace
}  // namespace qb::e2e
