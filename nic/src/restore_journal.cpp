// The restore journal's file: a few "key value" lines, the DCB state as the hex of the
// IEEE_SET message that would program it (the same bytes the DCB decoder reads).
#include "qb/nic/restore_journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "qb/common/exit_cleanup.hpp"
#include "qb/nic/dcb_netlink.hpp"
#include "qb/nic/recorded.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMagic = "qosbench-nic-restore-journal 1";

uint64_t fnv1a(std::string_view text) {
  uint64_t hash = 1469598103934665603ULL;
  for (const char c : text) {
    hash ^= static_cast<uint8_t>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string hex_of(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (const uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

Status write_all(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return make_error(Errc::io, fmt::format("writing {}: {}", path, std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  return {};
}

}  // namespace

std::string default_nic_state_dir() {
  if (const char* dir = std::getenv("QOSBENCH_STATE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  if (const char* run = std::getenv("XDG_RUNTIME_DIR"); run != nullptr && *run != '\0') {
    return (fs::path(run) / "qosbench").string();
  }
  if (::geteuid() == 0) return "/run/qosbench";
  return fmt::format("/tmp/qosbench-{}", ::geteuid());
}

std::string journal_path(const std::string& dir, const std::string& ifname,
                         const std::string& root) {
  if (root.empty() || root == "/") return (fs::path(dir) / (ifname + ".journal")).string();
  return (fs::path(dir) / fmt::format("{}@{:016x}.journal", ifname, fnv1a(root))).string();
}

Status write_journal(const std::string& path, const RestoreJournal& journal) {
  const fs::path target(path);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (ec) {
    return make_error(Errc::io,
                      fmt::format("creating {}: {}", target.parent_path().string(), ec.message()));
  }
  ::chmod(target.parent_path().c_str(), 0700);  // journals name ports: only their owner reads
  DcbIeeeSet as_set{journal.before.ets, journal.before.maxrate, journal.before.pfc,
                    journal.before.apps};
  const std::string text = fmt::format(
      "{}\n# the QoS of {} before a qosbench run programmed it; `qosbench nic-restore` puts it "
      "back\npid {}\nifname {}\nroot {}\ntrust {}\ndcb {}\n",
      kMagic, journal.ifname, journal.pid, journal.ifname, journal.root,
      journal.before.sysfs_trust.empty() ? std::string("-") : journal.before.sysfs_trust,
      hex_of(encode_ieee_set(journal.ifname, 0, as_set)));
  const std::string temp = fmt::format("{}.tmp.{}", path, ::getpid());
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0)
    return make_error(Errc::io, fmt::format("creating {}: {}", temp, std::strerror(errno)));
  register_exit_cleanup_file(temp.c_str());
  Status written = write_all(fd, text, temp);
  if (written && ::fsync(fd) != 0) {
    written = make_error(Errc::io, fmt::format("flushing {}: {}", temp, std::strerror(errno)));
  }
  ::close(fd);
  if (written && ::rename(temp.c_str(), path.c_str()) != 0) {
    written = make_error(Errc::io,
                         fmt::format("renaming {} to {}: {}", temp, path, std::strerror(errno)));
  }
  if (!written) ::unlink(temp.c_str());
  unregister_exit_cleanup_file(temp.c_str());
  if (!written) return written;
  // The rename itself on disk: a power cut after a program must not lose the journal.
  if (const int dir_fd = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return {};
}

Result<RestoreJournal> read_journal(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return make_error(Errc::io, fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  }
  RestoreJournal journal;
  std::string line, trust, dcb_hex;
  bool magic = false;
  int line_no = 0;
  auto bad = [&](const std::string& why) {
    return make_error(Errc::io,
                      fmt::format("{}:{}: not a qosbench restore journal: {}", path, line_no, why));
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (line_no == 1) {
      if (line != kMagic) return bad(fmt::format("first line is not \"{}\"", kMagic));
      magic = true;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos) return bad(fmt::format("\"{}\" has no value", line));
    const std::string key = line.substr(0, space);
    const std::string value = line.substr(space + 1);
    if (key == "pid") {
      char* end = nullptr;
      const long pid = std::strtol(value.c_str(), &end, 10);
      if (end == value.c_str() || *end != '\0' || pid <= 0) return bad("pid is not a number");
      journal.pid = static_cast<int>(pid);
    } else if (key == "ifname") {
      journal.ifname = value;
    } else if (key == "root") {
      journal.root = value;
    } else if (key == "trust") {
      trust = value;
    } else if (key == "dcb") {
      dcb_hex = value;
    } else {
      return bad(fmt::format("unknown key \"{}\"", key));
    }
  }
  if (!magic) return bad("empty");
  if (journal.pid == 0 || journal.ifname.empty() || dcb_hex.empty() || trust.empty()) {
    return bad("pid, ifname, trust or dcb missing (a journal cut short)");
  }
  const auto bytes = parse_hex(dcb_hex);
  if (!bytes) return bad("dcb is not hex");
  auto state = decode_ieee_get_reply(*bytes, journal.ifname);
  if (!state) return bad(state.error().message);
  journal.before = std::move(*state);
  journal.before.sysfs_trust = trust == "-" ? std::string() : trust;
  return journal;
}

std::vector<std::string> list_journals(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".journal") out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool process_alive(int pid) noexcept {
  return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

}  // namespace qb::nic
