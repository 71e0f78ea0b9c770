#include "qb/reports/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "qb/common/exit_cleanup.hpp"

namespace qb::report {

namespace {

// The temporary file is registered for removal before it exists and until it is renamed or
// removed: a second Ctrl-C during the write (exit_now) leaves nothing behind.
class TempRegistration {
 public:
  explicit TempRegistration(const std::string& path) : path_(path) {
    register_exit_cleanup_file(path_.c_str());
  }
  ~TempRegistration() { unregister_exit_cleanup_file(path_.c_str()); }
  TempRegistration(const TempRegistration&) = delete;
  TempRegistration& operator=(const TempRegistration&) = delete;

 private:
  const std::string& path_;
};

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view contents) {
  const std::string temp = fmt::format("{}.tmp.{}", path, ::getpid());
  const TempRegistration registration(temp);
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return make_error(Errc::io, fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  }
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return make_error(Errc::io, fmt::format("cannot write '{}': {}", path, std::strerror(saved)));
    }
    written += static_cast<size_t>(n);
  }
  // Close even when fsync fails (no short-circuit), so the descriptor never leaks.
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!synced || !closed) {
    const int saved = synced ? errno : sync_errno;
    ::unlink(temp.c_str());
    return make_error(Errc::io, fmt::format("cannot write '{}': {}", path, std::strerror(saved)));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    ::unlink(temp.c_str());
    return make_error(
        Errc::io, fmt::format("cannot rename '{}' to '{}': {}", temp, path, std::strerror(saved)));
  }
  return {};
}

}  // namespace qb::report
