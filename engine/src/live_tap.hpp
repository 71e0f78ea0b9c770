// Gathers the workers' per-interval counters of one repetition into LiveIntervals and hands
// each to the sink once every worker has published it, in interval order. Workers publish at
// their interval boundaries (a mutex per interval per worker, never per message).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <span>

#include "qb/engine/live.hpp"

namespace qb::engine {

class LiveTap {
 public:
  LiveTap(uint32_t scenario, uint32_t repetition, uint32_t workers, size_t groups,
          const IntervalSink& sink);

  /// One worker's counters of interval `index`, spanning [start_ns, end_ns) of the measured
  /// window; `last` when its run ended there, `complete` false when it was cut short.
  void publish(uint32_t index, int64_t start_ns, int64_t end_ns, bool last, bool complete,
               std::span<const LiveGroupCounters> groups);
  /// After every worker has returned: hands over what some workers never reached (a run cut
  /// short on one worker before the others), the final one marked last.
  void finish();

 private:
  struct Pending {
    LiveInterval interval;
    uint32_t workers_in = 0;
    uint32_t workers_last = 0;
  };
  void emit_ready_locked();
  void emit_locked(Pending& pending);

  uint32_t workers_;
  size_t groups_;
  const IntervalSink& sink_;
  LiveInterval prototype_;
  std::mutex mutex_;
  std::map<uint32_t, Pending> pending_;  // by interval index
  uint32_t next_index_ = 0;              // the next interval to hand over
  int64_t handed_end_ns_ = 0;            // where the last one handed over ended
};

}  // namespace qb::engine
