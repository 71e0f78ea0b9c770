// Hierarchical DWRR with token-bucket caps; see the header for the algorithm.
#include "qb/policies/tree_scheduler.hpp"

#include <algorithm>
#include <cmath>

namespace qb::policy {
namespace {

constexpr double kBitsPerByte = 8.0;

// Heap order: earliest wake first; ties by element index so runs are deterministic (an
// element is in the heap at most once, so the order is total and the pops come in the same
// order whatever the heap's layout). Bitwise, not short-circuit: no branch to mispredict.
template <class W>
bool earlier(const W& a, const W& b) noexcept {
  return (a.at < b.at) | ((a.at == b.at) & (a.element < b.element));
}

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
  wake_heap_.reserve(capped);
  quanta_.assign(total, 0);
  buckets_.assign(total, Bucket{});  // read only where Node::capped

  for (size_t n = 0; n < total; ++n) {
    Node& node = nodes_[n];
    if (node.parent == kNone) continue;
    const uint64_t scale = min_sibling_weight[node.parent];
    node.charge_scale = static_cast<uint32_t>(scale);  // a weight: fits
    quanta_[n] = static_cast<int64_t>(config.quantum_bytes) * static_cast<int64_t>(weight[n]);
    if (n < tree_size_ && tree.elements[n].max_avg_bw_bps > 0.0) {
      const double cap_bps = tree.elements[n].max_avg_bw_bps;
      const double quantum_bits = kBitsPerByte * static_cast<double>(config.quantum_bytes) *
                                  static_cast<double>(weight[n]) / static_cast<double>(scale);
      Bucket bucket;
      bucket.rate_bits_per_tick = cap_bps / config.ticks_per_second;
      bucket.depth_bits = std::max(2.0 * quantum_bits, cap_bps * config.bucket_depth_s);
      bucket.tokens_bits = bucket.depth_bits;  // a full bucket at time zero
      buckets_[n] = bucket;
      node.capped = true;
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
  c.deficit = std::min<int64_t>(c.deficit, 0) + quanta_[child];
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
    if (c.capped) {
      Bucket& bucket = buckets_[child];
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
  // A binary min-heap, sifted with a hole (one store per level).
  const Wake wake{at, element};
  wake_heap_.push_back(wake);  // capacity reserved: one slot per capped element
  size_t hole = wake_heap_.size() - 1;
  while (hole > 0) {
    const size_t parent = (hole - 1) / 2;
    if (!earlier(wake, wake_heap_[parent])) break;
    wake_heap_[hole] = wake_heap_[parent];
    hole = parent;
  }
  wake_heap_[hole] = wake;
}

void TreeScheduler::pop_wake() noexcept {
  const Wake last = wake_heap_.back();
  wake_heap_.pop_back();
  const size_t n = wake_heap_.size();
  if (n == 0) return;
  // Sift the hole left by the front down along the earlier child until `last` fits.
  size_t hole = 0;
  for (size_t child = 1; child < n; child = 2 * hole + 1) {
    child += static_cast<size_t>(child + 1 < n && earlier(wake_heap_[child + 1], wake_heap_[child]));
    if (!earlier(wake_heap_[child], last)) break;
    wake_heap_[hole] = wake_heap_[child];
    hole = child;
  }
  wake_heap_[hole] = last;
}

// Throttled elements whose time has come get their tokens back and rejoin the rotation.
void TreeScheduler::wake_due(int64_t now) noexcept {
  while (!wake_heap_.empty() && wake_heap_.front().at <= now) {
    const uint32_t element = wake_heap_.front().element;
    pop_wake();
    Node& node = nodes_[element];
    Bucket& bucket = buckets_[element];
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
      nodes_[child].deficit += quanta_[child];
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
  if (!still_backlogged) {
    nodes_[n].backlogged = false;
    --backlogged_queues_;
  }

  // One walk up the path, bottom-up. Every element is charged (DWRR deficit, token bucket);
  // then, while the elements below stayed in rotation, it leaves its parent's ring (idle or
  // throttled) or rotates when its credit is spent. (The charge of an element and its ring
  // update read and write only that element and its parent's ring, never an ancestor's
  // deficit or bucket, so charging the whole path first, as two walks, gives the same state.)
  bool in_rotation = true;  // false from the first element found out of its parent's ring
  for (uint32_t child = n;;) {
    Node& c = nodes_[child];
    const uint32_t parent = c.parent;
    if (parent == kNone) break;
    c.deficit -= bytes * c.charge_scale;
    Bucket& bucket = buckets_[child];
    if (c.capped) {
      refill(bucket, now);
      bucket.tokens_bits -= bits;
    }
    if (in_rotation && !c.in_ring) in_rotation = false;  // nothing above changes
    if (in_rotation) {
      const bool has_work = child >= tree_size_ ? c.backlogged : c.head != kNone;
      bool throttled = false;
      if (has_work && c.capped && bucket.tokens_bits <= 0.0) {
        throttled = true;
        throttle(child, bucket, now);
      }
      Node& p = nodes_[parent];
      if (!has_work || throttled) {
        unlink(parent, child);
      } else if (p.head == child) [[likely]] {
        // The usual case (the path pick() took): rotate when the credit is spent, the old
        // head becoming the tail of the circular ring. Without a branch: whether a child's
        // credit is spent follows the weights, which a predictor does not learn.
        const int64_t spent = -static_cast<int64_t>(c.deficit <= 0);  // all ones or zero
        c.deficit += quanta_[child] & spent;
        p.head = child ^ ((child ^ c.next) & static_cast<uint32_t>(spent));
      } else if (c.deficit <= 0) {
        c.deficit += quanta_[child];
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
