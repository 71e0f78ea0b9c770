#include "qb/generators/size_distribution.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qb/common/rng.hpp"

namespace qb::gen {
namespace {

/// |observed - n p| within 5 binomial standard deviations.
void expect_frequency(uint64_t observed, uint64_t n, double p, const std::string& what) {
  const double expected = static_cast<double>(n) * p;
  const double sigma = std::sqrt(static_cast<double>(n) * p * (1.0 - p));
  EXPECT_NEAR(static_cast<double>(observed), expected, 5.0 * sigma) << what;
}

TEST(SizeSpec, ClassicImix) {
  const SizeSpec imix = SizeSpec::classic_imix();
  ASSERT_TRUE(imix.validate().ok());
  EXPECT_EQ(imix.kind, SizeSpec::Kind::imix);
  EXPECT_DOUBLE_EQ(imix.mean_bytes(), (64.0 * 7 + 594.0 * 4 + 1518.0) / 12.0);  // 361.83
  EXPECT_EQ(imix.largest_bytes(), 1518u);
}

TEST(SizeSpec, FixedAndUniform) {
  const SizeSpec fixed = SizeSpec::fixed(4096);
  EXPECT_DOUBLE_EQ(fixed.mean_bytes(), 4096.0);
  EXPECT_EQ(fixed.largest_bytes(), 4096u);
  const SizeSpec uniform = SizeSpec::uniform(64, 1518);
  EXPECT_DOUBLE_EQ(uniform.mean_bytes(), 791.0);
  EXPECT_EQ(uniform.largest_bytes(), 1518u);
}

TEST(SizeSpec, WeightedIgnoresZeroWeightsForBounds) {
  const SizeSpec spec = SizeSpec::weighted({{9000, 0}, {128, 3}, {1024, 1}, {16, 0}});
  ASSERT_TRUE(spec.validate().ok());
  EXPECT_EQ(spec.largest_bytes(), 1024u);
  EXPECT_DOUBLE_EQ(spec.mean_bytes(), (128.0 * 3 + 1024.0) / 4.0);
}

void expect_invalid(const SizeSpec& spec, const std::string& fragment) {
  const Status status = spec.validate();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, Errc::invalid_config);
  EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
}

TEST(SizeSpec, ValidateRejectsBadInput) {
  expect_invalid(SizeSpec::fixed(0), "fixed size must be > 0");
  expect_invalid(SizeSpec::uniform(0, 100), "above 0");
  expect_invalid(SizeSpec::uniform(200, 100), "min 200 B > max 100 B");
  expect_invalid(SizeSpec::weighted({}), "weighted size table is empty");
  SizeSpec empty_imix = SizeSpec::classic_imix();
  empty_imix.table.clear();
  expect_invalid(empty_imix, "imix size table is empty");
  expect_invalid(SizeSpec::weighted({{64, 1}, {0, 2}}), "entry 1 (0-based) has size 0 B");
  expect_invalid(SizeSpec::weighted({{64, 0}, {128, 0}}), "only zero weights");
  EXPECT_TRUE(SizeSpec::uniform(100, 100).validate().ok());
  EXPECT_TRUE(SizeSpec::fixed(1).validate().ok());
}

TEST(SizeSampler, FixedNeedsNoRandomness) {
  SizeSampler sampler(SizeSpec::fixed(1500));
  Rng rng(1), untouched(1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(sampler.next(rng), 1500u);
  EXPECT_EQ(rng.next_u64(), untouched.next_u64());
}

TEST(SizeSampler, UniformCoversBothEndsAndNothingOutside) {
  SizeSampler sampler(SizeSpec::uniform(64, 70));
  Rng rng(7);
  constexpr uint64_t kDraws = 700'000;
  std::map<uint32_t, uint64_t> seen;
  for (uint64_t i = 0; i < kDraws; ++i) ++seen[sampler.next(rng)];
  ASSERT_EQ(seen.size(), 7u);
  EXPECT_EQ(seen.begin()->first, 64u);
  EXPECT_EQ(seen.rbegin()->first, 70u);
  for (const auto& [size, count] : seen) {
    expect_frequency(count, kDraws, 1.0 / 7.0, "size " + std::to_string(size));
  }
}

TEST(SizeSampler, UniformFullRangeAndSingleValue) {
  SizeSampler full(SizeSpec::uniform(1, UINT32_MAX));
  SizeSampler single(SizeSpec::uniform(9000, 9000));
  Rng rng(3);
  double sum = 0.0;
  constexpr int kDraws = 100'000;
  for (int i = 0; i < kDraws; ++i) {
    const uint32_t size = full.next(rng);
    EXPECT_GE(size, 1u);
    sum += size;
    EXPECT_EQ(single.next(rng), 9000u);
  }
  // Mean 2^31, sd of the mean (2^32 / sqrt(12)) / sqrt(n) ~ 3.9e6.
  EXPECT_NEAR(sum / kDraws, 2147483648.0, 5 * 3.93e6);
}

TEST(SizeSampler, ImixFrequenciesAreSevenFourOne) {
  SizeSampler sampler(SizeSpec::classic_imix());
  Rng rng(12345);
  constexpr uint64_t kDraws = 1'200'000;
  std::map<uint32_t, uint64_t> seen;
  double sum = 0.0;
  for (uint64_t i = 0; i < kDraws; ++i) {
    const uint32_t size = sampler.next(rng);
    ++seen[size];
    sum += size;
  }
  ASSERT_EQ(seen.size(), 3u);
  expect_frequency(seen[64], kDraws, 7.0 / 12.0, "64 B");
  expect_frequency(seen[594], kDraws, 4.0 / 12.0, "594 B");
  expect_frequency(seen[1518], kDraws, 1.0 / 12.0, "1518 B");
  // Size sd of the classic IMIX is 425.6 B.
  EXPECT_NEAR(sum / kDraws, SizeSpec::classic_imix().mean_bytes(),
              5.0 * 425.6 / std::sqrt(static_cast<double>(kDraws)));
}

TEST(SizeSampler, WeightedNeverDrawsZeroWeights) {
  SizeSampler sampler(SizeSpec::weighted({{9000, 0}, {128, 3}, {16, 0}, {1024, 1}, {32, 0}}));
  Rng rng(5);
  constexpr uint64_t kDraws = 400'000;
  uint64_t small = 0;
  for (uint64_t i = 0; i < kDraws; ++i) {
    const uint32_t size = sampler.next(rng);
    ASSERT_TRUE(size == 128 || size == 1024) << size;
    small += size == 128;
  }
  expect_frequency(small, kDraws, 0.75, "128 B");
}

TEST(SizeSampler, LargeTableFrequencies) {
  // 40 entries (binary-search path): size i * 100 B with weight i, zero-weight gaps between.
  std::vector<WeightedSize> table;
  uint64_t total_weight = 0;
  for (uint32_t i = 1; i <= 40; ++i) {
    table.push_back({i * 100, i % 5 == 0 ? 0u : i});
    total_weight += i % 5 == 0 ? 0u : i;
  }
  SizeSampler sampler(SizeSpec::weighted(table));
  Rng rng(99);
  constexpr uint64_t kDraws = 800'000;
  std::map<uint32_t, uint64_t> seen;
  for (uint64_t i = 0; i < kDraws; ++i) ++seen[sampler.next(rng)];
  EXPECT_EQ(seen.size(), 32u);  // the 8 zero-weight sizes never appear
  for (const auto& entry : table) {
    if (entry.weight == 0) {
      EXPECT_EQ(seen.count(entry.size_bytes), 0u) << entry.size_bytes;
      continue;
    }
    expect_frequency(seen[entry.size_bytes], kDraws,
                     static_cast<double>(entry.weight) / static_cast<double>(total_weight),
                     std::to_string(entry.size_bytes) + " B");
  }
}

TEST(SizeSampler, DeterministicPerSeed) {
  for (const SizeSpec& spec : {SizeSpec::classic_imix(), SizeSpec::uniform(1, 65536)}) {
    SizeSampler a(spec), b(spec), c(spec);
    Rng rng_a(42), rng_b(42), rng_c(43);
    int differences = 0;
    for (int i = 0; i < 1000; ++i) {
      const uint32_t x = a.next(rng_a);
      EXPECT_EQ(x, b.next(rng_b));
      differences += x != c.next(rng_c);
    }
    EXPECT_GT(differences, 100);
  }
}

TEST(SizeSampler, InvalidSpecDoesNotCrash) {
  Rng rng(1);
  SizeSampler empty(SizeSpec::weighted({}));
  SizeSampler zero_weights(SizeSpec::weighted({{64, 0}}));
  EXPECT_EQ(empty.next(rng), 0u);
  EXPECT_EQ(zero_weights.next(rng), 0u);
  SizeSampler reversed(SizeSpec::uniform(100, 50));
  for (int i = 0; i < 100; ++i) {
    const uint32_t size = reversed.next(rng);
    EXPECT_GE(size, 50u);
    EXPECT_LE(size, 100u);
  }
}

}  // namespace
}  // namespace qb::gen
