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

constexpr size_t kMaxSlots = 4;
constexpr size_t kMaxPath = 512;
constexpr size_t kMaxNote = 1024;

template <size_t Size>
struct Slot {
  std::atomic<bool> used{false};
  char path[Size] = {};
};
template <size_t Size>
using Slots = std::array<Slot<Size>, kMaxSlots>;
Slots<kMaxPath> g_slots;
Slots<kMaxPath> g_files;
Slots<kMaxNote> g_notes;

// A slot is filled before it is marked used, so a signal never sees half a path.
template <size_t Size>
void add_slot(Slots<Size>& slots, const char* path) noexcept {
  if (path == nullptr || std::strlen(path) >= Size) return;
  for (Slot<Size>& slot : slots) {
    if (slot.used.load()) continue;
    std::strncpy(slot.path, path, Size - 1);
    slot.used.store(true);
    return;
  }
}

template <size_t Size>
void remove_slot(Slots<Size>& slots, const char* path) noexcept {
  if (path == nullptr) return;
  for (Slot<Size>& slot : slots) {
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

void register_exit_note(const char* text) noexcept {
  add_slot(g_notes, text);
}

void unregister_exit_note(const char* text) noexcept {
  remove_slot(g_notes, text);
}

void exit_now(int exit_code) noexcept {
  for (Slot<kMaxNote>& slot : g_notes) {
    if (!slot.used.load()) continue;
    const size_t length = std::strlen(slot.path);
    for (size_t done = 0; done < length;) {
      const ssize_t n = ::write(STDERR_FILENO, slot.path + done, length - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
  }
  for (Slot<kMaxPath>& slot : g_files) {
    if (slot.used.load()) ::unlink(slot.path);
  }
  for (Slot<kMaxPath>& slot : g_slots) {
    if (slot.used.load()) remove_flat_dir(slot.path);
  }
  ::_exit(exit_code);
}

}  // namespace qb
