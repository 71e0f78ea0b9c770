// `qosbench run`'s live view from the outside: plain interval lines on stderr when it is a file,
// colour and a redrawn status line with progress and ETA when it is a terminal (a pty here),
// NO_COLOR, --quiet, --interval (its span, 0 for none, bad values refused), --units; and the
// interval lines agree with the results file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "process.hpp"

namespace qb::e2e {
namespace {

const std::string kTwoGroups = QB_SOURCE_DIR "/configs/mlx5_two_groups.toml";

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/qb_live_" + std::to_string(::getpid()) + "_" + name;
}

std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.find(needle) != std::string::npos) found.push_back(line);
  }
  return found;
}

// The goodput figure of an interval line, Gbit/s.
double goodput_gbps(const std::string& line) {
  static const std::regex kGoodput(R"(goodput +([0-9.]+) Gbit/s)");
  std::smatch match;
  if (!std::regex_search(line, match, kGoodput)) return -1.0;
  return std::stod(match[1]);
}

// Runs qosbench with stderr on a pseudo-terminal (stdout to /dev/null) and returns what the
// terminal received; `env` entries are added to the environment.
Outcome run_on_terminal(const std::vector<std::string>& args, std::vector<std::string> env = {}) {
  Outcome outcome;
  int master = -1, slave = -1;
  winsize size{};
  size.ws_col = 200;
  size.ws_row = 50;
  if (::openpty(&master, &slave, nullptr, nullptr, &size) != 0) return outcome;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, slave, 2);
  posix_spawn_file_actions_addclose(&actions, master);
  std::vector<std::string> argv_storage{QB_QOSBENCH_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::string(*e).rfind("NO_COLOR=", 0) != 0) env.emplace_back(*e);
  }
  std::vector<char*> envp;
  for (auto& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, QB_QOSBENCH_BIN, &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(slave);
  if (spawned != 0) {
    ::close(master);
    return outcome;
  }
  char buffer[4096];
  while (true) {
    const ssize_t n = ::read(master, buffer, sizeof buffer);
    if (n > 0) {
      outcome.err.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed the terminal's last descriptor
    }
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return outcome;
}

TEST(LiveCli, PlainIntervalLinesOnStderrWhenItIsNotATerminalThatAgreeWithTheResults) {
  const std::string json = temp_path("plain.json");
  const Outcome outcome = run_qosbench({"run", kTwoGroups, "--repetitions", "2", "--duration",
                                        "20ms", "--jobs", "2", "--json", json});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(outcome.err.find('\x1b'), std::string::npos) << "no colour in a file";
  EXPECT_EQ(outcome.err.find('\r'), std::string::npos) << "no status line in a file";
  EXPECT_EQ(outcome.err.find("ETA"), std::string::npos);
  EXPECT_EQ(outcome.out.find("rates per interval"), std::string::npos) << "they go to stderr";
  EXPECT_EQ(outcome.out.find(" ms  g1-qp"), std::string::npos) << "they go to stderr";
  // Default interval: a tenth of 20 ms; two repetitions; two [[flow]] entries and a total.
  EXPECT_EQ(lines_with(outcome.err, "repetition 1/2: rates per interval").size(), 1u);
  EXPECT_EQ(lines_with(outcome.err, "repetition 2/2: rates per interval").size(), 1u);
  const auto g1 = lines_with(outcome.err, "g1-qp goodput");
  const auto g2 = lines_with(outcome.err, "g2-qp goodput");
  ASSERT_EQ(g1.size(), 20u) << outcome.err;
  ASSERT_EQ(g2.size(), 20u);
  EXPECT_EQ(lines_with(outcome.err, "total goodput").size(), 20u);
  EXPECT_EQ(lines_with(outcome.err, "[two groups 1/2]     0.00-2.00 ms").size(), 3u);
  EXPECT_EQ(lines_with(outcome.err, "[two groups 2/2]   18.00-20.00 ms").size(), 3u);
  // Equal intervals: their mean goodput is the repetitions' mean in the results file.
  double g1_sum_gbps = 0.0, g2_sum_gbps = 0.0;
  for (const auto& line : g1) g1_sum_gbps += goodput_gbps(line);
  for (const auto& line : g2) g2_sum_gbps += goodput_gbps(line);
  const auto results = nlohmann::json::parse(read_file(json));
  double g1_payload_bps = 0.0, g2_payload_bps = 0.0;
  for (const auto& flow : results["scenarios"][0]["flows"]) {
    const std::string name = flow["name"];
    (name.rfind("g1-qp", 0) == 0 ? g1_payload_bps : g2_payload_bps) +=
        flow["measured_payload_bps"].get<double>();
  }
  ASSERT_GT(g1_payload_bps, 0.0);
  EXPECT_NEAR(g1_sum_gbps / 20.0 / (g1_payload_bps / 1e9), 1.0, 1e-3);
  EXPECT_NEAR(g2_sum_gbps / 20.0 / (g2_payload_bps / 1e9), 1.0, 1e-3);
  std::filesystem::remove(json);
}

TEST(LiveCli, IntervalPicksTheSpanAndZeroTurnsTheLinesOff) {
  const Outcome five = run_qosbench(
      {"run", kTwoGroups, "--repetitions", "1", "--duration", "20ms", "--interval", "5ms"});
  ASSERT_EQ(five.exit_code, 0) << five.err;
  EXPECT_EQ(lines_with(five.err, "g1-qp goodput").size(), 4u) << five.err;
  EXPECT_EQ(lines_with(five.err, "15.00-20.00 ms  g2-qp").size(), 1u) << five.err;

  const Outcome none = run_qosbench(
      {"run", kTwoGroups, "--repetitions", "1", "--duration", "20ms", "--interval", "0"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(none.err, "");
}

TEST(LiveCli, QuietShowsNothingLive) {
  const Outcome outcome =
      run_qosbench({"run", kTwoGroups, "--repetitions", "1", "--duration", "20ms", "--quiet"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(outcome.err, "");
  EXPECT_EQ(outcome.out, "PASSED\n");
}

TEST(LiveCli, UnitsPickTheIntervalLinesRateUnit) {
  const Outcome outcome = run_qosbench(
      {"run", kTwoGroups, "--repetitions", "1", "--duration", "20ms", "--units", "gbyte"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const auto lines = lines_with(outcome.err, "g1-qp goodput");
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find(" GB/s"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("Gbit/s"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find(" Mpps"), std::string::npos) << lines[0];
}

TEST(LiveCli, ABadIntervalIsAUsageErrorAndNothingRuns) {
  const std::string json = temp_path("bad_interval.json");
  for (const char* bad : {"10ns", "soon", "-5ms"}) {
    const Outcome outcome = run_qosbench({"run", kTwoGroups, "--interval", bad, "--json", json});
    EXPECT_EQ(outcome.exit_code, 2) << bad << ": " << outcome.err;
    EXPECT_NE(outcome.err.find("--interval"), std::string::npos) << outcome.err;
    EXPECT_EQ(outcome.err.find("goodput"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(json)) << bad;
  }
}

TEST(LiveCli, ATerminalGetsColourAndAStatusLineWithProgressAndEta) {
  const Outcome outcome = run_on_terminal(
      {"run", kTwoGroups, "--repetitions", "3", "--duration", "50ms", "--jobs", "1"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const std::string& shown = outcome.err;
  EXPECT_NE(shown.find("\x1b[36m"), std::string::npos) << "group names in colour";
  EXPECT_NE(shown.find("\x1b[0m"), std::string::npos);
  EXPECT_NE(shown.find("g1-qp"), std::string::npos);
  // The status line: redrawn with \r, progress by run time, and its ETA consistent with the
  // elapsed time and the fraction it shows (ETA = elapsed x (1 - p) / p).
  static const std::regex kStatus(
      R"((\d) of 3 repetitions done, (\d+)%, elapsed ([0-9.]+)s, ETA ([0-9.]+)s)");
  int statuses = 0;
  int previous_percent = -1;
  for (auto it = std::sregex_iterator(shown.begin(), shown.end(), kStatus);
       it != std::sregex_iterator(); ++it) {
    ++statuses;
    const int percent = std::stoi((*it)[2]);
    const double elapsed_s = std::stod((*it)[3]);
    const double eta_s = std::stod((*it)[4]);
    EXPECT_GE(percent, previous_percent) << "progress never goes back";
    previous_percent = percent;
    if (percent >= 20 && percent <= 95) {
      // Rounding (the percentage to 1 %, the times to 0.1 s) moves it by at most
      // 0.05 + 0.05 x 4 + elapsed x 0.005 x 25.
      const double p = percent / 100.0;
      const double expected_s = elapsed_s * (1.0 - p) / p;
      EXPECT_NEAR(eta_s, expected_s, 0.3 + 0.15 * elapsed_s) << (*it)[0];
    }
  }
  EXPECT_GT(statuses, 0) << shown;
  // The status line is erased at the end: the last thing on the terminal is the erase.
  EXPECT_EQ(shown.rfind("\r\x1b[K"), shown.size() - 4) << shown.substr(shown.size() - 200);
}

// Against the clock, not its own formula: with repetitions side by side (--jobs 2) the ETA
// falls as the run goes, and the end it projects (elapsed + ETA) lands near the real end. The
// real end is taken when the process exits (it includes start-up and writing the results,
// so the projection is a little early): tolerant, this machine is shared.
TEST(LiveCli, TheEtaOfParallelRepetitionsTracksTheRealEnd) {
  const auto start = std::chrono::steady_clock::now();
  const Outcome outcome =
      run_on_terminal({"run", kTwoGroups, "--repetitions", "4", "--duration", "1s", "--jobs", "2"});
  const double actual_end_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  const std::string& shown = outcome.err;
  // Finished repetitions are counted as done, not as a repetition number.
  EXPECT_NE(shown.find("0 of 4 repetitions done"), std::string::npos) << shown;
  EXPECT_EQ(shown.find("repetition 0/"), std::string::npos) << shown;
  static const std::regex kStatus(
      R"((\d) of 4 repetitions done, (\d+)%, elapsed ([0-9.]+)s, ETA ([0-9.]+)s)");
  struct Status {
    int done, percent;
    double elapsed_s, eta_s;
  };
  std::vector<Status> statuses;
  for (auto it = std::sregex_iterator(shown.begin(), shown.end(), kStatus);
       it != std::sregex_iterator(); ++it) {
    const Status s{std::stoi((*it)[1]), std::stoi((*it)[2]), std::stod((*it)[3]),
                   std::stod((*it)[4])};
    if (s.percent >= 10 && s.percent < 100) statuses.push_back(s);
  }
  ASSERT_GE(statuses.size(), 3u) << shown;
  int previous_done = 0;
  for (const Status& s : statuses) {
    EXPECT_GE(s.done, previous_done) << "repetitions done never go back";
    previous_done = s.done;
    EXPECT_LE(s.done, 4);
  }
  // The ETA falls: the last one is below the first, and below the real time left at the first.
  EXPECT_LT(statuses.back().eta_s, statuses.front().eta_s) << shown;
  EXPECT_LT(statuses.back().eta_s, actual_end_s - statuses.front().elapsed_s);
  // The last projection is within 50 % of the real end, and so is every one past a quarter.
  const Status& last = statuses.back();
  EXPECT_NEAR(last.elapsed_s + last.eta_s, actual_end_s, 0.5 * actual_end_s)
      << "projected " << last.elapsed_s + last.eta_s << " s, ended at " << actual_end_s << " s";
  for (const Status& s : statuses) {
    if (s.percent < 25) continue;
    EXPECT_LT(s.elapsed_s + s.eta_s, 1.5 * actual_end_s)
        << s.percent << "%: projected " << s.elapsed_s + s.eta_s << " s, ended at " << actual_end_s
        << " s";
    EXPECT_GT(s.elapsed_s + s.eta_s, 0.5 * actual_end_s)
        << s.percent << "%: projected " << s.elapsed_s + s.eta_s << " s, ended at " << actual_end_s
        << " s";
  }
}

TEST(LiveCli, NoColorKeepsTheStatusLineButDropsColour) {
  const Outcome outcome = run_on_terminal(
      {"run", kTwoGroups, "--repetitions", "1", "--duration", "20ms"}, {"NO_COLOR=1"});
  ASSERT_EQ(outcome.exit_code, 0) << outcome.err;
  EXPECT_EQ(outcome.err.find("\x1b[36m"), std::string::npos);
  EXPECT_EQ(outcome.err.find("\x1b[2m"), std::string::npos);
  EXPECT_NE(outcome.err.find("g1-qp goodput"), std::string::npos);
  EXPECT_NE(outcome.err.find("\r\x1b[K"), std::string::npos) << "the status line is still drawn";
}

}  // namespace
}  // namespace qb::e2e
