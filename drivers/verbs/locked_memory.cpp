#include "locked_memory.hpp"

#include <fmt/format.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

namespace qb::drv::verbs {
namespace {

constexpr uint64_t kPageBytes = 4096;
constexpr int kCapIpcLock = 14;  // linux/capability.h
// libmlx5: a CQE and a send WQE basic block are 64 bytes, a receive WQE with one SGE 16.
constexpr uint64_t kCqeBytes = 64;
constexpr uint64_t kSendWqeBytes = 64;
constexpr uint64_t kRecvWqeBytes = 16;

uint64_t pages(uint64_t bytes) noexcept {
  return (bytes + kPageBytes - 1) / kPageBytes * kPageBytes;
}

std::string human(uint64_t bytes) {
  if (bytes == kUnlimitedBytes) return "unlimited";
  if (bytes < 1024 * 1024) return fmt::format("{} KiB", (bytes + 1023) / 1024);
  if (bytes < 1024ULL * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / 1048576.0);
  return fmt::format("{:.2f} GiB", bytes / 1073741824.0);
}

bool has_cap_ipc_lock() noexcept {
  try {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (!line.starts_with("CapEff:")) continue;
      const uint64_t caps = std::stoull(line.substr(7), nullptr, 16);
      return (caps >> kCapIpcLock & 1U) != 0;
    }
  } catch (...) {
  }
  return false;
}

}  // namespace

LockedMemoryLimit read_locked_memory_limit() noexcept {
  LockedMemoryLimit limit;
  rlimit rl{};
  if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
    limit.soft_bytes = rl.rlim_cur == RLIM_INFINITY ? kUnlimitedBytes : rl.rlim_cur;
    limit.hard_bytes = rl.rlim_max == RLIM_INFINITY ? kUnlimitedBytes : rl.rlim_max;
  }
  limit.cap_ipc_lock = has_cap_ipc_lock();
  return limit;
}

PinnedBytes pinned_bytes_lower_bound(const PinnedShape& shape) noexcept {
  PinnedBytes pinned;
  for (const uint32_t flows : shape.flows_per_worker) {
    // Two buffers per worker (what requesters send, what responders expose).
    pinned.buffers += 2 * pages(shape.buffer_bytes);
    if (!shape.mlx5_queues || flows == 0) continue;
    // The worker's two CQs are made for its flows even when only one side is here.
    pinned.queues += pages(kCqeBytes * flows * shape.send_queue_depth);
    pinned.queues += pages(kCqeBytes * flows * shape.ring_slots);
    if (shape.requesters) pinned.queues += flows * pages(kSendWqeBytes * shape.send_queue_depth);
    if (shape.responders) pinned.queues += flows * pages(kRecvWqeBytes * shape.ring_slots);
  }
  return pinned;
}

Status check_locked_memory(const LockedMemoryLimit& limit, const PinnedBytes& pinned,
                           const std::string& device) {
  if (limit.cap_ipc_lock || limit.soft_bytes == kUnlimitedBytes ||
      pinned.total() <= limit.soft_bytes) {
    return {};
  }
  const uint64_t needed_kib = (pinned.total() + 1023) / 1024;
  const std::string what = pinned.queues == 0
                               ? fmt::format("{} of message buffers", human(pinned.buffers))
                               : fmt::format("{} of message buffers and {} of QP and CQ queues",
                                             human(pinned.buffers), human(pinned.queues));
  // `ulimit -l` counts KiB; raising the soft limit up to the hard one needs no privilege.
  const std::string fix =
      limit.hard_bytes == kUnlimitedBytes || limit.hard_bytes >= pinned.total()
          ? fmt::format(
                "run `ulimit -l unlimited` (or at least `ulimit -l {}`) in the shell that "
                "starts qosbench",
                needed_kib)
          : fmt::format(
                "the hard limit is {} too: as root, add `* soft memlock unlimited` and `* hard "
                "memlock unlimited` to /etc/security/limits.conf and log in again (a systemd "
                "service: LimitMEMLOCK=infinity; a container: --ulimit memlock=-1), or run "
                "qosbench with CAP_IPC_LOCK",
                human(limit.hard_bytes));
  return make_error(
      Errc::unavailable,
      fmt::format("verbs: the locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`) is {}, and a run "
                  "on {} pins at least {} ({}): ibv_reg_mr or ibv_create_qp would fail with "
                  "ENOMEM. Fix: {}",
                  human(limit.soft_bytes), device, human(pinned.total()), what, fix));
}

}  // namespace qb::drv::verbs
