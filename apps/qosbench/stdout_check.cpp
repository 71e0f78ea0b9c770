#include "stdout_check.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <system_error>

namespace qb::cli {
namespace {

constexpr int kIoExitCode = 3;

int output_failed(const std::string& reason) {
  std::fprintf(stderr, "error: cannot write to standard output: %s\n", reason.c_str());
  return kIoExitCode;
}

}  // namespace

int with_checked_stdout(const std::function<int()>& command) {
  int exit_code = 0;
  try {
    exit_code = command();
  } catch (const std::system_error& error) {  // fmt::print throws when its write fails
    std::clearerr(stdout);
    return output_failed(error.code().message());
  }
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  const int flush_errno = errno;
  if (!flushed || std::ferror(stdout) != 0 || !std::cout.good()) {
    // Errors already latched by the stream leave errno unset: name the usual cause then.
    const std::string reason =
        flush_errno != 0 ? std::strerror(flush_errno) : std::string("write failed");
    std::clearerr(stdout);  // the exit-time flush must not fail a second time
    return output_failed(reason);
  }
  return exit_code;
}

}  // namespace qb::cli
