// The host clock of the verbs fast path: the TSC scaled to ns (a few ns per read, where
// clock_gettime costs tens), calibrated once per process against CLOCK_MONOTONIC. Without an
// invariant TSC (no constant_tsc and nonstop_tsc in /proc/cpuinfo), or off x86, it is
// CLOCK_MONOTONIC itself. Named in the results ("tsc" or "monotonic").
#pragma once

#include <cstdint>
#include <string_view>

namespace qb::drv::verbs {

class HostClock {
 public:
  /// The process-wide clock (calibrated on first use: 10 ms).
  static const HostClock& get();
  int64_t now_ns() const noexcept;
  std::string_view name() const noexcept { return tsc_ ? "tsc" : "monotonic"; }

 private:
  HostClock();
  bool tsc_ = false;
  uint64_t tsc0_ = 0;
  double ns_per_tick_ = 0.0;
};

}  // namespace qb::drv::verbs
