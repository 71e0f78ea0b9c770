// Log-linear histogram in the HdrHistogram layout, written from the layout description:
// bucket b (b >= 0) covers [2^b * half, 2^(b+1) * half) ... with 2*half sub-buckets of width 2^b,
// where only the top half of every bucket but the first is used (the bottom half is covered
// by the previous bucket at a finer resolution). With the lowest discernible value 1 the
// flat index of a value v is
//   b     = (64 - sub_bucket_count_magnitude) - clz(v | sub_bucket_mask)
//   index = (b << half_count_magnitude) + (v >> b)
// which needs one clz, two shifts and an add: no division, no branch.
#include "qb/engine/histogram.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <span>
#include <vector>

namespace qb::engine {

namespace {

constexpr int kMinDigits = 1;
constexpr int kMaxDigits = 5;

}  // namespace

Histogram::Histogram(int64_t highest_trackable, int significant_digits)
    // Out-of-range arguments are clamped rather than rejected: a constructor cannot return an
    // Error, and the callers (engine, results loader) pass validated or fixed values.
    : highest_trackable_(std::max<int64_t>(highest_trackable, 2)),
      significant_digits_(std::clamp(significant_digits, kMinDigits, kMaxDigits)) {
  int64_t largest_single_unit = 2;
  for (int i = 0; i < significant_digits_; ++i) largest_single_unit *= 10;
  // Sub-bucket count: the next power of two >= 2 * 10^digits, so that the width of a
  // sub-bucket (2^b) is at most 1/10^digits of the lowest value it holds (2^b * half).
  const int sub_bucket_count_magnitude =
      std::bit_width(static_cast<uint64_t>(largest_single_unit - 1));
  sub_bucket_half_count_magnitude_ = static_cast<size_t>(sub_bucket_count_magnitude - 1);
  sub_bucket_half_count_ = int64_t{1} << sub_bucket_half_count_magnitude_;
  const uint64_t sub_bucket_count = uint64_t{1} << sub_bucket_count_magnitude;
  sub_bucket_mask_ = (sub_bucket_count - 1) << kUnitMagnitude;

  // Buckets double until one covers highest_trackable (unsigned: no overflow up to INT64_MAX).
  size_t buckets = 1;
  for (uint64_t smallest_untrackable = sub_bucket_count << kUnitMagnitude;
       smallest_untrackable <= static_cast<uint64_t>(highest_trackable_);
       smallest_untrackable <<= 1) {
    ++buckets;
  }
  bucket_count_ = buckets;
  // Bucket 0 takes two half-count runs of counters, every further bucket one (its upper half;
  // the lower half is the previous bucket's range).
  counts_ = ZeroPageCounters((bucket_count_ + 1) << sub_bucket_half_count_magnitude_);
}

Histogram::Histogram(const Histogram& other)
    // The same layout (the constructor derives it from these two) and a fresh array.
    : Histogram(other.highest_trackable_, other.significant_digits_) {
  clamped_count_ = other.clamped_count_;
  min_ = other.min_;
  max_ = other.max_;
  exact_sum_ = other.exact_sum_;
  sum_ = other.sum_;
  // Zeros are skipped, not written: a page that holds none of the source's values stays
  // unwritten, so it takes no memory in the copy either.
  Counter* target = counts_.data() + other.first_index_in_use();
  for (const Counter c : other.counts_in_use()) {
    if (c.count != 0) target->count = c.count;
    ++target;
  }
}

Histogram& Histogram::operator=(const Histogram& other) {
  if (this != &other) *this = Histogram(other);
  return *this;
}

Histogram::Histogram(Histogram&& other) noexcept
    : highest_trackable_(other.highest_trackable_),
      significant_digits_(other.significant_digits_),
      sub_bucket_half_count_magnitude_(other.sub_bucket_half_count_magnitude_),
      sub_bucket_half_count_(other.sub_bucket_half_count_),
      sub_bucket_mask_(other.sub_bucket_mask_),
      bucket_count_(other.bucket_count_),
      counts_(std::move(other.counts_)),
      clamped_count_(other.clamped_count_),
      min_(other.min_),
      max_(other.max_),
      exact_sum_(other.exact_sum_),
      sum_(other.sum_) {
  other.forget_values();  // its extremes must not claim counters it no longer has
}

Histogram& Histogram::operator=(Histogram&& other) noexcept {
  if (this != &other) {
    clear_counts();  // this array goes back for reuse all zero: before the layout changes
    highest_trackable_ = other.highest_trackable_;
    significant_digits_ = other.significant_digits_;
    sub_bucket_half_count_magnitude_ = other.sub_bucket_half_count_magnitude_;
    sub_bucket_half_count_ = other.sub_bucket_half_count_;
    sub_bucket_mask_ = other.sub_bucket_mask_;
    bucket_count_ = other.bucket_count_;
    counts_ = std::move(other.counts_);
    clamped_count_ = other.clamped_count_;
    min_ = other.min_;
    max_ = other.max_;
    exact_sum_ = other.exact_sum_;
    sum_ = other.sum_;
    other.forget_values();
  }
  return *this;
}

void Histogram::forget_values() noexcept {
  clamped_count_ = 0;
  min_ = INT64_MAX;
  max_ = 0;
  exact_sum_ = 0;
  sum_ = 0.0;
}

std::span<Histogram::Counter> Histogram::counts_in_use() noexcept {
  if (empty()) return {};
  return {counts_.data() + index_of(min_), counts_.data() + index_of(max_) + 1};
}

std::span<const Histogram::Counter> Histogram::counts_in_use() const noexcept {
  return const_cast<Histogram*>(this)->counts_in_use();
}

uint64_t Histogram::count() const noexcept {
  uint64_t total = 0;
  for (const Counter c : counts_in_use()) total += c.count;
  return total;
}

int64_t Histogram::value_from_index(size_t index) const noexcept {
  int bucket = static_cast<int>(index >> sub_bucket_half_count_magnitude_) - 1;
  auto sub_bucket = static_cast<int64_t>(index & static_cast<size_t>(sub_bucket_half_count_ - 1)) +
                    sub_bucket_half_count_;
  if (bucket < 0) {  // the first bucket uses its bottom half too
    sub_bucket -= sub_bucket_half_count_;
    bucket = 0;
  }
  return sub_bucket << (bucket + kUnitMagnitude);
}

int64_t Histogram::highest_equivalent(int64_t value) const noexcept {
  const auto v = static_cast<uint64_t>(value);
  const int leading_zero_base =
      64 - kUnitMagnitude - (static_cast<int>(sub_bucket_half_count_magnitude_) + 1);
  const int bucket = leading_zero_base - std::countl_zero(v | sub_bucket_mask_);
  const int shift = bucket + kUnitMagnitude;
  const uint64_t lowest = (v >> shift) << shift;
  return static_cast<int64_t>(lowest + ((uint64_t{1} << shift) - 1));
}

void Histogram::set_sum(double sum) noexcept {
  sum_ = sum;
  // Back to the integer accumulation when the double is an exact integer in range (then it
  // equals the integer bit for bit and the next steps round the same way).
  exact_sum_ = (sum >= 0.0 && sum <= static_cast<double>(kExactSumLimit) && sum == std::floor(sum))
                   ? static_cast<uint64_t>(sum)
                   : kSumInDouble;
}

void Histogram::record_n(int64_t value, uint64_t count) noexcept {
  if (count == 0) return;
  const int64_t clamped = std::clamp<int64_t>(value, 0, highest_trackable_);
  clamped_count_ += clamped != value ? count : 0;
  counts_.data()[index_of(clamped)].count += count;
  min_ = std::min(min_, clamped);
  max_ = std::max(max_, clamped);
  set_sum(sum() + static_cast<double>(clamped) * static_cast<double>(count));
}

void Histogram::add_bucket_counts(int64_t value, uint64_t count) noexcept {
  if (count == 0) return;
  // Only the bucket is known: keep min/max as bounds that never understate the spread
  // (lowest value of the lowest bucket, highest equivalent of the highest), and use the
  // bucket middle for the mean.
  const int64_t clamped = std::clamp<int64_t>(value, 0, highest_trackable_);
  const size_t index = index_of(clamped);
  const int64_t lowest = value_from_index(index);
  const int64_t highest = std::min(highest_equivalent(lowest), highest_trackable_);
  counts_.data()[index].count += count;
  min_ = std::min(min_, lowest);
  max_ = std::max(max_, highest);
  set_sum(sum() + (static_cast<double>(lowest) + static_cast<double>(highest)) / 2.0 *
                      static_cast<double>(count));
}

bool Histogram::merge(const Histogram& other) noexcept {
  if (other.highest_trackable_ != highest_trackable_ ||
      other.significant_digits_ != significant_digits_ || other.counts_.size() != counts_.size()) {
    return false;
  }
  Counter* target = counts_.data() + other.first_index_in_use();
  for (const Counter c : other.counts_in_use()) {
    if (c.count != 0) target->count += c.count;  // zeros not written, as in the copy
    ++target;
  }
  clamped_count_ += other.clamped_count_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  set_sum(sum() + other.sum());
  return true;
}

Histogram::State Histogram::state() const {
  State out;
  out.highest_trackable = highest_trackable_;
  out.significant_digits = significant_digits_;
  size_t index = first_index_in_use();
  for (const Counter c : counts_in_use()) {
    if (c.count != 0) out.counts.emplace_back(static_cast<uint32_t>(index), c.count);
    out.total_count += c.count;
    ++index;
  }
  out.clamped_count = clamped_count_;
  out.min = min_;
  out.max = max_;
  out.exact_sum = exact_sum_;
  out.sum = sum_;
  return out;
}

std::optional<Histogram> Histogram::from_state(const State& state) {
  Histogram out(state.highest_trackable, state.significant_digits);
  if (out.highest_trackable_ != state.highest_trackable ||
      out.significant_digits_ != state.significant_digits) {
    return std::nullopt;  // the constructor clamped: not a layout a histogram has
  }
  // As state() gives them: an empty histogram has the empty extremes; otherwise the extremes
  // are in range and every counter lies between their indices (the copy, merge and reset scan
  // only that range).
  if (state.counts.empty() != (state.min == INT64_MAX && state.max == 0)) return std::nullopt;
  if (!state.counts.empty() &&
      (state.min < 0 || state.min > state.max || state.max > out.highest_trackable_)) {
    return std::nullopt;
  }
  const size_t first = state.counts.empty() ? 0 : out.index_of(state.min);
  const size_t last = state.counts.empty() ? 0 : out.index_of(state.max);
  uint64_t total = 0;
  int64_t previous = -1;
  for (const auto& [index, count] : state.counts) {
    // As state() lists them: ascending, each counter once, none zero.
    if (index < first || index > last || count == 0 || int64_t{index} <= previous) {
      return std::nullopt;
    }
    previous = index;
    if (__builtin_add_overflow(total, count, &total)) return std::nullopt;
  }
  const bool sum_in_double = state.exact_sum == kSumInDouble;
  if (total != state.total_count || state.clamped_count > total ||
      (!sum_in_double && state.exact_sum > kExactSumLimit)) {
    return std::nullopt;
  }
  // Written only once all is checked: a refused state must leave `out` with no counter set
  // (its array goes back for reuse, cleared only within the extremes it has).
  for (const auto& [index, count] : state.counts) out.counts_.data()[index].count = count;
  out.clamped_count_ = state.clamped_count;
  out.min_ = state.min;
  out.max_ = state.max;
  out.exact_sum_ = state.exact_sum;
  out.sum_ = state.sum;
  return out;
}

void Histogram::clear_counts() noexcept {
  for (Counter& c : counts_in_use()) {
    if (c.count != 0) c.count = 0;
  }
}

void Histogram::reset() noexcept {
  clear_counts();  // the pages written stay, for the next run
  forget_values();
}

int64_t Histogram::min() const noexcept {
  return empty() ? 0 : min_;
}

int64_t Histogram::max() const noexcept {
  return empty() ? 0 : max_;
}

double Histogram::mean() const noexcept {
  return empty() ? 0.0 : sum() / static_cast<double>(count());
}

int64_t Histogram::value_at_percentile(double p) const noexcept {
  int64_t value = 0;
  values_at_percentiles(std::span<const double>(&p, 1), std::span<int64_t>(&value, 1));
  return value;
}

void Histogram::values_at_percentiles(std::span<const double> percentiles,
                                      std::span<int64_t> out) const noexcept {
  const size_t n = std::min(percentiles.size(), out.size());
  const uint64_t total_count = count();
  if (total_count == 0) {
    std::fill_n(out.begin(), n, int64_t{0});
    return;
  }
  // Rank of the sample for each p: the smallest r with r >= p% of count (at least the first
  // sample). The tiny relative slack absorbs the rounding of p / 100 * count (99.9% of 1000 is
  // 999, not 999.0000000000001 -> 1000). p >= 100 (also +inf) is max(); NaN counts as 0.
  const auto rank_of = [&](double p) -> uint64_t {
    if (!(p < 100.0)) return UINT64_MAX;
    if (!(p > 0.0)) p = 0.0;
    const double target = p / 100.0 * static_cast<double>(total_count);
    const auto rank = static_cast<uint64_t>(std::ceil(target - target * 1e-12));
    return std::clamp<uint64_t>(rank, 1, total_count);
  };
  // Visit the requests in ascending rank; one scan answers them all.
  struct Request {
    uint64_t rank;
    size_t slot;
  };
  std::array<Request, 32> stack_requests{};
  std::vector<Request> heap_requests;
  std::span<Request> requests(stack_requests.data(), std::min(n, stack_requests.size()));
  if (n > stack_requests.size()) {
    heap_requests.resize(n);
    requests = heap_requests;
  }
  for (size_t k = 0; k < n; ++k) requests[k] = Request{rank_of(percentiles[k]), k};
  std::sort(requests.begin(), requests.end(),
            [](const Request& a, const Request& b) { return a.rank < b.rank; });
  size_t next = 0;
  // One plain loop from min to max (this runs per flow and percentile when a run ends, so it
  // bounds how fast an interrupted run writes its results).
  uint64_t seen = 0;
  size_t i = first_index_in_use();
  for (const Counter c : counts_in_use()) {
    if (next == n) break;
    seen += c.count;
    // Capped at the exact maximum: the top bucket's highest equivalent may exceed it, and
    // p99.99 must never report more than p100.
    while (next < n && seen >= requests[next].rank) {
      out[requests[next++].slot] = std::min(highest_equivalent(value_from_index(i)), max_);
    }
    ++i;
  }
  for (; next < n; ++next) out[requests[next].slot] = max_;
}

size_t Histogram::memory_bytes() const noexcept {
  return sizeof(*this) + counts_.reserved_bytes();
}

}  // namespace qb::engine
