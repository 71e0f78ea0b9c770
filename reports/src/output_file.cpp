#include "qb/reports/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "qb/reports/atomic_file.hpp"

namespace qb::report {
namespace {

constexpr int kMaxSymlinkHops = 40;  // as the kernel's ELOOP limit

Error cannot_write(const std::string& path, int error_number) {
  return make_error(Errc::io,
                    fmt::format("cannot write '{}': {}", path, std::strerror(error_number)));
}

Status write_all(int fd, const std::string& path, std::string_view contents) {
  size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return cannot_write(path, errno);
    }
    written += static_cast<size_t>(n);
  }
  return {};
}

// The descriptor a path names when it is the process's own standard output or error.
std::optional<int> own_descriptor(const std::string& path) {
  if (path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1") {
    return STDOUT_FILENO;
  }
  if (path == "/dev/stderr" || path == "/dev/fd/2" || path == "/proc/self/fd/2") {
    return STDERR_FILENO;
  }
  return std::nullopt;
}

// The path at the end of `path`'s symbolic links, or nullopt when a link leads into /proc (its
// descriptor links name pipes and deleted files, not paths: those are opened as given).
std::optional<std::string> follow_links(const std::string& path) {
  std::filesystem::path current = path;
  for (int hop = 0; hop < kMaxSymlinkHops; ++hop) {
    if (current.string().starts_with("/proc/")) return std::nullopt;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(current.c_str(), target, sizeof target - 1);
    if (n < 0) return current.string();  // not a link (or not there yet): the path itself
    target[n] = '\0';
    const std::filesystem::path next{target};
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  return current.string();  // too many links: the atomic write reports ELOOP
}

Status write_through(const std::string& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return cannot_write(path, errno);
  Status status = write_all(fd, path, contents);
  if (::close(fd) != 0 && status) status = cannot_write(path, errno);
  return status;
}

}  // namespace

Status write_output_file(const std::string& path, std::string_view contents) {
  if (const std::optional<int> fd = own_descriptor(path)) {
    // Whatever the console printed so far comes first.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(*fd == STDOUT_FILENO ? stdout : stderr);
    return write_all(*fd, path, contents);
  }
  const std::optional<std::string> target = follow_links(path);
  if (!target) return write_through(path, contents);
  struct stat info {};
  if (::stat(target->c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
    if (S_ISDIR(info.st_mode)) return cannot_write(path, EISDIR);
    return write_through(*target, contents);
  }
  return write_file_atomically(*target, contents);
}

}  // namespace qb::report
