// exit_now(): what a second Ctrl-C leaves behind. A forked child registers files and a
// directory, calls exit_now, and the parent checks they are gone and the exit code came through.
#include "qb/common/exit_cleanup.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace qb {
namespace {

std::string fresh_dir(const std::string& name) {
  const std::string dir =
      ::testing::TempDir() + "/qb_exit_cleanup_" + std::to_string(::getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// Runs `body` in a child and returns its exit code (-1 when it did not exit normally).
template <class Body>
int in_child(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(99);  // body must not return: exit_now ends the child
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ExitCleanup, ExitNowRemovesRegisteredFilesAndDirectories) {
  const std::string dir = fresh_dir("registered");
  const std::string temp = dir + "/results.json.tmp.1";
  const std::string runtime = dir + "/runtime";
  std::filesystem::create_directories(runtime);
  std::ofstream(temp) << "{\"half\":";
  std::ofstream(runtime + "/config") << "x";
  const int code = in_child([&] {
    register_exit_cleanup_file(temp.c_str());
    register_exit_cleanup_dir(runtime.c_str());
    exit_now(130);
  });
  EXPECT_EQ(code, 130);
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_FALSE(std::filesystem::exists(runtime));
  std::filesystem::remove_all(dir);
}

TEST(ExitCleanup, AnUnregisteredFileIsKept) {
  const std::string dir = fresh_dir("unregistered");
  const std::string renamed = dir + "/results.json";  // the temporary file, renamed into place
  std::ofstream(renamed) << "{}";
  const int code = in_child([&] {
    register_exit_cleanup_file(renamed.c_str());
    unregister_exit_cleanup_file(renamed.c_str());
    exit_now(143);
  });
  EXPECT_EQ(code, 143);
  EXPECT_TRUE(std::filesystem::exists(renamed));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace qb
