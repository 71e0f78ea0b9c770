#include "job_clock_stamps.hpp"

#include <rte_cycles.h>

#include "qb/common/job_clock.hpp"

namespace qb::drv::dpdk {

void JobClockStamps::start(double ns_per_tick, int64_t offset_ns) noexcept {
  ns_per_tick_ = ns_per_tick;
  offset_ns_ = offset_ns;
  reanchor_ticks_ = static_cast<int64_t>(static_cast<double>(kReanchorNs) / ns_per_tick);
  anchor();
}

void JobClockStamps::anchor() noexcept {
  // The clock read sits between two TSC reads: their middle is its TSC within half the gap
  // (tens of ns).
  const uint64_t before = rte_rdtsc();
  const int64_t clock_ns = job_clock_ns();
  const uint64_t after = rte_rdtsc();
  anchor_tsc_ = before + (after - before) / 2;
  anchor_ns_ = clock_ns - offset_ns_;
}

}  // namespace qb::drv::dpdk
