// What a run shows while it goes: per-interval counters of each [[flow]] entry (iperf3's `-i`
// lines) and how much of the planned run time has been covered (progress and ETA). The worker
// loop publishes both at interval boundaries and every few iterations, never per message.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "qb/engine/counters.hpp"

namespace qb::engine {

/// What one [[flow]] entry's instances received in one interval of the measured window: its
/// receiver-side counters (the sender's are known at the end of the run).
using LiveGroupCounters = Counters;

/// One interval of one repetition, every worker's share added up. The intervals of a
/// repetition partition its measured window: their counters add up to the repetition's.
struct LiveInterval {
  uint32_t scenario = 0;
  uint32_t repetition = 0;
  uint32_t index = 0;    // 0, 1, ... within the repetition
  int64_t start_ns = 0;  // from the start of the measured window
  int64_t end_ns = 0;    // the counters span [start_ns, end_ns)
  bool last = false;     // the repetition's last interval (its window ended or was cut short)
  bool complete = true;  // false: the run was interrupted in it
  std::vector<LiveGroupCounters> groups;  // per [[flow]] entry of the scenario

  double seconds() const noexcept { return static_cast<double>(end_ns - start_ns) * 1e-9; }
};

/// Called (serialised, from any worker thread) when an interval of a repetition is complete.
/// Keep it short: on a real-time driver it runs on a worker's thread.
using IntervalSink = std::function<void(const LiveInterval&)>;

/// The interval for a window when none is asked for: about a tenth of it, rounded down to
/// 1, 2 or 5 times a power of ten (10 ms for 100 ms, 5 ms for 60 ms), at most one second
/// (iperf3's default) and at least one microsecond.
int64_t default_live_interval_ns(int64_t duration_ns) noexcept;

/// Run time covered so far (warm-up and measured window of every repetition this process
/// runs) against the time planned, read by a progress display while workers add to it.
class RunProgress {
 public:
  void add_planned(int64_t ns) noexcept { planned_ns_.fetch_add(ns, std::memory_order_relaxed); }
  void add_covered(int64_t ns) noexcept { covered_ns_.fetch_add(ns, std::memory_order_relaxed); }
  int64_t planned_ns() const noexcept { return planned_ns_.load(std::memory_order_relaxed); }
  int64_t covered_ns() const noexcept { return covered_ns_.load(std::memory_order_relaxed); }
  /// Covered / planned, in [0, 1]; 0 before anything is planned.
  double fraction() const noexcept;

 private:
  std::atomic<int64_t> planned_ns_{0};
  std::atomic<int64_t> covered_ns_{0};
};

}  // namespace qb::engine
