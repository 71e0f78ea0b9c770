// The scheduling tree as an executable packet scheduler: hierarchical DWRR by weight
// (bw_share) with a token bucket per capped element (max_avg_bw), work-conserving.
//
// One implementation, used by the simulated NIC (drivers/sim) and, later, as the software
// shaper the DPDK driver puts in front of its Tx queues. Time is in caller-chosen ticks
// (picoseconds in the simulator, TSC cycles on DPDK). No allocation after construction;
// every call is O(tree depth) amortised.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "qb/policies/sched_tree.hpp"

namespace qb::policy {

class TreeScheduler {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  static constexpr int64_t kNever = INT64_MAX;

  struct Config {
    double ticks_per_second = 1e12;
    /// DWRR quantum of the lightest sibling, in wire bytes (use the largest packet's wire size).
    uint32_t quantum_bytes = 4200;
    /// Token bucket depth of a capped element, in seconds of its cap (at least 2 quanta).
    double bucket_depth_s = 20e-6;
  };

  /// queue_leaf[q] is the SchedTree element (a leaf) queue q is attached to. QPs on one leaf
  /// are served round robin with equal weight.
  TreeScheduler(const SchedTree& tree, std::span<const uint32_t> queue_leaf, Config config);

  /// Queue q went from empty to backlogged at `now`.
  void on_backlogged(uint32_t queue, int64_t now) noexcept;
  /// The queue whose head packet goes next, or kNone when no backlogged queue is eligible
  /// (everything empty, or every backlogged path throttled by a cap; see next_eligible()).
  uint32_t pick(int64_t now) noexcept;
  /// Charges the packet `queue` just sent to every element on its path (DWRR deficit and
  /// token buckets). still_backlogged=false takes the queue out of rotation.
  void on_sent(uint32_t queue, uint32_t wire_bytes, bool still_backlogged, int64_t now) noexcept;
  /// Earliest tick at which a throttled element gets tokens back, or kNever.
  int64_t next_eligible() const noexcept;

  uint32_t queue_count() const noexcept { return static_cast<uint32_t>(queue_parent_.size()); }

 private:
  struct Impl;
  // Flat arrays: elements [0, tree size) are tree elements, queues follow. Filled by the .cpp.
  std::vector<uint32_t> queue_parent_;
  std::vector<uint8_t> storage_placeholder_;
};

}  // namespace qb::policy
