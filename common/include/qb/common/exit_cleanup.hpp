// Directories and files to remove when the process must exit at once (a second Ctrl-C/SIGTERM):
// no destructor or atexit handler runs then, so their owners register them here, and what must
// be said then (a NIC left as the suite set it, and the command that puts it back).
#pragma once

namespace qb {

/// Registers a flat directory (its files, then itself) for removal by exit_now(). Up to four;
/// the path is copied. Not async-signal-safe: call it from normal code.
void register_exit_cleanup_dir(const char* path) noexcept;

/// Forgets a registered directory (its owner removed it).
void unregister_exit_cleanup_dir(const char* path) noexcept;

/// Registers a file (an atomic write's temporary file) for removal by exit_now(). Up to four;
/// the path is copied. Not async-signal-safe: call it from normal code.
void register_exit_cleanup_file(const char* path) noexcept;

/// Forgets a registered file (renamed into place or removed by its owner).
void unregister_exit_cleanup_file(const char* path) noexcept;

/// Registers a message exit_now() writes to stderr, whole, before it exits. Up to four; the
/// text is copied (at most 1023 bytes). Not async-signal-safe: call it from normal code.
void register_exit_note(const char* text) noexcept;

/// Forgets a registered message (what it warned of was dealt with).
void unregister_exit_note(const char* text) noexcept;

/// Writes the registered messages to stderr, removes the registered files and directories and ends
/// the process with `exit_code` without running destructors. Async-signal-safe (write, unlink,
/// rmdir, _exit; the directory listing is getdents64).
[[noreturn]] void exit_now(int exit_code) noexcept;

}  // namespace qb
