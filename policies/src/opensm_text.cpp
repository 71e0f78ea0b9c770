#include "opensm_text.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace qb::policy::opensm_text {
namespace {

Error cannot_read(const std::string& path, std::string_view what, int error_number) {
  return make_error(Errc::invalid_config,
                    "cannot read " + std::string(what) + ": " + std::strerror(error_number), {},
                    SourceLoc{path, 0, 0});
}

}  // namespace

// POSIX reads, not an ifstream: a stream opens a directory and reads an EIO file as empty text,
// which would silently give OpenSM's default tables.
Result<std::string> read_file(const std::string& path, std::string_view what) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cannot_read(path, what, errno);
  struct stat info {};
  if (::fstat(fd, &info) != 0 || S_ISDIR(info.st_mode)) {
    const int saved = S_ISDIR(info.st_mode) ? EISDIR : errno;
    ::close(fd);
    return cannot_read(path, what, saved);
  }
  std::string text;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      ::close(fd);
      return cannot_read(path, what, saved);
    }
    text.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace qb::policy::opensm_text
