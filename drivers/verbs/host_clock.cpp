#include "host_clock.hpp"

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace qb::drv::verbs {
namespace {

int64_t monotonic_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A TSC that ticks at one rate in every state and on every core.
bool invariant_tsc() {
#if defined(__x86_64__)
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      return line.find(" constant_tsc") != std::string::npos &&
             line.find(" nonstop_tsc") != std::string::npos;
    }
  }
#endif
  return false;
}

uint64_t read_tsc() noexcept {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return 0;
#endif
}

}  // namespace

HostClock::HostClock() {
  if (!invariant_tsc()) return;
  const int64_t ns0 = monotonic_ns();
  const uint64_t tsc0 = read_tsc();
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const int64_t ns1 = monotonic_ns();
  const uint64_t tsc1 = read_tsc();
  if (tsc1 <= tsc0 || ns1 <= ns0) return;
  ns_per_tick_ = static_cast<double>(ns1 - ns0) / static_cast<double>(tsc1 - tsc0);
  tsc0_ = tsc1;
  tsc_ = true;
}

const HostClock& HostClock::get() {
  static const HostClock clock;
  return clock;
}

int64_t HostClock::now_ns() const noexcept {
  if (!tsc_) return monotonic_ns();
  return static_cast<int64_t>(static_cast<double>(read_tsc() - tsc0_) * ns_per_tick_);
}

}  // namespace qb::drv::verbs
