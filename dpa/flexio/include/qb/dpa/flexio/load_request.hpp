// What to load on the DPA: the program's ELF, its handler, its threads, its message level.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/dpa/flexio/flexio_ops.hpp"

namespace qb::dpa::flexio {

/// How the threads are placed: none lets the DPA choose; strict puts thread i on execution
/// unit `first_id + i`; group puts every thread in EU group `first_id`.
struct ThreadPlacement {
  AffinityKind kind = AffinityKind::none;
  uint32_t first_id = 0;
};

struct LoadRequest {
  std::string elf_path;                // the program built by the DPA compiler (dpacc)
  std::string handler_name;            // the __dpa_global__ event handler in it
  std::string device_name = "mlx5_0";  // the RDMA device whose DPA runs it
  uint32_t threads = 1;                // event handlers (DPA threads), one CQ each
  ThreadPlacement placement;
  MessageLevel message_level = MessageLevel::info;  // off: no message stream
  std::FILE* message_output = nullptr;              // nullptr: stderr
  bool pcc = false;          // a programmable congestion-control process and outbox
  uint8_t cq_log_depth = 7;  // 128 CQEs per thread
};

inline constexpr uint32_t kMaxThreads = 256;  // the DPA's execution units (16 cores x 16)
inline constexpr uint8_t kMaxCqLogDepth = 16;

/// The affinity of thread `index` under `placement`.
Affinity thread_affinity(const ThreadPlacement& placement, uint32_t index) noexcept;

/// Checks the request and reads the ELF image: every error here comes before any SDK call
/// (Errc::invalid_config for the request, Errc::io for the file).
Result<std::vector<std::byte>> read_program(const LoadRequest& request);

}  // namespace qb::dpa::flexio
