// What a link hands on towards the receiver and back to the sender: rx and tx_done events,
// each ring FIFO in time (one link, constant delays), which poll() merges into completions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "qb/common/ring_buffer.hpp"

namespace qb::drv::sim {

/// Due completions at which wait_until() returns so the caller polls.
inline constexpr size_t kDueHighWater = 1024;
/// Room every completion ring keeps beyond what is in flight: what wait_until() lets become
/// due before it hands back (kDueHighWater), and a margin.
inline constexpr uint64_t kRingSlack = kDueHighWater + 64;
/// Upper bound on a completion ring (entries); beyond it a long propagation delay stalls the
/// link (counted in ring_stalls) rather than allocate on the event path.
inline constexpr size_t kMaxRingEntries = size_t{1} << 21;

inline size_t ring_entries(uint64_t entries) {
  return static_cast<size_t>(std::min<uint64_t>(entries, kMaxRingEntries));
}

/// One packet reaching the receiver.
struct RxEvent {
  int64_t time_ps = 0;
  uint32_t flow = 0;
  uint16_t slot = 0;  // the message's send-queue slot
  bool last = false;  // the message's last packet
  uint32_t payload_bytes = 0;
  uint32_t wire_bytes = 0;
};

/// A message's completion at the sender (its ACK, or its discard).
struct TxDoneEvent {
  int64_t time_ps = 0;
  uint32_t flow = 0;
};

/// The completions of one link towards the receiver.
struct Lane {
  RingBuffer<RxEvent> rx;
  RingBuffer<TxDoneEvent> tx_done;
};

}  // namespace qb::drv::sim
