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

/// Writes `text` to a fresh file in the test temp dir and returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace qb::e2e
