// Send timestamps in a multi-host job's clock. On one host the frames carry the TSC and the
// receiver reads it against its own (one counter). Across hosts the TSCs have nothing in
// common, so in a job every worker converts its TSC to the job clock (qb/common/job_clock.hpp)
// less its host's offset to the receiver: the receiver's clock, in which it also reads its
// arrivals. The TSC-to-clock anchor is taken again every 10 ms, so the TSC frequency's
// calibration error (DPDK's, 1e-5..1e-4) adds at most ~1 us, not tens of us over a run.
#pragma once

#include <cstdint>

namespace qb::drv::dpdk {

class JobClockStamps {
 public:
  static constexpr int64_t kReanchorNs = 10'000'000;

  /// `offset_ns`: this host's job clock minus the receiver's (0 on the receiver).
  void start(double ns_per_tick, int64_t offset_ns) noexcept;
  /// The receiver's job clock (ns) at TSC `tsc`, near now (a burst's, a fetched frame's).
  int64_t ns_at(uint64_t tsc) noexcept {
    if (static_cast<int64_t>(tsc - anchor_tsc_) > reanchor_ticks_) [[unlikely]] {
      anchor();
    }
    return anchor_ns_ +
           static_cast<int64_t>(static_cast<double>(static_cast<int64_t>(tsc - anchor_tsc_)) *
                                ns_per_tick_);
  }

 private:
  void anchor() noexcept;

  double ns_per_tick_ = 1.0;
  int64_t offset_ns_ = 0;
  int64_t reanchor_ticks_ = 0;
  uint64_t anchor_tsc_ = 0;
  int64_t anchor_ns_ = 0;
};

}  // namespace qb::drv::dpdk
