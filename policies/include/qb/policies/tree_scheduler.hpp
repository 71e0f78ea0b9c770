// The scheduling tree as an executable packet scheduler: hierarchical DWRR by weight
// (bw_share) with a token bucket per capped element (max_avg_bw), work-conserving.
//
// One implementation, used by the simulated NIC (drivers/sim) and, later, as the software
// shaper the DPDK driver puts in front of its Tx queues. Time is in caller-chosen ticks
// (picoseconds in the simulator, TSC cycles on DPDK). No allocation after construction;
// every call is O(tree depth) amortised.
//
// How it works: every element (tree node, leaf, and each queue as a weight-1 child of its
// leaf) keeps an intrusive ring of its *active* children (backlogged below and not throttled).
// pick() walks from the root down the ring heads. Deficit round robin with overdraft: the head
// child may send while its deficit > 0; a send is charged to every element on the path; a child
// whose deficit drops to <= 0 gets its quantum added and rotates to the tail. Quantum of a child
// = quantum_bytes * weight / (smallest weight among its siblings); deficits are kept scaled by
// that smallest weight so the weight ratios are exact in integers. A child that leaves its ring
// (idle or throttled) drops positive credit and keeps its debt.
// Caps: a token bucket (bits, lazy refill) per capped element; when a send leaves it with
// tokens <= 0 the element is throttled (out of its parent's ring) until the tick its tokens are
// back above 0; throttled elements wait in a min-heap by that tick.
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
    /// DWRR quantum of the lightest sibling, in wire bytes (use the largest packet's wire size;
    /// packets larger than the quantum are still served fairly, by skipping rounds).
    uint32_t quantum_bytes = 4200;
    /// Token bucket depth of a capped element, in seconds of its cap (at least 2 quanta).
    double bucket_depth_s = 20e-6;
  };

  /// queue_leaf[q] is the SchedTree element (a leaf) queue q is attached to. QPs on one leaf
  /// are served round robin with equal weight. A queue whose leaf index is out of range is
  /// never scheduled (callers validate first). The root's own cap/weight are ignored (a valid
  /// tree has none).
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

  /// Whether any queue is backlogged (eligible or throttled).
  bool any_backlogged() const noexcept { return backlogged_queues_ != 0; }

 private:
  // 32 bytes, two per cache line: what pick() and on_sent() touch per level of the path.
  struct Node {
    uint32_t parent = kNone;
    uint32_t prev = kNone;  // links in the parent's ring of active children
    uint32_t next = kNone;
    uint32_t head = kNone;  // first of this element's active children (kNone: empty ring)
    uint32_t charge_scale = 1;  // smallest weight among the siblings
    bool in_ring = false;
    bool throttled = false;
    bool backlogged = false;  // queues only
    bool capped = false;      // has a token bucket (buckets_[n])
    int64_t deficit = 0;      // in charge units: wire bytes * charge_scale
  };
  static_assert(sizeof(Node) == 32, "two nodes per cache line");
  // One per node (buckets_[n] is node n's, no indirection), used only where Node::capped.
  // (Tried: a never-empty +inf bucket on every uncapped node, which takes the capped? branch
  // out of the path walks but adds float work to every level; no measurable difference, so
  // uncapped nodes do no bucket work.)
  struct Bucket {
    double tokens_bits = 0.0;
    double rate_bits_per_tick = 0.0;
    double depth_bits = 0.0;
    int64_t refilled_at = 0;
  };
  struct Wake {
    int64_t at;
    uint32_t element;
  };

  void insert_tail(uint32_t parent, uint32_t child) noexcept;
  void unlink(uint32_t parent, uint32_t child) noexcept;
  void activate(uint32_t element, int64_t now) noexcept;
  void throttle(uint32_t element, const Bucket& bucket, int64_t now) noexcept;
  static void refill(Bucket& bucket, int64_t now) noexcept;
  void push_wake(uint32_t element, int64_t at) noexcept;
  void pop_wake() noexcept;
  void wake_due(int64_t now) noexcept;

  std::vector<Node> nodes_;  // [0, tree_size_): tree elements; then one per queue
  std::vector<int64_t> quanta_;  // per node: quantum_bytes * weight (read on rotation only)
  std::vector<Bucket> buckets_;  // per node
  std::vector<Wake> wake_heap_;  // capacity: the capped elements; each at most once
  uint32_t tree_size_ = 0;
  uint32_t backlogged_queues_ = 0;
};

}  // namespace qb::policy
