#include "qb/common/exit_cleanup.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstring>

namespace qb {
namespace {

constexpr size_t kMaxDirs = 4;
constexpr size_t kMaxFiles = kMaxDirs;
constexpr size_t kMaxPath = 512;

struct Slot {
  std::atomic<bool> used{false};
  char path[kMaxPath] = {};
};
std::array<Slot, kMaxDirs> g_slots;
std::array<Slot, kMaxFiles> g_files;

// A slot is filled before it is marked used, so a signal never sees half a path.
void add_slot(std::array<Slot, kMaxDirs>& slots, const char* path) noexcept {
  if (path == nullptr || std::strlen(path) >= kMaxPath) return;
  for (Slot& slot : slots) {
    if (slot.used.load()) continue;
    std::strncpy(slot.path, path, kMaxPath - 1);
    slot.used.store(true);
    return;
  }
}

void remove_slot(std::array<Slot, kMaxDirs>& slots, const char* path) noexcept {
  if (path == nullptr) return;
  for (Slot& slot : slots) {
    if (slot.used.load() && std::strcmp(slot.path, path) == 0) slot.used.store(false);
  }
}

// A flat directory: every entry but . and .. is unlinked, then the directory. getdents64 and
// unlinkat are system calls, so this is safe in a signal handler (readdir is not).
void remove_flat_dir(const char* path) noexcept {
  const int fd = ::open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    alignas(8) char buffer[4096];
    while (true) {
      const long n = ::syscall(SYS_getdents64, fd, buffer, sizeof buffer);
      if (n <= 0) break;
      for (long offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + offset);
        offset += entry->d_reclen;
        const char* name = entry->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        ::unlinkat(fd, name, 0);
      }
    }
    ::close(fd);
  }
  ::rmdir(path);
}

}  // namespace

void register_exit_cleanup_dir(const char* path) noexcept {
  add_slot(g_slots, path);
}

void unregister_exit_cleanup_dir(const char* path) noexcept {
  remove_slot(g_slots, path);
}

void register_exit_cleanup_file(const char* path) noexcept {
  add_slot(g_files, path);
}

void unregister_exit_cleanup_file(const char* path) noexcept {
  remove_slot(g_files, path);
}

void exit_now(int exit_code) noexcept {
  for (Slot& slot : g_files) {
    if (slot.used.load()) ::unlink(slot.path);
  }
  for (Slot& slot : g_slots) {
    if (slot.used.load()) remove_flat_dir(slot.path);
  }
  ::_exit(exit_code);
}

}  // namespace qb
