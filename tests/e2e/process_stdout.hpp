// Runs the qosbench binary with its standard output opened on a given path (a device such as
// /dev/full, a FIFO, a file): the cases where where the output goes is what is tested.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "process.hpp"

namespace qb::e2e {

inline Outcome run_qosbench_stdout_to(const std::string& stdout_path,
                                      const std::vector<std::string>& args) {
  static int counter = 0;
  const std::string err_path = ::testing::TempDir() + "/qb_e2e_stdout_" +
                               std::to_string(::getpid()) + "_" + std::to_string(counter++) +
                               ".err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, stdout_path.c_str(), O_WRONLY | O_CREAT, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  std::vector<std::string> argv_storage{QB_QOSBENCH_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  Outcome outcome;
  const int spawned = posix_spawn(&pid, QB_QOSBENCH_BIN, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return outcome;
  int status = 0;
  ::waitpid(pid, &status, 0);
  outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  outcome.err = read_file(err_path);
  ::unlink(err_path.c_str());
  return outcome;
}

}  // namespace qb::e2e
