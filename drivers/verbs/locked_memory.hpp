// Pinned memory and the locked-memory limit. Every page a run registers (ibv_reg_mr), and on
// mlx5 every page of its QP and CQ queues (the provider allocates them in user space and the
// kernel pins them), counts against RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK (the
// kernel's ib_umem_get). The driver checks the limit against a lower bound of what the run pins
// before it makes anything, so a low limit is one error with the fix (the shell's `ulimit -l`,
// limits.conf, systemd, containers), not an ENOMEM half way through making QPs.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "qb/common/result.hpp"

namespace qb::drv::verbs {

inline constexpr uint64_t kUnlimitedBytes = UINT64_MAX;

/// The process's locked-memory allowance (getrlimit(RLIMIT_MEMLOCK), the capability set).
struct LockedMemoryLimit {
  uint64_t soft_bytes = kUnlimitedBytes;  // what applies; kUnlimitedBytes: RLIM_INFINITY
  uint64_t hard_bytes = kUnlimitedBytes;  // how far `ulimit -l` may raise it without root
  bool cap_ipc_lock = false;              // the limit does not apply (root, or the capability)
};

/// This process's: getrlimit, and CAP_IPC_LOCK in /proc/self/status's CapEff (not unlimited
/// when they cannot be read).
LockedMemoryLimit read_locked_memory_limit() noexcept;

/// What one run pins, at least.
struct PinnedBytes {
  uint64_t buffers = 0;  // memory regions (every provider pins them)
  uint64_t queues = 0;   // QP and CQ buffers, as libmlx5 sizes them (0: not counted)
  uint64_t total() const noexcept { return buffers + queues; }
};

/// The shape of a run's resources: per worker, its flow instances; each worker registers two
/// buffers of `buffer_bytes` and has a send CQ (send_queue_depth entries per flow) and a
/// receive CQ (ring_slots per flow); each flow a requester QP (send_queue_depth send WQEs)
/// and/or a responder QP (ring_slots receive WQEs).
struct PinnedShape {
  std::span<const uint32_t> flows_per_worker;
  uint32_t buffer_bytes = 0;
  bool requesters = true;
  bool responders = true;
  uint32_t send_queue_depth = 0;
  uint32_t ring_slots = 0;
  /// Count the queues: libmlx5's buffers (64-byte CQEs and send WQE blocks, 16-byte receive
  /// WQEs, each buffer whole pages). Not on Soft-RoCE, whose queues the kernel allocates.
  bool mlx5_queues = true;
};

/// A lower bound of the bytes `shape` pins: pages of the buffers, and the queue sizes before
/// libmlx5 rounds them up to powers of two.
PinnedBytes pinned_bytes_lower_bound(const PinnedShape& shape) noexcept;

/// Errc::unavailable (exit 3) when `limit` cannot hold `pinned`, naming the limit, what the run
/// pins and the exact fix; ok when it can, or with CAP_IPC_LOCK.
Status check_locked_memory(const LockedMemoryLimit& limit, const PinnedBytes& pinned,
                           const std::string& device);

}  // namespace qb::drv::verbs
