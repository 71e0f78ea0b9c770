// Latency histogram with the HdrHistogram layout (log-linear buckets): fixed memory chosen at
// construction, a few ns per record, mergeable, and every percentile exact to the configured
// number of significant decimal digits (default 3: within 0.1% of the true sample value).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "qb/engine/zero_page_counters.hpp"

namespace qb::engine {

class Histogram {
  using Counter = ZeroPageCounters::Counter;

 public:
  /// Values are recorded in [0, highest_trackable]; larger values are clamped to it (negative
  /// ones to 0) and counted in clamped_count(). significant_digits in [1, 5] (clamped into it).
  explicit Histogram(int64_t highest_trackable = 10'000'000'000 /* 10 s in ns */,
                     int significant_digits = 3);
  /// Copies the counters in use only (those between min and max), so a copy takes the memory
  /// its source does.
  Histogram(const Histogram& other);
  Histogram& operator=(const Histogram& other);
  ~Histogram() { clear_counts(); }  // the array is reused all zero (ZeroPageCounters)
  /// A moved-from histogram is empty and holds no counters: assign to it before recording.
  Histogram(Histogram&& other) noexcept;
  Histogram& operator=(Histogram&& other) noexcept;

  /// Inline: it is on the per-completion path (engine, drivers) and costs a few ns; see
  /// docs/performance.md for what each line costs.
  void record(int64_t value) noexcept {
    int64_t clamped = value;
    // Branches, not conditional moves: clamping and new extremes are rare, and a store only
    // when they happen keeps these fields off the loop-carried store->load chain that a
    // read-modify-write of every field per record would be. One unsigned compare finds both
    // ends (a negative value is above any highest_trackable as unsigned).
    if (static_cast<uint64_t>(value) > static_cast<uint64_t>(highest_trackable_)) [[unlikely]] {
      clamped = value < 0 ? 0 : highest_trackable_;
      ++clamped_count_;
    }
    // No running total: count() adds the counters up when asked (only results need it).
    ++counts_.data()[index_of(clamped)].count;
    if (clamped < min_) [[unlikely]]
      min_ = clamped;
    if (clamped > max_) [[unlikely]]
      max_ = clamped;
    add_to_sum(clamped);
  }
  void record_n(int64_t value, uint64_t count) noexcept;
  /// Bit for bit what `count` calls of record(value) give (counts, extremes and the sum's
  /// rounding), at the cost of one: callers batch runs of equal values with it.
  void record_repeated(int64_t value, uint64_t count) noexcept {
    if (count == 0) return;  // nothing recorded: the extremes must not move either
    const int64_t clamped = std::clamp<int64_t>(value, 0, highest_trackable_);
    if (clamped != value) [[unlikely]]
      clamped_count_ += count;
    counts_.data()[index_of(clamped)].count += count;
    if (clamped < min_) [[unlikely]]
      min_ = clamped;
    if (clamped > max_) [[unlikely]]
      max_ = clamped;
    uint64_t added = 0;
    uint64_t s = 0;
    if (!__builtin_mul_overflow(static_cast<uint64_t>(clamped), count, &added) &&
        !__builtin_add_overflow(exact_sum_, added, &s) && s <= kExactSumLimit) [[likely]] {
      exact_sum_ = s;  // every partial sum on the way is an exact integer too
    } else {
      for (uint64_t i = 0; i < count; ++i) add_to_sum(clamped);  // rounds step by step
    }
  }
  /// Adds another histogram's counts; both must have the same layout (returns false if not).
  bool merge(const Histogram& other) noexcept;
  void reset() noexcept;

  /// The number of recorded values: a sum over the counters in use (not kept per record).
  uint64_t count() const noexcept;
  bool empty() const noexcept { return min_ > max_; }
  uint64_t clamped_count() const noexcept { return clamped_count_; }
  int64_t min() const noexcept;  // 0 when empty
  int64_t max() const noexcept;  // exact recorded maximum (after clamping); 0 when empty
  double mean() const noexcept;
  /// Value at percentile p in [0, 100]: the highest value equivalent (same bucket) to the
  /// smallest recorded value v such that at least p% of the samples are <= v. For p = 100,
  /// returns max(). 0 when empty.
  int64_t value_at_percentile(double p) const noexcept;
  /// value_at_percentile for each of `percentiles` (any order) into `out`, in one scan.
  void values_at_percentiles(std::span<const double> percentiles,
                             std::span<int64_t> out) const noexcept;

  int64_t highest_trackable() const noexcept { return highest_trackable_; }
  int significant_digits() const noexcept { return significant_digits_; }
  size_t memory_bytes() const noexcept;

  /// Visits every non-empty bucket as (lowest value, highest equivalent value, count), in
  /// ascending order. Used for serialisation and for percentile spectra.
  template <class F>
  void for_each_bucket(F&& visit) const {
    if (empty()) return;
    for (size_t i = index_of(min_), last = index_of(max_); i <= last; ++i) {
      const uint64_t count = counts_.data()[i].count;
      if (count != 0) visit(value_from_index(i), highest_equivalent(value_from_index(i)), count);
    }
  }

  /// Rebuilds from serialised buckets (value, count) pairs, as written by for_each_bucket
  /// (any value of the bucket will do). The counts, and so every percentile below the top
  /// bucket, round-trip exactly; min()/max() become the bucket bounds (never inside the true
  /// range) and mean() uses bucket middles.
  void add_bucket(int64_t value, uint64_t count) noexcept { add_bucket_counts(value, count); }

  /// Everything a histogram holds, to send it to another process (multi-host runs): unlike
  /// the bucket list above, from_state() restores it bit for bit (min, max, sum, clamped).
  struct State {
    int64_t highest_trackable = 0;
    int significant_digits = 0;
    std::vector<std::pair<uint32_t, uint64_t>> counts;  // (counter index, count), non-zero only
    uint64_t total_count = 0;
    uint64_t clamped_count = 0;
    int64_t min = 0;
    int64_t max = 0;
    uint64_t exact_sum = 0;
    double sum = 0.0;
  };
  State state() const;
  /// Nullopt when the state is not one state() gives (an index outside the layout of its range
  /// and digits, outside the indices of its min..max or out of ascending order, a zero count,
  /// counts that do not add up to the total, extremes that say empty with counts or the
  /// reverse).
  static std::optional<Histogram> from_state(const State& state);

 private:
  void add_bucket_counts(int64_t value, uint64_t count) noexcept;
  /// Empty again: the extremes, the clamped count and the sum (not the counters).
  void forget_values() noexcept;
  /// Every counter back to zero: only those in use can be non-zero, and only non-zero ones are
  /// written (a page never written stays so).
  void clear_counts() noexcept;
  /// The counters that can be non-zero: every recorded value (and bucket) lies in [min, max].
  std::span<Counter> counts_in_use() noexcept;
  std::span<const Counter> counts_in_use() const noexcept;
  size_t first_index_in_use() const noexcept { return empty() ? 0 : index_of(min_); }
  /// Flat counter index of a value in [0, highest_trackable]: bucket = msb(v | mask) - half
  /// magnitude (one bsr, no branch: the operand is never 0), then the sub-bucket v >> bucket.
  size_t index_of(int64_t value) const noexcept {
    const auto v = static_cast<uint64_t>(value);
    // 63 ^ clz is the index of the highest set bit (a lone bsr on baseline x86-64). The
    // builtin, unlike std::countl_zero, has no case for 0 to compile: the mask is never 0.
    const auto msb = static_cast<size_t>(63 ^ __builtin_clzll(v | sub_bucket_mask_));
    const size_t bucket = msb - sub_bucket_half_count_magnitude_;
    return (bucket << sub_bucket_half_count_magnitude_) + static_cast<size_t>(v >> bucket);
  }
  /// The sum of the recorded values, as the double accumulation sum += value would have it.
  double sum() const noexcept {
    return exact_sum_ == kSumInDouble ? sum_ : static_cast<double>(exact_sum_);
  }
  /// sum += value for one recorded value. While the sum stays at most 2^53 every double
  /// partial sum is an exact integer, so an integer add (1 cycle on the loop-carried chain,
  /// against cvtsi2sd + addsd) gives the same bits; past it, the double accumulation takes
  /// over from the exact value, step for step as before.
  void add_to_sum(int64_t clamped) noexcept {
    const uint64_t s = exact_sum_ + static_cast<uint64_t>(clamped);
    if (s <= kExactSumLimit) [[likely]] {
      exact_sum_ = s;
    } else {
      // The first step that may round (and every one after it): the double accumulation from
      // the exact value, as sum += value always computed it. Inline, not a call: a call in a
      // loop of records would make the compiler keep exact_sum_ in memory.
      sum_ = sum() + static_cast<double>(clamped);
      exact_sum_ = kSumInDouble;
    }
  }
  /// Sets the sum after a double computation (record_n, add_bucket, merge).
  void set_sum(double sum) noexcept;
  int64_t value_from_index(size_t index) const noexcept;
  int64_t highest_equivalent(int64_t value) const noexcept;

  int64_t highest_trackable_;
  int significant_digits_;
  size_t sub_bucket_half_count_magnitude_ = 0;
  int64_t sub_bucket_half_count_ = 0;
  uint64_t sub_bucket_mask_ = 0;  // never 0 (index_of relies on it)
  static constexpr int32_t kUnitMagnitude = 0;  // lowest discernible value is 1
  size_t bucket_count_ = 0;
  ZeroPageCounters counts_;  // the whole layout, memory taken per page written
  uint64_t clamped_count_ = 0;
  int64_t min_ = INT64_MAX;  // min_ > max_: empty
  int64_t max_ = 0;
  // The sum: exact_sum_ while the double accumulation is exact (<= 2^53), else kSumInDouble
  // and sum_ holds it (see add_to_sum).
  static constexpr uint64_t kExactSumLimit = uint64_t{1} << 53;
  static constexpr uint64_t kSumInDouble = uint64_t{1} << 63;
  uint64_t exact_sum_ = 0;
  double sum_ = 0.0;
};

}  // namespace qb::engine
