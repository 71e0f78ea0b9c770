// Parsing of the quantities a suite is written in: rates, durations, sizes.
// Decimal prefixes for rates ("Gbps" = 1e9 bit/s); sizes take both KB (1000) and KiB (1024).
// Lower-case "b" is bits, upper-case "B" is bytes ("GBps" and "GB/s" are bytes per second).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "qb/common/result.hpp"

namespace qb {

struct Rate {
  enum class Unit { bits_per_second, packets_per_second };
  double value = 0.0;  // in bit/s or packet/s, per unit
  Unit unit = Unit::bits_per_second;
};

/// "100Gbps", "4Gbit/s", "4096Mbps", "12.5 GB/s", "2Mpps", "1500kpps". Must be finite and > 0
/// (>= 0 with allow_zero: where 0 means "no cap").
Result<Rate> parse_rate(std::string_view text, bool allow_zero = false);

/// The longest duration any suite key or option takes: what fits in 64 bits of picoseconds (the
/// simulator's clock), about 2562 h. Keys with a meaning of their own have tighter bounds.
inline constexpr int64_t kMaxDurationNs = INT64_MAX / 1000;
/// The largest size any suite key takes (a 64-bit byte count, below 2^63).
inline constexpr uint64_t kMaxSizeBytes = uint64_t{1} << 62;

/// "200ms", "20us", "1.5s", "300ns", "2min". Returns nanoseconds; must be > 0 unless allow_zero,
/// and at most kMaxDurationNs.
Result<int64_t> parse_duration_ns(std::string_view text, bool allow_zero = false);

/// "4KiB", "1500", "9000B", "1MB", "2MiB". Returns bytes; must be > 0 and at most kMaxSizeBytes.
Result<uint64_t> parse_size_bytes(std::string_view text);

/// What a duration or size says, unrounded and unbounded (only its syntax and unit are checked;
/// NaN is refused): for readers with a range of their own, which they check before converting.
Result<double> parse_duration_ns_unbounded(std::string_view text);
Result<double> parse_size_bytes_unbounded(std::string_view text);

/// Human form for reports: 95.904 Gbit/s, 4.096 Gbit/s, 812.3 Mbit/s.
std::string format_rate_bps(double rate_bps);
/// Human form for reports: 12.3 us, 1.20 ms, 850 ns.
std::string format_duration_ns(double duration_ns);

}  // namespace qb
