// A flow's counters as one table (as DPDK's xstats name table): every counter is declared once,
// in QB_FLOW_COUNTERS, with its unit, how two values of it merge, where it is counted, whether
// the results carry it and the column that shows it. Merging (workers, ranks, repetitions,
// groups), the outcome codec, the results field list, the HTML flow table, the sender summary
// and the live view walk kCounters; none names a counter. Adding one is one line below plus
// its producer (docs/architecture.md, "a counter").
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace qb::engine {

/// What one unit of a counter is.
enum class CounterUnit : uint8_t { messages, packets, bytes };

/// How two values of a counter combine: the workers of a repetition, the ranks of a job, the
/// repetitions of a scenario and the flows of a group or class.
enum class CounterMerge : uint8_t {
  sum,  // events
  max,  // high-water marks
};

/// Where a counter is counted. `receiver`: where the traffic arrives, inside the measured
/// window. `sender`: where the messages are posted, over the whole run (warm-up included); a
/// multi-host job takes these from the sending ranks and a sender-only run reports them.
enum class CounterSide : uint8_t { receiver, sender };

// One line a counter:
//   X(name, unit, merge, side, in the results' flows, column heading ("": none), what it counts)
// The name is the member, the JSON key and the codec's order; the heading, when not empty,
// gives the counter a column in the HTML flow table (results) or the sender summary (sender).
#define QB_FLOW_COUNTERS(X)                                                                  \
  X(messages, messages, sum, receiver, true, "",                                             \
    "messages whose last packet arrived in the window")                                      \
  X(packets, packets, sum, receiver, true, "", "packets that arrived in the window")         \
  X(payload_bytes, bytes, sum, receiver, true, "", "their payload bytes")                    \
  X(wire_bytes, bytes, sum, receiver, true, "",                                              \
    "their bytes on the wire (headers, preamble and gap included)")                          \
  X(drops, packets, sum, receiver, true, "drops", "packets of the flow the fabric dropped")  \
  X(posted_messages, messages, sum, sender, false, "posted", "messages posted")              \
  X(late_posts, messages, sum, sender, true, "late posts",                                   \
    "rate-driven flows: messages posted after their scheduled time because the send window " \
    "was full")

/// The counters of one flow (or of a sum of flows), one member a row of QB_FLOW_COUNTERS.
struct Counters {
#define QB_COUNTER_MEMBER(name, ...) uint64_t name = 0;
  QB_FLOW_COUNTERS(QB_COUNTER_MEMBER)
#undef QB_COUNTER_MEMBER
  bool operator==(const Counters&) const = default;
};

/// One row of the table.
struct CounterInfo {
  std::string_view name;
  uint64_t Counters::*member;
  CounterUnit unit;
  CounterMerge merge;
  CounterSide side;
  bool in_results;          // a key of every flow in the results JSON
  std::string_view column;  // heading of its column; empty: no column
  std::string_view what;    // what it counts (docs, tests)
};

inline constexpr std::array kCounters = {
#define QB_COUNTER_ROW(name, unit, merge, side, in_results, column, what) \
  CounterInfo{#name,                                                      \
              &Counters::name,                                            \
              CounterUnit::unit,                                          \
              CounterMerge::merge,                                        \
              CounterSide::side,                                          \
              in_results,                                                 \
              column,                                                     \
              what},
    QB_FLOW_COUNTERS(QB_COUNTER_ROW)
#undef QB_COUNTER_ROW
};
static_assert(sizeof(Counters) == kCounters.size() * sizeof(uint64_t));

/// The unit's name: "messages", "packets", "bytes".
constexpr std::string_view counter_unit_name(CounterUnit unit) noexcept {
  switch (unit) {
    case CounterUnit::messages:
      return "messages";
    case CounterUnit::packets:
      return "packets";
    case CounterUnit::bytes:
      return "bytes";
  }
  return "";
}

/// Merges one counter's value `from` into `into` by its rule.
constexpr void merge_counter(const CounterInfo& counter, Counters& into,
                             const Counters& from) noexcept {
  uint64_t& a = into.*counter.member;
  const uint64_t b = from.*counter.member;
  a = counter.merge == CounterMerge::sum ? a + b : (a > b ? a : b);
}

/// Merges every counter of `from` into `into`.
constexpr void merge_counters(Counters& into, const Counters& from) noexcept {
  for (const CounterInfo& counter : kCounters) merge_counter(counter, into, from);
}

/// Merges the counters of one side only (a multi-host job: what was posted, from a sender).
constexpr void merge_counters(Counters& into, const Counters& from, CounterSide side) noexcept {
  for (const CounterInfo& counter : kCounters) {
    if (counter.side == side) merge_counter(counter, into, from);
  }
}

/// What `now` added since `before` (cumulative counts of one source): sums subtract, a
/// high-water mark stays what it is now.
constexpr Counters counters_since(const Counters& now, const Counters& before) noexcept {
  Counters out = now;
  for (const CounterInfo& counter : kCounters) {
    if (counter.merge == CounterMerge::sum) out.*counter.member -= before.*counter.member;
  }
  return out;
}

}  // namespace qb::engine
