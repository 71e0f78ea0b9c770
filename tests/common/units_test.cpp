#include "qb/common/units.hpp"

#include <gtest/gtest.h>

#include "qb/common/result.hpp"
#include "qb/common/rng.hpp"

namespace qb {
namespace {

TEST(ParseRate, BitRatesAreDecimal) {
  EXPECT_DOUBLE_EQ(parse_rate("100Gbps")->value, 100e9);
  EXPECT_DOUBLE_EQ(parse_rate("4Gbit/s")->value, 4e9);
  EXPECT_DOUBLE_EQ(parse_rate("4096Mbps")->value, 4096e6);
  EXPECT_DOUBLE_EQ(parse_rate("12.5 GB/s")->value, 100e9);
  EXPECT_EQ(parse_rate("10Gbps")->unit, Rate::Unit::bits_per_second);
}

TEST(ParseRate, PacketRates) {
  auto rate = parse_rate("2Mpps");
  ASSERT_TRUE(rate.ok());
  EXPECT_DOUBLE_EQ(rate->value, 2e6);
  EXPECT_EQ(rate->unit, Rate::Unit::packets_per_second);
}

TEST(ParseRate, RejectsBadInput) {
  for (const char* text : {"", "fast", "10", "10 furlongs", "-5Gbps", "0Gbps", "nanGbps", "Gbps"}) {
    auto rate = parse_rate(text);
    EXPECT_FALSE(rate.ok()) << text;
    if (!rate.ok()) {
      EXPECT_EQ(rate.error().code, Errc::invalid_config);
    }
  }
}

TEST(ParseDuration, Units) {
  EXPECT_EQ(*parse_duration_ns("200ms"), 200'000'000);
  EXPECT_EQ(*parse_duration_ns("20us"), 20'000);
  EXPECT_EQ(*parse_duration_ns("1.5s"), 1'500'000'000);
  EXPECT_EQ(*parse_duration_ns("300ns"), 300);
  EXPECT_FALSE(parse_duration_ns("0ms").ok());
  EXPECT_EQ(*parse_duration_ns("0ms", /*allow_zero=*/true), 0);
  EXPECT_FALSE(parse_duration_ns("10").ok());
  EXPECT_FALSE(parse_duration_ns("-1s").ok());
  EXPECT_FALSE(parse_duration_ns("1e30s").ok());
}

TEST(ParseSize, BinaryAndDecimalPrefixes) {
  EXPECT_EQ(*parse_size_bytes("4KiB"), 4096u);
  EXPECT_EQ(*parse_size_bytes("4KB"), 4000u);
  EXPECT_EQ(*parse_size_bytes("1500"), 1500u);
  EXPECT_EQ(*parse_size_bytes("9000B"), 9000u);
  EXPECT_EQ(*parse_size_bytes("2MiB"), 2u * 1024 * 1024);
  EXPECT_FALSE(parse_size_bytes("0").ok());
  EXPECT_FALSE(parse_size_bytes("1.5").ok());
  EXPECT_FALSE(parse_size_bytes("4 parsecs").ok());
}

TEST(ErrorFormat, FileLineColumnKey) {
  Error error = make_error(Errc::invalid_config, "must be > 0", "flow[0].rate",
                           SourceLoc{"suite.toml", 12, 8});
  EXPECT_EQ(error.to_string(), "suite.toml:12:8: error: flow[0].rate: must be > 0");
  EXPECT_EQ(exit_code_for(error.code), 2);
  EXPECT_EQ(exit_code_for(Errc::runtime), 3);
}

TEST(Rng, DeterministicAndUniformish) {
  Rng a(42), b(42), c(43);
  bool all_equal = true;
  for (int i = 0; i < 100; ++i) {
    const uint64_t va = a.next_u64();
    EXPECT_EQ(va, b.next_u64());
    all_equal = all_equal && (va == c.next_u64());
  }
  EXPECT_FALSE(all_equal);
  Rng r(7);
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) sum += r.next_exponential(10.0);
  EXPECT_NEAR(sum / n, 10.0, 0.15);
  uint64_t below[4] = {};
  for (int i = 0; i < 40000; ++i) ++below[r.next_below(4)];
  for (uint64_t count : below) EXPECT_NEAR(static_cast<double>(count), 10000.0, 500.0);
}

}  // namespace
}  // namespace qb
