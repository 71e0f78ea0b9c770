#include "qb/engine/histogram.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "qb/common/rng.hpp"

namespace qb::engine {
namespace {

constexpr int64_t kTenSeconds = 10'000'000'000;

// Percentiles in hundredths of a percent, so the exact rank is integer arithmetic.
constexpr int64_t kPercentilesX100[] = {0, 100, 1000, 5000, 9000, 9900, 9990, 9999, 10000};

/// The exact sample value at the rank the histogram promises: the smallest r with
/// r >= p% of n (at least 1).
int64_t exact_at(const std::vector<int64_t>& sorted, int64_t p_x100) {
  const auto n = static_cast<uint64_t>(sorted.size());
  uint64_t rank = (static_cast<uint64_t>(p_x100) * n + 9999) / 10000;
  rank = std::clamp<uint64_t>(rank, 1, n);
  return sorted[rank - 1];
}

/// Records the samples, then checks every percentile against the exact one: never below,
/// within 10^-3 relative above. Samples are expected to be already clamped.
void check_percentiles(const std::vector<int64_t>& samples, const std::string& what,
                       int64_t highest = kTenSeconds) {
  Histogram histogram(highest, 3);
  for (int64_t v : samples) histogram.record(v);
  std::vector<int64_t> sorted = samples;
  for (auto& v : sorted) v = std::clamp<int64_t>(v, 0, highest);
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(histogram.count(), samples.size()) << what;
  EXPECT_EQ(histogram.min(), sorted.front()) << what;
  EXPECT_EQ(histogram.max(), sorted.back()) << what;
  for (int64_t p_x100 : kPercentilesX100) {
    const double p = static_cast<double>(p_x100) / 100.0;
    const int64_t exact = exact_at(sorted, p_x100);
    const int64_t got = histogram.value_at_percentile(p);
    EXPECT_GE(got, exact) << what << " p" << p;
    EXPECT_LE(static_cast<double>(got - exact), 1e-3 * static_cast<double>(exact))
        << what << " p" << p << " exact " << exact << " got " << got;
  }
}

std::vector<int64_t> draw(size_t n, uint64_t seed, const std::function<int64_t(Rng&)>& one) {
  Rng rng(seed);
  std::vector<int64_t> samples(n);
  for (auto& v : samples) v = one(rng);
  return samples;
}

// The worker loop records a run of equal latencies at once: the histogram must hold exactly
// what as many record() calls give, the sum's rounding included (past 2^53 the double sum
// rounds at every addition) and the clamping count.
TEST(Histogram, RecordRepeatedIsBitForBitThatManyRecords) {
  Rng rng(20261127);
  for (int round = 0; round < 200; ++round) {
    Histogram repeated(kTenSeconds, 3);
    Histogram one_by_one(kTenSeconds, 3);
    const bool huge = round % 20 == 0;  // sums past 2^53, and values past the range
    for (int run = 0; run < 40; ++run) {
      const int64_t value =
          huge ? static_cast<int64_t>(rng.next_unit() * 2.0 * static_cast<double>(kTenSeconds))
               : static_cast<int64_t>(rng.next_unit() * 1e6);
      const auto count = static_cast<uint64_t>(rng.next_unit() * (huge ? 3e5 : 50.0));
      repeated.record_repeated(value, count);
      for (uint64_t i = 0; i < count; ++i) one_by_one.record(value);
    }
    const Histogram::State a = repeated.state();
    const Histogram::State b = one_by_one.state();
    ASSERT_EQ(a.counts, b.counts) << "round " << round;
    ASSERT_EQ(a.total_count, b.total_count);
    ASSERT_EQ(a.clamped_count, b.clamped_count);
    ASSERT_EQ(a.min, b.min);
    ASSERT_EQ(a.max, b.max);
    ASSERT_EQ(a.exact_sum, b.exact_sum) << "round " << round;
    ASSERT_EQ(a.sum, b.sum) << "round " << round;  // bit for bit, not nearly
  }
  // Zero times is nothing, extremes included.
  Histogram h(kTenSeconds, 3);
  h.record(500);
  h.record_repeated(7, 0);
  h.record_repeated(kTenSeconds, 0);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.min(), 500);
  EXPECT_EQ(h.max(), 500);
}

TEST(Histogram, LayoutForThreeDigits) {
  // 2 * 10^3 -> 2048 sub-buckets; buckets double from 2048 until one covers 10 s:
  // 2048 * 2^23 > 1e10 >= 2048 * 2^22, so 24 buckets and (24 + 1) * 1024 counters.
  Histogram histogram(kTenSeconds, 3);
  EXPECT_GE(histogram.memory_bytes(), 25u * 1024u * sizeof(uint64_t));
  EXPECT_LT(histogram.memory_bytes(), 25u * 1024u * sizeof(uint64_t) + 1024u);
  EXPECT_EQ(histogram.highest_trackable(), kTenSeconds);
  EXPECT_EQ(histogram.significant_digits(), 3);
}

TEST(Histogram, SmallValuesAreExact) {
  // Below 2048 every value has its own counter.
  Histogram histogram;
  for (int64_t v = 0; v < 2048; ++v) histogram.record(v);
  int64_t expected_lowest = 0;
  histogram.for_each_bucket([&](int64_t lowest, int64_t highest, uint64_t count) {
    EXPECT_EQ(lowest, expected_lowest);
    EXPECT_EQ(highest, lowest);
    EXPECT_EQ(count, 1u);
    ++expected_lowest;
  });
  EXPECT_EQ(expected_lowest, 2048);
  EXPECT_EQ(histogram.value_at_percentile(50.0), 1023);  // rank 1024 of 0..2047
}

TEST(Histogram, BucketBoundaries) {
  // 2048..4095 in width-2 sub-buckets, 4096..8191 in width 4, ...
  Histogram histogram;
  histogram.record(2048);
  histogram.record(2049);
  histogram.record(4099);
  std::vector<std::tuple<int64_t, int64_t, uint64_t>> buckets;
  histogram.for_each_bucket([&](int64_t lowest, int64_t highest, uint64_t count) {
    buckets.emplace_back(lowest, highest, count);
  });
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(buckets[0], std::make_tuple(int64_t{2048}, int64_t{2049}, uint64_t{2}));
  EXPECT_EQ(buckets[1], std::make_tuple(int64_t{4096}, int64_t{4099}, uint64_t{1}));
}

TEST(Histogram, EmptyHistogram) {
  Histogram histogram;
  EXPECT_EQ(histogram.count(), 0u);
  EXPECT_EQ(histogram.min(), 0);
  EXPECT_EQ(histogram.max(), 0);
  EXPECT_EQ(histogram.mean(), 0.0);
  EXPECT_EQ(histogram.value_at_percentile(50.0), 0);
  EXPECT_EQ(histogram.value_at_percentile(100.0), 0);
}

TEST(Histogram, PercentilesUniform) {
  check_percentiles(draw(200'000, 1, [](Rng& r) { return int64_t(r.next_below(5'000'000)); }),
                    "uniform");
}

TEST(Histogram, PercentilesExponential) {
  check_percentiles(
      draw(200'000, 2, [](Rng& r) { return static_cast<int64_t>(r.next_exponential(20'000)); }),
      "exponential");
}

TEST(Histogram, PercentilesLognormalHeavyTail) {
  // exp(N(mu, sigma)) with a wide sigma: spans several decades.
  check_percentiles(draw(200'000, 3,
                         [](Rng& r) {
                           const double u1 = 1.0 - r.next_unit();
                           const double u2 = r.next_unit();
                           const double z =
                               std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
                           return static_cast<int64_t>(std::exp(9.0 + 2.5 * z));
                         }),
                    "lognormal");
}

TEST(Histogram, PercentilesConstant) {
  check_percentiles(std::vector<int64_t>(1000, 123'456'789), "constant");
  check_percentiles(std::vector<int64_t>(10, 0), "zeros");
  check_percentiles({7}, "single");
}

TEST(Histogram, PercentilesNearBucketBoundaries) {
  std::vector<int64_t> samples;
  for (int shift = 11; shift < 33; ++shift) {
    const int64_t edge = int64_t{1} << shift;
    for (int64_t d = -3; d <= 3; ++d) samples.push_back(edge + d);
    // Sub-bucket edges inside the bucket, too.
    const int64_t width = int64_t{1} << (shift - 10);
    samples.push_back(edge + 5 * width - 1);
    samples.push_back(edge + 5 * width);
  }
  check_percentiles(samples, "boundaries");
}

TEST(Histogram, PercentilesWithClampedValues) {
  auto samples = draw(10'000, 4, [](Rng& r) {
    return r.next_below(10) == 0 ? int64_t{5'000'000'000'000} : int64_t(r.next_below(1'000'000));
  });
  check_percentiles(samples, "clamped");
  Histogram histogram;
  for (int64_t v : samples) histogram.record(v);
  const auto huge = std::count(samples.begin(), samples.end(), int64_t{5'000'000'000'000});
  EXPECT_EQ(histogram.clamped_count(), static_cast<uint64_t>(huge));
  EXPECT_EQ(histogram.max(), kTenSeconds);
  EXPECT_EQ(histogram.value_at_percentile(100.0), kTenSeconds);
  EXPECT_EQ(histogram.value_at_percentile(99.0), kTenSeconds);  // capped at max, not above
}

TEST(Histogram, NegativeValuesClampToZero) {
  Histogram histogram;
  histogram.record(-5);
  histogram.record(3);
  EXPECT_EQ(histogram.clamped_count(), 1u);
  EXPECT_EQ(histogram.min(), 0);
  EXPECT_EQ(histogram.value_at_percentile(50.0), 0);
}

TEST(Histogram, SmallHighestTrackableAndOtherDigits) {
  check_percentiles(draw(50'000, 5, [](Rng& r) { return int64_t(r.next_below(1500)); }),
                    "small range", 1000);
  for (int digits = 1; digits <= 5; ++digits) {
    Histogram histogram(1'000'000'000, digits);
    EXPECT_EQ(histogram.significant_digits(), digits);
    Rng rng(digits);
    std::vector<int64_t> samples(20'000);
    for (auto& v : samples) v = int64_t(rng.next_below(1'000'000'000));
    for (int64_t v : samples) histogram.record(v);
    std::sort(samples.begin(), samples.end());
    const double tolerance = std::pow(10.0, -digits);
    for (int64_t p_x100 : kPercentilesX100) {
      const int64_t exact = exact_at(samples, p_x100);
      const int64_t got = histogram.value_at_percentile(static_cast<double>(p_x100) / 100.0);
      EXPECT_GE(got, exact) << digits;
      EXPECT_LE(static_cast<double>(got - exact), tolerance * static_cast<double>(exact)) << digits;
    }
  }
}

TEST(Histogram, MeanMinMaxAreExact) {
  Histogram histogram;
  histogram.record(100);
  histogram.record(200);
  histogram.record_n(3000, 2);
  EXPECT_EQ(histogram.count(), 4u);
  EXPECT_EQ(histogram.min(), 100);
  EXPECT_EQ(histogram.max(), 3000);
  EXPECT_DOUBLE_EQ(histogram.mean(), (100.0 + 200.0 + 6000.0) / 4.0);
  histogram.record_n(1, 0);  // no samples: min stays
  EXPECT_EQ(histogram.min(), 100);
}

std::vector<std::tuple<int64_t, int64_t, uint64_t>> buckets_of(const Histogram& histogram) {
  std::vector<std::tuple<int64_t, int64_t, uint64_t>> buckets;
  histogram.for_each_bucket([&](int64_t lowest, int64_t highest, uint64_t count) {
    buckets.emplace_back(lowest, highest, count);
  });
  return buckets;
}

TEST(Histogram, MergeEqualsRecordingBothStreams) {
  Histogram a, b, both;
  Rng rng(11);
  for (int i = 0; i < 50'000; ++i) {
    const auto v = static_cast<int64_t>(rng.next_exponential(1e5));
    (i % 3 == 0 ? a : b).record(v);
    both.record(v);
  }
  a.record(kTenSeconds * 3);
  both.record(kTenSeconds * 3);
  ASSERT_TRUE(a.merge(b));
  EXPECT_EQ(buckets_of(a), buckets_of(both));
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.clamped_count(), both.clamped_count());
  EXPECT_EQ(a.min(), both.min());
  EXPECT_EQ(a.max(), both.max());
  EXPECT_NEAR(a.mean(), both.mean(), 1e-9 * both.mean());
  for (double p : {0.0, 50.0, 99.0, 99.99, 100.0}) {
    EXPECT_EQ(a.value_at_percentile(p), both.value_at_percentile(p)) << p;
  }
}

TEST(Histogram, MergeRejectsOtherLayouts) {
  Histogram a(kTenSeconds, 3);
  Histogram other_digits(kTenSeconds, 2);
  Histogram other_range(1'000'000, 3);
  other_digits.record(5);
  EXPECT_FALSE(a.merge(other_digits));
  EXPECT_FALSE(a.merge(other_range));
  EXPECT_EQ(a.count(), 0u);
}

TEST(Histogram, ResetForgetsEverything) {
  Histogram histogram;
  histogram.record(5);
  histogram.record(-1);
  histogram.record(kTenSeconds + 1);
  histogram.reset();
  EXPECT_EQ(histogram.count(), 0u);
  EXPECT_EQ(histogram.clamped_count(), 0u);
  EXPECT_EQ(histogram.max(), 0);
  EXPECT_TRUE(buckets_of(histogram).empty());
  histogram.record(42);
  EXPECT_EQ(histogram.min(), 42);
  EXPECT_EQ(histogram.max(), 42);
  EXPECT_EQ(histogram.mean(), 42.0);
}

TEST(Histogram, MemoryIsFixed) {
  Histogram histogram;
  const size_t before = histogram.memory_bytes();
  Rng rng(3);
  for (int i = 0; i < 100'000; ++i) histogram.record(int64_t(rng.next_u64() >> 20));
  histogram.record(INT64_MAX);
  histogram.record(INT64_MIN);
  EXPECT_EQ(histogram.memory_bytes(), before);
  Histogram other;
  other.record(1);
  ASSERT_TRUE(histogram.merge(other));
  histogram.reset();
  EXPECT_EQ(histogram.memory_bytes(), before);
}

// A copy holds what its source does, bit for bit, and owns it: recording into one leaves the
// other as it was. Copy assignment replaces whatever the target held.
TEST(Histogram, CopyIsTheSameHistogramAndIndependent) {
  Histogram original;
  Rng rng(29);
  for (int i = 0; i < 20'000; ++i) original.record(static_cast<int64_t>(rng.next_exponential(1e5)));
  original.record(-3);               // clamped to 0
  original.record(kTenSeconds * 3);  // clamped to the top
  const Histogram copy(original);
  Histogram assigned(1'000'000, 2);
  assigned.record(77);
  assigned = original;
  for (const Histogram* h : {&copy, static_cast<const Histogram*>(&assigned)}) {
    const Histogram::State a = h->state();
    const Histogram::State b = original.state();
    EXPECT_EQ(a.counts, b.counts);
    EXPECT_EQ(a.total_count, b.total_count);
    EXPECT_EQ(a.clamped_count, b.clamped_count);
    EXPECT_EQ(a.min, b.min);
    EXPECT_EQ(a.max, b.max);
    EXPECT_EQ(a.exact_sum, b.exact_sum);
    EXPECT_EQ(a.highest_trackable, b.highest_trackable);
    EXPECT_EQ(a.significant_digits, b.significant_digits);
  }
  assigned.record(123);
  EXPECT_EQ(original.count(), copy.count());
  EXPECT_EQ(assigned.count(), original.count() + 1);
  const Histogram empty;
  const Histogram empty_copy(empty);  // a named source: a temporary would be elided
  EXPECT_TRUE(empty_copy.empty());
  EXPECT_EQ(empty_copy.count(), 0u);
  Histogram& self = assigned;
  assigned = self;  // self-assignment keeps everything
  EXPECT_EQ(assigned.count(), original.count() + 1);
}

// A move takes everything; the source is left empty (no extremes claiming counters it no longer
// has) and can be assigned to and used again.
TEST(Histogram, MovedFromIsEmptyAndReusable) {
  Histogram source;
  for (int64_t v : {10, 2'000, 3'000'000}) source.record(v);
  const Histogram::State before = source.state();
  Histogram moved(std::move(source));
  EXPECT_EQ(moved.state().counts, before.counts);
  EXPECT_TRUE(source.empty());  // NOLINT(bugprone-use-after-move): what a move leaves
  EXPECT_EQ(source.count(), 0u);
  EXPECT_EQ(source.max(), 0);
  EXPECT_TRUE(source.state().counts.empty());
  Histogram target;
  target.record(77);
  target = std::move(moved);
  EXPECT_EQ(target.state().counts, before.counts);
  EXPECT_EQ(target.count(), 3u);
  EXPECT_TRUE(moved.empty());  // NOLINT(bugprone-use-after-move)
  source = Histogram();
  source.record(5);
  EXPECT_EQ(source.count(), 1u);
  EXPECT_EQ(source.min(), 5);
}

// Counter arrays are reused once a histogram is gone: a new histogram must start at zero
// whatever its predecessors recorded — clamped values across the whole layout, or narrow
// ranges, with merges, copies, moves, add_bucket and resets. The new ones record both ends of
// the layout, so their count and state read every counter. Fails if any predecessor gives its
// array back with a counter set (e.g. a move assignment or destructor that does not clear).
TEST(Histogram, ANewHistogramStartsAtZeroWhateverCameBefore) {
  Rng rng(41);
  for (int round = 0; round < 50; ++round) {
    {
      const bool wide = round % 2 == 0;
      std::vector<Histogram> used(8);
      for (Histogram& h : used) {
        for (int i = 0; i < 200; ++i) {
          if (wide) {
            h.record(static_cast<int64_t>(rng.next_unit() * 2.0 * static_cast<double>(kTenSeconds)));
            h.record(-static_cast<int64_t>(rng.next_unit() * 100.0));
          } else {
            h.record(1'000 + static_cast<int64_t>(rng.next_unit() * 99'000.0));
          }
        }
        h.add_bucket(static_cast<int64_t>(wide ? rng.next_unit() * 1e9 : 200'000.0), 3);
      }
      used[0].merge(used[1]);
      used[2] = used[3];
      used[4] = std::move(used[5]);
      used[6].reset();
      used[6].record(9);
      Histogram moved_into;
      moved_into.record(123'456);
      moved_into = std::move(used[7]);
    }
    std::vector<Histogram> fresh(8);
    for (Histogram& h : fresh) {
      h.record(0);
      h.record(h.highest_trackable());
      const Histogram::State state = h.state();
      ASSERT_EQ(state.counts.size(), 2u) << "round " << round;
      ASSERT_EQ(state.counts[0].second, 1u);
      ASSERT_EQ(state.counts[1].second, 1u);
      ASSERT_EQ(h.count(), 2u);
    }
  }
}

/// Resident memory of this process, bytes (Linux: /proc/self/statm, second field in pages).
size_t resident_bytes() {
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return 0;
  unsigned long size_pages = 0, resident_pages = 0;
  const int got = std::fscanf(statm, "%lu %lu", &size_pages, &resident_pages);
  std::fclose(statm);
  return got == 2 ? resident_pages * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // the sanitizer's allocator and shadow are in the count
#else
constexpr bool kSanitized = false;
#endif

// The counters take memory per page written, not for the whole layout (about 200 KB at 3
// digits and 10 s): 400 histograms with a narrow distribution each (a few hundred counters,
// at most 2 pages), and as many copies, merges and resets of them, must take at most 3 pages
// each. This fails if a histogram, its copy, merge or reset writes every counter (then 800
// layouts, 160 MB).
TEST(Histogram, TakesMemoryOnlyForThePagesItWrites) {
  if (kSanitized) GTEST_SKIP() << "memory is the sanitizer's to account under it";
  if (resident_bytes() == 0) GTEST_SKIP() << "no /proc/self/statm";
  const auto page_bytes = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t layout_bytes = Histogram().memory_bytes();
  constexpr size_t kHistograms = 400;
  const size_t allowed = 2 * kHistograms * 3 * page_bytes;
  if (allowed >= 2 * kHistograms * layout_bytes / 4) {
    GTEST_SKIP() << "pages of " << page_bytes << " bytes are too large to tell";
  }
  const size_t before = resident_bytes();
  std::vector<Histogram> histograms(kHistograms);
  Rng rng(31);
  for (Histogram& h : histograms) {
    for (int i = 0; i < 1000; ++i) h.record(5'000 + static_cast<int64_t>(rng.next_unit() * 800));
  }
  std::vector<Histogram> copies = histograms;
  for (size_t i = 0; i + 1 < copies.size(); i += 2) ASSERT_TRUE(copies[i].merge(copies[i + 1]));
  for (size_t i = 1; i < copies.size(); i += 2) copies[i].reset();
  const size_t grown = resident_bytes() - std::min(before, resident_bytes());
  EXPECT_LT(grown, allowed) << "2 x " << kHistograms << " histograms took " << grown
                            << " bytes; one layout is " << layout_bytes;
  EXPECT_EQ(copies[0].count(), 2000u);
  EXPECT_EQ(copies[7].count(), 0u);
  EXPECT_EQ(histograms[7].count(), 1000u);
}

TEST(Histogram, ExtremeHighestTrackable) {
  Histogram histogram(INT64_MAX, 3);
  histogram.record(INT64_MAX);
  histogram.record(1);
  EXPECT_EQ(histogram.clamped_count(), 0u);
  EXPECT_EQ(histogram.max(), INT64_MAX);
  EXPECT_EQ(histogram.value_at_percentile(100.0), INT64_MAX);
  EXPECT_EQ(histogram.value_at_percentile(50.0), 1);
  auto buckets = buckets_of(histogram);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_EQ(std::get<1>(buckets[1]), INT64_MAX);
  EXPECT_GE(std::get<0>(buckets[1]), INT64_MAX - (INT64_MAX >> 10));
}

TEST(Histogram, BucketsRoundTripThroughAddBucket) {
  Histogram original;
  Rng rng(17);
  for (int i = 0; i < 30'000; ++i) {
    original.record(static_cast<int64_t>(rng.next_exponential(3e6)));
  }
  original.record(kTenSeconds * 2);
  Histogram copy;
  original.for_each_bucket(
      [&](int64_t lowest, int64_t /*highest*/, uint64_t count) { copy.add_bucket(lowest, count); });
  EXPECT_EQ(buckets_of(copy), buckets_of(original));
  EXPECT_EQ(copy.count(), original.count());
  EXPECT_LE(copy.min(), original.min());
  EXPECT_GE(copy.max(), original.max());
  EXPECT_NEAR(copy.mean(), original.mean(), 1e-3 * original.mean());
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9}) {
    EXPECT_EQ(copy.value_at_percentile(p), original.value_at_percentile(p)) << p;
  }
  // Any value of a bucket identifies it: rebuilding from the highest equivalents agrees.
  Histogram from_highest;
  original.for_each_bucket(
      [&](int64_t, int64_t highest, uint64_t count) { from_highest.add_bucket(highest, count); });
  EXPECT_EQ(buckets_of(from_highest), buckets_of(original));
}

}  // namespace
}  // namespace qb::engine
