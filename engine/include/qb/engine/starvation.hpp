// Whether a real-time worker had its CPU: time it lost to other processes (or the hypervisor)
// while it should have been polling. A starved worker sends late and in bursts, so its figures
// say more about the machine than about the QoS policy (docs/dpdk.md, "Starved workers").
#pragma once

#include <algorithm>
#include <cstdint>

namespace qb::engine {

/// Lost time above this fraction of a worker's run: the results say the figures are unreliable.
inline constexpr double kStarvationWarnFraction = 0.01;
/// Lost time above this fraction: the measurement is invalid (exit 3).
inline constexpr double kStarvationInvalidFraction = 0.10;
/// A loop iteration that starts this much later than it should (after its work and any wait it
/// asked for) counts as a stall: a poll loop's iteration takes a few microseconds.
inline constexpr int64_t kStallThresholdNs = 250'000;

/// Scheduler figures of the calling thread (Linux: /proc/thread-self/schedstat and
/// getrusage(RUSAGE_THREAD)); available = false where they cannot be read.
struct ThreadSched {
  bool available = false;
  int64_t run_delay_ns = 0;  // time runnable but waiting for a CPU
  int64_t involuntary_switches = 0;
};

/// Reads the calling thread's figures (a seam: tests put a fake in WorkerWindow).
using ThreadSchedReader = ThreadSched (*)() noexcept;
ThreadSched read_thread_sched() noexcept;

/// What one worker lost during its run (real-time drivers only; measured = false otherwise).
struct WorkerStarvation {
  bool measured = false;
  int64_t run_ns = 0;   // the worker's loop, start to end
  int64_t lost_ns = 0;  // time lost to other processes: lost_to_others()
  int64_t run_delay_ns = 0;
  int64_t stalled_ns = 0;  // sum of the stalls' lengths (information: the loop's own slow
                           // iterations are stalls too)
  int64_t longest_stall_ns = 0;
  uint64_t stalls = 0;
  int64_t involuntary_switches = 0;

  double lost_fraction() const noexcept {
    return run_ns > 0 ? static_cast<double>(lost_ns) / static_cast<double>(run_ns) : 0.0;
  }
  /// Keeps the worse of two workers (or repetitions): the one that lost the larger fraction.
  void keep_worse(const WorkerStarvation& other) noexcept {
    if (!other.measured) return;
    if (!measured || other.lost_fraction() > lost_fraction()) *this = other;
  }
};

/// The time a worker lost to other processes. With the kernel's figures (`schedstat`): its
/// run-queue delay, the time it was runnable while another task had its CPU. Stalls are not
/// counted then: a loop whose own iterations are slow (many flows, a slow driver call) stalls
/// without losing anything to anyone. Without them: the stalls, but no more of them than the
/// thread had involuntary context switches (a stall caused by another process holds at least
/// one), each at most the longest stall; none without a switch.
inline int64_t lost_to_others(bool schedstat_available, const WorkerStarvation& s) noexcept {
  if (schedstat_available) return s.run_delay_ns;
  if (s.involuntary_switches <= 0 || s.stalls == 0) return 0;
  const auto counted = std::min<uint64_t>(s.stalls, static_cast<uint64_t>(s.involuntary_switches));
  const int64_t bound = s.longest_stall_ns * static_cast<int64_t>(counted);
  return s.stalled_ns < bound ? s.stalled_ns : bound;
}

}  // namespace qb::engine
