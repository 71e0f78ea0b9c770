// Runs the qosbench binary as a child process and captures its exit code, stdout and stderr.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace qb::e2e {

extern "C" char** environ;

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

/// Starts qosbench with `args`, its stdout and stderr written to the two paths; the pid, or 0
/// when it could not be started.
inline pid_t spawn_qosbench(const std::vector<std::string>& args, const std::string& out_path,
                            const std::string& err_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_storage{QB_QOSBENCH_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, QB_QOSBENCH_BIN, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return spawned == 0 ? pid : 0;
}

/// Runs qosbench with `args`; when interrupt_after_ms > 0, sends SIGINT after that long.
inline Outcome run_qosbench(const std::vector<std::string>& args, int interrupt_after_ms = 0) {
  static int counter = 0;
  const std::string stem = ::testing::TempDir() + "/qb_e2e_" + std::to_string(::getpid()) + "_" +
                           std::to_string(counter++);
  const std::string out_path = stem + ".out", err_path = stem + ".err";
  Outcome outcome;
  const pid_t pid = spawn_qosbench(args, out_path, err_path);
  if (pid <= 0) return outcome;
  if (interrupt_after_ms > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(interrupt_after_ms));
    ::kill(pid, SIGINT);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  outcome.out = read_file(out_path);
  outcome.err = read_file(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return outcome;
}

/// True while a signal sent to `pid` is not yet delivered: a second SIGINT sent then would
/// merge with the first (standard signals do not queue) on a busy machine that runs it late.
inline bool signal_pending(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with("SigPnd:") && !line.starts_with("ShdPnd:")) continue;
    const std::string mask = line.substr(line.find(':') + 1);
    if (mask.find_first_not_of(" \t0") != std::string::npos) return true;
  }
  return false;
}

/// A run sent signals while it ran, under a watchdog.
struct SignalledRun {
  Outcome outcome;
  bool killed = false;   // still running at the watchdog: SIGKILLed (a hang)
  double exit_ms = 0.0;  // from the first signal to the exit
};

/// Runs qosbench with `args`; sends `signals` in order, the first `first_after_ms` after the
/// start and each next one `gap_ms` later; SIGKILLs it after `watchdog_ms` (a hang fails the
/// test, not the CI job). Timing is only reported, never a race the caller must win.
inline SignalledRun run_signalled(const std::vector<std::string>& args,
                                  const std::vector<int>& signals, int first_after_ms,
                                  int gap_ms = 0, int watchdog_ms = 60000) {
  static int counter = 0;
  const std::string stem = ::testing::TempDir() + "/qb_signalled_" + std::to_string(::getpid()) +
                           "_" + std::to_string(counter++);
  const std::string out_path = stem + ".out", err_path = stem + ".err";
  SignalledRun run;
  const pid_t pid = spawn_qosbench(args, out_path, err_path);
  if (pid <= 0) return run;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto first = start;
  size_t sent = 0;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    const auto now = Clock::now();
    const double elapsed_ms = std::chrono::duration<double, std::milli>(now - start).count();
    if (sent < signals.size() &&
        elapsed_ms >= first_after_ms + gap_ms * static_cast<double>(sent) &&
        (sent == 0 || !signal_pending(pid))) {
      if (sent == 0) first = now;
      ::kill(pid, signals[sent++]);
    }
    if (elapsed_ms >= watchdog_ms) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      run.killed = true;
      break;
    }
    ::usleep(500);
  }
  run.exit_ms = std::chrono::duration<double, std::milli>(Clock::now() - first).count();
  run.outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.outcome.out = read_file(out_path);
  run.outcome.err = read_file(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return run;
}

/// Writes `text` to a fresh file in the test temp dir and returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace qb::e2e
