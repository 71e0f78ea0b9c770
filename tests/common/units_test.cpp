#include "qb/common/units.hpp"

#include <fmt/format.h>
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

// The spellings of iperf3 and ethtool ("100G", "100Gb/s"), tc ("100gbit") and Ethernet ("25GbE").
TEST(ParseRate, SpellingsOfOtherToolsAreBits) {
  for (const char* text : {"100G", "100g", "100Gb/s", "100 Gb/s", "100gbit", "100Gbit", "100GBit",
                           "100gbits", "100Gbits/s", "100GbE", "100Gbe", "100gbit/s"}) {
    auto rate = parse_rate(text);
    ASSERT_TRUE(rate.ok()) << text << ": " << rate.error().message;
    EXPECT_DOUBLE_EQ(rate->value, 100e9) << text;
    EXPECT_EQ(rate->unit, Rate::Unit::bits_per_second) << text;
  }
  EXPECT_DOUBLE_EQ(parse_rate("25GbE")->value, 25e9);
  EXPECT_DOUBLE_EQ(parse_rate("400M")->value, 400e6);
  EXPECT_DOUBLE_EQ(parse_rate("400mbit")->value, 400e6);
  EXPECT_DOUBLE_EQ(parse_rate("1.5T")->value, 1.5e12);
  EXPECT_DOUBLE_EQ(parse_rate("800k")->value, 800e3);
  // Upper-case B stays bytes: "GB" without "/s" is no rate at all.
  EXPECT_FALSE(parse_rate("100GB").ok());
  EXPECT_FALSE(parse_rate("100Gx").ok());
}

// tc reads "gbps" as bytes per second: refused with both spellings offered.
TEST(ParseRate, LowerCaseBpsIsAmbiguous) {
  auto rate = parse_rate("100gbps");
  ASSERT_FALSE(rate.ok());
  EXPECT_NE(rate.error().message.find("\"100gbit\""), std::string::npos) << rate.error().message;
  EXPECT_NE(rate.error().message.find("\"100GB/s\""), std::string::npos) << rate.error().message;
  EXPECT_DOUBLE_EQ(parse_rate("100Gbps")->value, 100e9);  // the documented form is unchanged
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

// Every duration fits the simulator's picoseconds in 64 bits: the longest one taken converts
// without wrapping, one beyond it is refused saying so (not "out of range").
TEST(ParseDuration, LongestFitsPicoseconds) {
  const auto longest = parse_duration_ns("2562h");
  ASSERT_TRUE(longest.ok());
  EXPECT_LE(*longest, kMaxDurationNs);
  EXPECT_LE(*longest, INT64_MAX / 1000);
  const auto at_bound = parse_duration_ns(fmt::format("{}ns", kMaxDurationNs));
  ASSERT_TRUE(at_bound.ok()) << at_bound.error().message;
  EXPECT_EQ(*at_bound, kMaxDurationNs);
  for (const char* text : {"2563h", "3000h", "1e30s", "infs"}) {
    const auto refused = parse_duration_ns(text);
    ASSERT_FALSE(refused.ok()) << text;
    EXPECT_NE(refused.error().message.find("longer than 2562 h"), std::string::npos)
        << refused.error().message;
  }
  const auto nan = parse_duration_ns("nans");
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.error().message.find("not a duration"), std::string::npos);
  EXPECT_NE(parse_duration_ns("-1s").error().message.find("zero or greater"), std::string::npos);
  // Unbounded: what a reader with a range of its own compares before converting.
  EXPECT_DOUBLE_EQ(*parse_duration_ns_unbounded("1e30s"), 1e39);
  EXPECT_EQ(*parse_duration_ns_unbounded("-2us"), -2000.0);
  EXPECT_FALSE(parse_duration_ns_unbounded("2 fortnights").ok());
}

// "1e30B" is too large, not too small (the message said "must be at least one byte").
TEST(ParseSize, TooLargeSaysSo) {
  for (const char* text : {"1e30B", "1e19", "5e18B"}) {
    const auto size = parse_size_bytes(text);
    ASSERT_FALSE(size.ok()) << text;
    EXPECT_EQ(size.error().message.find("at least one byte"), std::string::npos)
        << size.error().message;
  }
  EXPECT_NE(parse_size_bytes("1e30B").error().message.find("larger than 2^62 bytes"),
            std::string::npos);
  EXPECT_EQ(*parse_size_bytes("4611686018427387904"), kMaxSizeBytes);
  EXPECT_NE(parse_size_bytes("0B").error().message.find("at least one byte"), std::string::npos);
  EXPECT_EQ(*parse_size_bytes_unbounded("0B"), 0.0);
  EXPECT_DOUBLE_EQ(*parse_size_bytes_unbounded("1e30B"), 1e30);
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

// "4k" once meant 4000 bytes without a word: now an error that names both readings.
TEST(ParseSize, BarePrefixIsAmbiguous) {
  auto size = parse_size_bytes("4k");
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.error().code, Errc::invalid_config);
  EXPECT_NE(size.error().message.find("\"4KB\" (4000 bytes)"), std::string::npos)
      << size.error().message;
  EXPECT_NE(size.error().message.find("\"4KiB\" (4096 bytes)"), std::string::npos)
      << size.error().message;
  for (const char* text : {"4K", "2m", "2M", "1g"})
    EXPECT_FALSE(parse_size_bytes(text).ok()) << text;
  auto mega = parse_size_bytes("2M");
  ASSERT_FALSE(mega.ok());
  EXPECT_NE(mega.error().message.find("\"2MiB\" (2097152 bytes)"), std::string::npos)
      << mega.error().message;
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
