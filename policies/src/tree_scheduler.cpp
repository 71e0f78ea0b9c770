// Hierarchical DWRR with token-bucket caps; see the header for the algorithm.
#include "qb/policies/tree_scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace qb::policy {
namespace {

constexpr double kBitsPerByte = 8.0;

// Heap order: earliest wake first; ties by element index so runs are deterministic.
struct WakeLater {
  template <class W>
  bool operator()(const W& a, const W& b) const noexcept {
    return a.at != b.at ? a.at > b.at : a.element > b.element;
  }
};

}  // namespace

TreeScheduler::TreeScheduler(const SchedTree& tree, std::span<const uint32_t> queue_leaf,
                             Config config)
    : tree_size_(static_cast<uint32_t>(tree.elements.size())) {
  const size_t total = tree.elements.size() + queue_leaf.size();
  nodes_.resize(total);
  std::vector<uint64_t> weight(total, 1);
  for (uint32_t e = 0; e < tree_size_; ++e) {
    const auto& element = tree.elements[e];
    // The root (element 0) is never a child, whatever its parent field says.
    nodes_[e].parent = (e == 0 || element.parent >= tree_size_) ? kNone : element.parent;
    weight[e] = std::max<uint32_t>(element.weight, 1);
  }
  for (size_t q = 0; q < queue_leaf.size(); ++q) {
    nodes_[tree_size_ + q].parent = queue_leaf[q] < tree_size_ ? queue_leaf[q] : kNone;
  }

  // Smallest weight among the children of each parent (tree children and queues alike).
  std::vector<uint64_t> min_sibling_weight(tree_size_, UINT64_MAX);
  for (size_t n = 0; n < total; ++n) {
    const uint32_t parent = nodes_[n].parent;
    if (parent != kNone)
      min_sibling_weight[parent] = std::min(min_sibling_weight[parent], weight[n]);
  }
  size_t capped = 0;
  for (uint32_t e = 1; e < tree_size_; ++e) {
    if (nodes_[e].parent != kNone && tree.elements[e].max_avg_bw_bps > 0.0) ++capped;
  }
  buckets_.reserve(capped);
  wake_heap_.reserve(capped);

  for (size_t n = 0; n < total; ++n) {
    Node& node = nodes_[n];
    if (node.parent == kNone) continue;
    const uint64_t scale = min_sibling_weight[node.parent];
    node.charge_scale = static_cast<int64_t>(scale);
    node.quantum = static_cast<int64_t>(config.quantum_bytes) * static_cast<int64_t>(weight[n]);
    if (n < tree_size_ && tree.elements[n].max_avg_bw_bps > 0.0) {
      const double cap_bps = tree.elements[n].max_avg_bw_bps;
      const double quantum_bits = kBitsPerByte * static_cast<double>(config.quantum_bytes) *
                                  static_cast<double>(weight[n]) / static_cast<double>(scale);
      Bucket bucket;
      bucket.rate_bits_per_tick = cap_bps / config.ticks_per_second;
      bucket.depth_bits = std::max(2.0 * quantum_bits, cap_bps * config.bucket_depth_s);
      bucket.tokens_bits = bucket.depth_bits;  // a full bucket at time zero
      node.bucket = static_cast<uint32_t>(buckets_.size());
      buckets_.push_back(bucket);
    }
  }
}

void TreeScheduler::insert_tail(uint32_t parent, uint32_t child) noexcept {
  Node& p = nodes_[parent];
  Node& c = nodes_[child];
  if (p.head == kNone) {
    p.head = child;
    c.prev = child;
    c.next = child;
  } else {
    const uint32_t head = p.head;
    const uint32_t tail = nodes_[head].prev;
    nodes_[tail].next = child;
    c.prev = tail;
    c.next = head;
    nodes_[head].prev = child;
  }
  c.in_ring = true;
  // Back in rotation: whatever debt it kept, plus one quantum.
  c.deficit = std::min<int64_t>(c.deficit, 0) + c.quantum;
}

void TreeScheduler::unlink(uint32_t parent, uint32_t child) noexcept {
  Node& p = nodes_[parent];
  Node& c = nodes_[child];
  if (c.next == child) {
    p.head = kNone;
  } else {
    nodes_[c.prev].next = c.next;
    nodes_[c.next].prev = c.prev;
    if (p.head == child) p.head = c.next;
  }
  c.in_ring = false;
  c.deficit = std::min<int64_t>(c.deficit, 0);  // idle drops credit, keeps debt
}

// `element` has become active (work below it, not throttled): join the parent's ring and,
// where that ring was empty, the rings above. An idle capped element still in debt is
// throttled here rather than allowed one more packet.
void TreeScheduler::activate(uint32_t element, int64_t now) noexcept {
  uint32_t child = element;
  while (true) {
    Node& c = nodes_[child];
    const uint32_t parent = c.parent;
    if (parent == kNone) return;
    if (c.bucket != kNone) {
      Bucket& bucket = buckets_[c.bucket];
      refill(bucket, now);
      if (bucket.tokens_bits <= 0.0) {
        throttle(child, bucket, now);
        return;
      }
    }
    const bool parent_was_empty = nodes_[parent].head == kNone;
    insert_tail(parent, child);
    const Node& p = nodes_[parent];
    if (!parent_was_empty || p.parent == kNone || p.in_ring || p.throttled) return;
    child = parent;
  }
}

void TreeScheduler::throttle(uint32_t element, const Bucket& bucket, int64_t now) noexcept {
  nodes_[element].throttled = true;
  // The first tick at which tokens are > 0 again.
  push_wake(element,
            now + 1 + static_cast<int64_t>(-bucket.tokens_bits / bucket.rate_bits_per_tick));
}

void TreeScheduler::refill(Bucket& bucket, int64_t now) noexcept {
  if (now <= bucket.refilled_at) return;
  bucket.tokens_bits = std::min(bucket.depth_bits,
                                bucket.tokens_bits + static_cast<double>(now - bucket.refilled_at) *
                                                         bucket.rate_bits_per_tick);
  bucket.refilled_at = now;
}

void TreeScheduler::push_wake(uint32_t element, int64_t at) noexcept {
  wake_heap_.push_back(Wake{at, element});  // capacity reserved: one slot per capped element
  std::push_heap(wake_heap_.begin(), wake_heap_.end(), WakeLater{});
}

void TreeScheduler::pop_wake() noexcept {
  std::pop_heap(wake_heap_.begin(), wake_heap_.end(), WakeLater{});
  wake_heap_.pop_back();
}

// Throttled elements whose time has come get their tokens back and rejoin the rotation.
void TreeScheduler::wake_due(int64_t now) noexcept {
  while (!wake_heap_.empty() && wake_heap_.front().at <= now) {
    const uint32_t element = wake_heap_.front().element;
    pop_wake();
    Node& node = nodes_[element];
    Bucket& bucket = buckets_[node.bucket];
    refill(bucket, now);
    if (bucket.tokens_bits <= 0.0) {  // rounding left it a hair short: try again later
      throttle(element, bucket, now);
      continue;
    }
    node.throttled = false;
    if (node.head != kNone) activate(element, now);
  }
}

void TreeScheduler::on_backlogged(uint32_t queue, int64_t now) noexcept {
  const uint32_t n = tree_size_ + queue;
  if (n >= nodes_.size()) return;
  Node& node = nodes_[n];
  if (node.parent == kNone || node.backlogged) return;
  node.backlogged = true;
  ++backlogged_queues_;
  activate(n, now);
}

uint32_t TreeScheduler::pick(int64_t now) noexcept {
  if (!wake_heap_.empty() && wake_heap_.front().at <= now) wake_due(now);
  uint32_t element = 0;  // the root
  if (tree_size_ == 0) return kNone;
  while (element < tree_size_) {
    Node& parent = nodes_[element];
    uint32_t child = parent.head;
    if (child == kNone) return kNone;  // only the root can be reached with an empty ring
    // Normally the head has credit; it can lack it only after a packet larger than its quantum.
    while (nodes_[child].deficit <= 0) {
      nodes_[child].deficit += nodes_[child].quantum;
      parent.head = nodes_[child].next;
      child = parent.head;
    }
    element = child;
  }
  return element - tree_size_;
}

void TreeScheduler::on_sent(uint32_t queue, uint32_t wire_bytes, bool still_backlogged,
                            int64_t now) noexcept {
  const uint32_t n = tree_size_ + queue;
  if (n >= nodes_.size() || !nodes_[n].in_ring) return;  // not something pick() returned
  const auto bytes = static_cast<int64_t>(wire_bytes);
  const double bits = kBitsPerByte * static_cast<double>(wire_bytes);
  for (uint32_t e = n; nodes_[e].parent != kNone; e = nodes_[e].parent) {
    Node& node = nodes_[e];
    node.deficit -= bytes * node.charge_scale;
    if (node.bucket != kNone) {
      Bucket& bucket = buckets_[node.bucket];
      refill(bucket, now);
      bucket.tokens_bits -= bits;
    }
  }
  if (!still_backlogged) {
    nodes_[n].backlogged = false;
    --backlogged_queues_;
  }

  // Bottom-up: leave the ring (idle or throttled), or rotate when the credit is spent.
  for (uint32_t child = n; nodes_[child].parent != kNone;) {
    Node& c = nodes_[child];
    const uint32_t parent = c.parent;
    if (!c.in_ring) break;  // an ancestor already out of rotation: nothing above changes
    const bool has_work = child >= tree_size_ ? c.backlogged : c.head != kNone;
    bool throttled = false;
    if (has_work && c.bucket != kNone) {
      const Bucket& bucket = buckets_[c.bucket];
      if (bucket.tokens_bits <= 0.0) {
        throttled = true;
        throttle(child, bucket, now);
      }
    }
    if (!has_work || throttled) {
      unlink(parent, child);
    } else if (c.deficit <= 0) {
      c.deficit += c.quantum;
      Node& p = nodes_[parent];
      if (p.head == child) {
        p.head = c.next;  // the ring is circular: the old head becomes the tail
      } else {
        unlink(parent, child);
        const int64_t kept = c.deficit;
        insert_tail(parent, child);
        c.deficit = kept;
      }
    }
    child = parent;
  }
}

int64_t TreeScheduler::next_eligible() const noexcept {
  return wake_heap_.empty() ? kNever : wake_heap_.front().at;
}

}  // namespace qb::policy
