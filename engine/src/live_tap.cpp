#include "live_tap.hpp"

#include <algorithm>

namespace qb::engine {

LiveTap::LiveTap(uint32_t scenario, uint32_t repetition, uint32_t workers, size_t groups,
                 const IntervalSink& sink)
    : workers_(std::max(workers, 1U)), groups_(groups), sink_(sink) {
  prototype_.scenario = scenario;
  prototype_.repetition = repetition;
}

void LiveTap::publish(uint32_t index, int64_t start_ns, int64_t end_ns, bool last, bool complete,
                      std::span<const LiveGroupCounters> groups) {
  std::lock_guard lock(mutex_);
  if (index < next_index_) return;  // cannot happen: each worker publishes an index once
  auto [it, inserted] = pending_.try_emplace(index);
  Pending& pending = it->second;
  LiveInterval& interval = pending.interval;
  if (inserted) {
    interval = prototype_;
    interval.index = index;
    interval.start_ns = start_ns;
    interval.end_ns = end_ns;
    interval.groups.assign(groups_, LiveGroupCounters{});
  } else {
    // Workers share the window and the boundaries; their snapshots differ by a loop turn.
    interval.start_ns = std::min(interval.start_ns, start_ns);
    interval.end_ns = std::max(interval.end_ns, end_ns);
  }
  for (size_t g = 0; g < groups.size() && g < groups_; ++g) {
    merge_counters(interval.groups[g], groups[g]);
  }
  interval.complete = interval.complete && complete;
  ++pending.workers_in;
  if (last) ++pending.workers_last;
  emit_ready_locked();
}

void LiveTap::emit_ready_locked() {
  for (auto it = pending_.find(next_index_);
       it != pending_.end() && it->second.workers_in >= workers_; it = pending_.find(next_index_)) {
    it->second.interval.last = it->second.workers_last >= workers_;
    emit_locked(it->second);
    pending_.erase(it);
  }
}

void LiveTap::emit_locked(Pending& pending) {
  // Each starts where the one before ended: the workers' snapshots of a boundary differ by a
  // loop turn, and the spans must not overlap.
  pending.interval.start_ns = handed_end_ns_;
  pending.interval.end_ns = std::max(pending.interval.end_ns, handed_end_ns_);
  handed_end_ns_ = pending.interval.end_ns;
  ++next_index_;
  if (sink_) sink_(pending.interval);
}

void LiveTap::finish() {
  std::lock_guard lock(mutex_);
  emit_ready_locked();
  // Left: intervals only some workers reached (one was cut short before the others).
  while (!pending_.empty()) {
    auto it = pending_.begin();
    Pending& pending = it->second;
    pending.interval.index = next_index_;  // keep the numbering gap-free
    pending.interval.complete = false;
    pending.interval.last = pending_.size() == 1;
    emit_locked(pending);
    pending_.erase(it);
  }
}

}  // namespace qb::engine
