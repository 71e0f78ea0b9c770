#include "qb/generators/arrival_process.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "qb/common/rng.hpp"
#include "qb/generators/size_distribution.hpp"

namespace qb::gen {
namespace {

ArrivalSpec cbr_pps(double rate_pps) {
  ArrivalSpec spec;
  spec.kind = ArrivalSpec::Kind::cbr;
  spec.rate_pps = rate_pps;
  return spec;
}

ArrivalSpec with_bps(ArrivalSpec::Kind kind, double rate_bps) {
  ArrivalSpec spec;
  spec.kind = kind;
  spec.rate_bps = rate_bps;
  return spec;
}

ArrivalSpec onoff_pps(double rate_pps, int64_t on_ns, int64_t off_ns) {
  ArrivalSpec spec = cbr_pps(rate_pps);
  spec.kind = ArrivalSpec::Kind::onoff;
  spec.on_ns = on_ns;
  spec.off_ns = off_ns;
  return spec;
}

TEST(ArrivalSpec, MeanOfferedLoad) {
  ArrivalSpec saturate;
  EXPECT_TRUE(saturate.saturating());
  EXPECT_DOUBLE_EQ(with_bps(ArrivalSpec::Kind::cbr, 10e9).mean_messages_per_s(64.0), 10e9 / 512);
  EXPECT_DOUBLE_EQ(with_bps(ArrivalSpec::Kind::poisson, 4e9).mean_messages_per_s(64.0),
                   4e9 / 512);
  ArrivalSpec onoff = with_bps(ArrivalSpec::Kind::onoff, 10e9);
  onoff.on_ns = 1'000'000;
  onoff.off_ns = 3'000'000;
  EXPECT_DOUBLE_EQ(onoff.mean_messages_per_s(1000.0), 2.5e9 / 8000);
  // The message rate (what compile turns into wire bytes): duty cycle included.
  EXPECT_DOUBLE_EQ(cbr_pps(2e6).mean_messages_per_s(1000.0), 2e6);
  EXPECT_DOUBLE_EQ(with_bps(ArrivalSpec::Kind::cbr, 8e9).mean_messages_per_s(1000.0), 1e6);
  EXPECT_DOUBLE_EQ(onoff_pps(1e6, 1, 1).mean_messages_per_s(500.0), 0.5e6);
  EXPECT_TRUE(std::isinf(saturate.mean_messages_per_s(1000.0)));
}

void expect_invalid(const ArrivalSpec& spec, const std::string& fragment) {
  const Status status = spec.validate();
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, Errc::invalid_config);
  EXPECT_NE(status.error().message.find(fragment), std::string::npos) << status.error().message;
}

TEST(ArrivalSpec, ValidateRejectsBadInput) {
  EXPECT_TRUE(ArrivalSpec{}.validate().ok());
  EXPECT_TRUE(cbr_pps(1.0).validate().ok());
  EXPECT_TRUE(onoff_pps(1e6, 1000, 0).validate().ok());

  ArrivalSpec no_window;
  no_window.outstanding = 0;
  expect_invalid(no_window, "at least 1 outstanding");
  ArrivalSpec saturate_rate;
  saturate_rate.rate_bps = 1e9;
  expect_invalid(saturate_rate, "saturate takes no rate");

  expect_invalid(with_bps(ArrivalSpec::Kind::cbr, 0.0), "cbr needs a rate > 0");
  expect_invalid(with_bps(ArrivalSpec::Kind::poisson, -1.0), "poisson rate must be a finite");
  expect_invalid(with_bps(ArrivalSpec::Kind::cbr, std::numeric_limits<double>::quiet_NaN()),
                 "finite positive");
  expect_invalid(with_bps(ArrivalSpec::Kind::cbr, std::numeric_limits<double>::infinity()),
                 "finite positive");
  ArrivalSpec both = cbr_pps(1e6);
  both.rate_bps = 1e9;
  expect_invalid(both, "not both");

  expect_invalid(onoff_pps(1e6, 0, 1000), "on duration > 0");
  expect_invalid(onoff_pps(1e6, 1000, -1), "off duration must be >= 0");
  expect_invalid(onoff_pps(1e6, std::numeric_limits<int64_t>::max(), 1), "too long");
  ArrivalSpec cbr_with_window = cbr_pps(1e6);
  cbr_with_window.on_ns = 10;
  expect_invalid(cbr_with_window, "only apply to onoff");
}

TEST(ArrivalProcess, SaturateSchedulesNothing) {
  ArrivalProcess process(ArrivalSpec{}, 1000.0);
  Rng rng(1);
  EXPECT_EQ(process.first_ns(500, rng), 500);
  EXPECT_EQ(process.next_ns(500, 1000, rng), kNever);
}

TEST(ArrivalProcess, CbrTenMppsIsExact) {
  ArrivalProcess process(cbr_pps(10e6), 64.0);
  Rng rng(1);
  int64_t t = process.first_ns(1000, rng);
  EXPECT_EQ(t, 1000);
  for (int i = 1; i <= 1'000'000; ++i) {
    const int64_t next = process.next_ns(t, 64, rng);
    ASSERT_EQ(next - t, 100) << i;
    t = next;
  }
}

TEST(ArrivalProcess, CbrCarriesFractionalNanoseconds) {
  // 3 Mpps: 333.33.. ns, 7 Mpps: 142.857.. ns. Truncating every gap would lose 1/3 ns resp.
  // 6/7 ns per message; the carry keeps the schedule within 1 ns of N * gap.
  for (double rate_pps : {3e6, 7e6, 9.99e6, 1.234567e3}) {
    ArrivalProcess process(cbr_pps(rate_pps), 64.0);
    Rng rng(1);
    const double gap_ns = 1e9 / rate_pps;
    const int64_t start = process.first_ns(0, rng);
    int64_t t = start;
    constexpr int kMessages = 10'000'000;
    for (int i = 1; i <= kMessages; ++i) {
      const int64_t next = process.next_ns(t, 64, rng);
      ASSERT_GE(next - t, static_cast<int64_t>(std::floor(gap_ns)));
      ASSERT_LE(next - t, static_cast<int64_t>(std::ceil(gap_ns)));
      t = next;
      if (i % 1'000'000 == 0) {
        ASSERT_LE(std::fabs(static_cast<double>(t - start) - i * gap_ns), 1.0)
            << rate_pps << " after " << i;
      }
    }
  }
}

TEST(ArrivalProcess, CbrBitRateUsesTheSizeOfEachMessage) {
  // 10 Gbit/s: a 1000 B message takes 800 ns, a 64 B one 51.2 ns.
  ArrivalProcess process(with_bps(ArrivalSpec::Kind::cbr, 10e9), 361.83);
  Rng rng(1);
  int64_t t = process.first_ns(0, rng);
  t = process.next_ns(t, 1000, rng);
  EXPECT_EQ(t, 800);
  // Variable sizes: the schedule tracks the exact sum of size * 8 / rate.
  SizeSampler sizes(SizeSpec::classic_imix());
  Rng size_rng(9);
  double exact_ns = 800.0;
  for (int i = 0; i < 1'000'000; ++i) {
    const uint32_t bytes = sizes.next(size_rng);
    t = process.next_ns(t, bytes, rng);
    exact_ns += bytes * 0.8;
  }
  EXPECT_LE(std::fabs(static_cast<double>(t) - exact_ns), 1.0);
}

struct GapStats {
  double mean_ns = 0.0;
  double variance_ns2 = 0.0;
  double fraction_above_mean = 0.0;  // of the nominal mean
};

GapStats poisson_gaps(const ArrivalSpec& spec, double nominal_mean_ns, uint64_t seed, int gaps,
                      uint32_t bytes) {
  ArrivalProcess process(spec, bytes);
  Rng rng(seed);
  int64_t t = process.first_ns(0, rng);
  const int64_t start = t;
  double sum_sq = 0.0;
  int above = 0;
  for (int i = 0; i < gaps; ++i) {
    const int64_t next = process.next_ns(t, bytes, rng);
    const auto gap = static_cast<double>(next - t);
    sum_sq += gap * gap;
    above += gap > nominal_mean_ns;
    t = next;
  }
  GapStats stats;
  // The end-to-end span is exact up to the 1 ns carry, so the mean uses it.
  stats.mean_ns = static_cast<double>(t - start) / gaps;
  stats.variance_ns2 = sum_sq / gaps - stats.mean_ns * stats.mean_ns;
  stats.fraction_above_mean = static_cast<double>(above) / gaps;
  return stats;
}

TEST(ArrivalProcess, PoissonHasTheRightMeanAndShape) {
  constexpr int kGaps = 1'000'000;
  ArrivalSpec spec = cbr_pps(1e6);
  spec.kind = ArrivalSpec::Kind::poisson;
  const GapStats stats = poisson_gaps(spec, 1000.0, 77, kGaps, 64);
  // Exponential with mean 1000 ns: sd of the sample mean = 1000 / sqrt(n) = 1 ns.
  EXPECT_NEAR(stats.mean_ns, 1000.0, 5.0);
  // Variance = mean^2; the sample variance's relative sd is sqrt(8 / n) = 0.28%.
  // (Whole-ns gaps add ~1/12 ns^2: negligible.)
  EXPECT_NEAR(stats.variance_ns2 / 1e6, 1.0, 5 * std::sqrt(8.0 / kGaps));
  // P(gap > mean) = 1/e.
  const double p = std::exp(-1.0);
  EXPECT_NEAR(stats.fraction_above_mean, p, 5 * std::sqrt(p * (1 - p) / kGaps));
}

TEST(ArrivalProcess, PoissonBitRateOffersTheRate) {
  // 4 Gbit/s of classic IMIX: gaps are exponential with the mean-size gap
  // (361.83 B * 2 ns/B), independent of the size just sent; over 1e6 messages the offered
  // bit/s matches within 5 sd of sqrt((1 + cv_size^2) / n) = 0.15%.
  const SizeSpec imix = SizeSpec::classic_imix();
  ArrivalProcess process(with_bps(ArrivalSpec::Kind::poisson, 4e9), imix.mean_bytes());
  SizeSampler sizes(imix);
  Rng rng(2024);
  int64_t t = process.first_ns(0, rng);
  const int64_t start = t;
  double bits = 0.0;
  constexpr int kMessages = 1'000'000;
  for (int i = 0; i < kMessages; ++i) {
    const uint32_t bytes = sizes.next(rng);
    bits += bytes * 8.0;
    t = process.next_ns(t, bytes, rng);
  }
  const double offered_bps = bits / (static_cast<double>(t - start) * 1e-9);
  EXPECT_NEAR(offered_bps / 4e9, 1.0, 5 * 1.54e-3);
}

TEST(ArrivalProcess, PoissonFirstDepartureIsAGapAfterStart) {
  ArrivalSpec spec = cbr_pps(1e3);
  spec.kind = ArrivalSpec::Kind::poisson;
  ArrivalProcess process(spec, 64.0);
  Rng rng(3);
  EXPECT_GT(process.first_ns(5'000, rng), 5'000);
}

std::vector<int64_t> schedule(const ArrivalSpec& spec, uint64_t seed, int n) {
  ArrivalProcess process(spec, 500.0);
  SizeSampler sizes(SizeSpec::uniform(64, 1500));
  Rng rng(seed);
  std::vector<int64_t> times{process.first_ns(0, rng)};
  for (int i = 1; i < n; ++i) times.push_back(process.next_ns(times.back(), sizes.next(rng), rng));
  return times;
}

TEST(ArrivalProcess, DeterministicPerSeed) {
  ArrivalSpec poisson = with_bps(ArrivalSpec::Kind::poisson, 1e9);
  EXPECT_EQ(schedule(poisson, 5, 10'000), schedule(poisson, 5, 10'000));
  EXPECT_NE(schedule(poisson, 5, 10'000), schedule(poisson, 6, 10'000));
  ArrivalSpec onoff = with_bps(ArrivalSpec::Kind::onoff, 1e9);
  onoff.on_ns = 20'000;
  onoff.off_ns = 50'000;
  EXPECT_EQ(schedule(onoff, 5, 10'000), schedule(onoff, 5, 10'000));
}

TEST(ArrivalProcess, OnOffStaysInOnWindowsWithTheRightMean) {
  // 1 Mpps (1000 ns gaps) during 10.5 us of every 40.5 us: 10.5 messages per window on
  // average (a window holds 10 or 11), i.e. 1e6 * 10.5 / 40.5 = 259259.26 messages/s.
  constexpr int64_t kOn = 10'500, kOff = 30'000, kPeriod = kOn + kOff;
  const ArrivalSpec spec = onoff_pps(1e6, kOn, kOff);
  ArrivalProcess process(spec, 64.0);
  Rng rng(1);
  constexpr int64_t kWindows = 100'000;
  int64_t t = process.first_ns(0, rng);
  EXPECT_EQ(t, 0);
  int64_t messages = 0;
  int64_t previous_window = 0, in_window = 0;
  while (t < kWindows * kPeriod) {
    ASSERT_LT(t % kPeriod, kOn) << "departure at " << t << " is in an off window";
    ++messages;
    const int64_t next = process.next_ns(t, 64, rng);
    ASSERT_GT(next, t);
    if (next / kPeriod == t / kPeriod) {
      ASSERT_EQ(next - t, 1000) << "CBR inside a window";
    }
    if (t / kPeriod != previous_window) {
      ASSERT_TRUE(in_window == 10 || in_window == 11) << in_window;
      previous_window = t / kPeriod;
      in_window = 0;
    }
    ++in_window;
    t = next;
  }
  // Exact on average: the count over N windows is N * 10.5 up to one message.
  EXPECT_NEAR(static_cast<double>(messages), kWindows * 10.5, 1.0);
}

TEST(ArrivalProcess, OnOffBitRateMean) {
  ArrivalSpec spec = with_bps(ArrivalSpec::Kind::onoff, 10e9);
  spec.on_ns = 1'000'000;
  spec.off_ns = 3'000'000;
  const SizeSpec imix = SizeSpec::classic_imix();
  ArrivalProcess process(spec, imix.mean_bytes());
  SizeSampler sizes(imix);
  Rng rng(8);
  int64_t t = process.first_ns(0, rng);
  double bits = 0.0;
  const int64_t end_ns = 400'000'000;  // 100 periods
  while (true) {
    ASSERT_LT(t % 4'000'000, 1'000'000);
    const uint32_t bytes = sizes.next(rng);
    const int64_t next = process.next_ns(t, bytes, rng);
    if (next >= end_ns) break;
    bits += bytes * 8.0;
    t = next;
  }
  // Deterministic CBR within windows: within one message of 2.5 Gbit/s over 0.4 s.
  const double mean_bytes = imix.mean_bytes();
  EXPECT_NEAR(bits / 0.4, spec.mean_messages_per_s(mean_bytes) * mean_bytes * 8.0,
              1518 * 8 / 0.4);
}

TEST(ArrivalProcess, OnOffFirstDepartureSkipsAnOffWindow) {
  const ArrivalSpec spec = onoff_pps(1e6, 1000, 3000);
  ArrivalProcess process(spec, 64.0);
  Rng rng(1);
  EXPECT_EQ(process.first_ns(500, rng), 500);    // inside the first on window
  EXPECT_EQ(process.first_ns(1000, rng), 4000);  // the off window starts at 1000
  EXPECT_EQ(process.first_ns(7999, rng), 8000);
  EXPECT_EQ(process.first_ns(8000, rng), 8000);
  // A departure that would land in the off window continues at the next window start:
  // 900 + 1000 crosses the end at 1000 with 900 ns of gap left -> 4000 + 900.
  EXPECT_EQ(process.next_ns(900, 64, rng), 4900);
  // A gap longer than a whole on window skips several windows.
  const ArrivalSpec slow = onoff_pps(1e5, 1000, 3000);  // 10 us gaps, 1 us on
  ArrivalProcess slow_process(slow, 64.0);
  EXPECT_EQ(slow_process.first_ns(0, rng), 0);
  EXPECT_EQ(slow_process.next_ns(0, 64, rng), 10 * 4000);
}

TEST(ArrivalProcess, InvalidSpecsScheduleNothing) {
  Rng rng(1);
  ArrivalProcess no_rate(with_bps(ArrivalSpec::Kind::cbr, 0.0), 100.0);
  EXPECT_EQ(no_rate.first_ns(0, rng), kNever);
  EXPECT_EQ(no_rate.next_ns(0, 100, rng), kNever);
  ArrivalProcess no_window(onoff_pps(1e6, 0, 0), 100.0);
  EXPECT_EQ(no_window.first_ns(0, rng), kNever);
  ArrivalProcess poisson_zero_size(with_bps(ArrivalSpec::Kind::poisson, 1e9), 0.0);
  EXPECT_EQ(poisson_zero_size.first_ns(0, rng), kNever);
  // A vanishing rate gives kNever instead of overflowing.
  ArrivalProcess glacial(cbr_pps(1e-12), 100.0);
  EXPECT_EQ(glacial.first_ns(0, rng), 0);
  EXPECT_EQ(glacial.next_ns(0, 100, rng), kNever);
  // A slow bit rate times a large message overflows no integer: it is never, too.
  ArrivalProcess glacial_bits(with_bps(ArrivalSpec::Kind::cbr, 1e-3), 100.0);
  EXPECT_EQ(glacial_bits.first_ns(0, rng), 0);
  EXPECT_EQ(glacial_bits.next_ns(0, 4'000'000'000u, rng), kNever);
  EXPECT_EQ(glacial_bits.next_ns(kNever - 10, 1, rng), kNever);
}

TEST(ArrivalProcess, CbrBitRateCarriesFractionsOfEveryByte) {
  // 3 Gbit/s: 8/3 ns per byte. Sizes 1..1500 over 1e6 messages: the schedule stays within
  // 1 ns of the exact sum of bytes * 8/3 ns.
  ArrivalProcess process(with_bps(ArrivalSpec::Kind::cbr, 3e9), 750.0);
  Rng rng(3);
  int64_t t = process.first_ns(0, rng);
  uint64_t bytes_sum = 0;
  for (uint32_t i = 0; i < 1'000'000; ++i) {
    const uint32_t bytes = 1 + (i * 7919u) % 1500;
    t = process.next_ns(t, bytes, rng);
    bytes_sum += bytes;
  }
  const double exact_ns = static_cast<double>(bytes_sum) * 8.0 / 3.0;
  EXPECT_LE(std::abs(static_cast<double>(t) - exact_ns), 1.0);
}

}  // namespace
}  // namespace qb::gen
