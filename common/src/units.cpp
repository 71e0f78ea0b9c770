#include "qb/common/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace qb {
namespace {

struct UnitFactor {
  std::string_view suffix;
  double factor;
};

// Splits "12.5 Gbps" into 12.5 and "Gbps". Returns false when there is no leading number.
bool split_number(std::string_view text, double& number, std::string_view& suffix) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc{} || ptr == begin) return false;
  suffix = std::string_view(ptr, static_cast<size_t>(end - ptr));
  while (!suffix.empty() && suffix.front() == ' ') suffix.remove_prefix(1);
  return true;
}

template <size_t N>
const UnitFactor* find_unit(const std::array<UnitFactor, N>& table, std::string_view suffix) {
  for (const auto& unit : table) {
    if (unit.suffix == suffix) return &unit;
  }
  return nullptr;
}

constexpr std::array<UnitFactor, 20> kBitRates{{
    {"bps", 1.0},     {"bit/s", 1.0},  {"kbps", 1e3}, {"kbit/s", 1e3}, {"Kbps", 1e3},
    {"Mbps", 1e6},    {"Mbit/s", 1e6}, {"Gbps", 1e9}, {"Gbit/s", 1e9}, {"Tbps", 1e12},
    {"Tbit/s", 1e12}, {"Bps", 8.0},    {"B/s", 8.0},  {"kBps", 8e3},   {"kB/s", 8e3},
    {"MBps", 8e6},    {"MB/s", 8e6},   {"GBps", 8e9}, {"GB/s", 8e9},   {"TB/s", 8e12},
}};
constexpr std::array<UnitFactor, 5> kPacketRates{{
    {"pps", 1.0},
    {"kpps", 1e3},
    {"Kpps", 1e3},
    {"Mpps", 1e6},
    {"Gpps", 1e9},
}};
constexpr std::array<UnitFactor, 7> kDurations{{
    {"ns", 1.0},
    {"us", 1e3},
    {"\xC2\xB5s", 1e3},
    {"ms", 1e6},
    {"s", 1e9},
    {"min", 60e9},
    {"h", 3600e9},
}};
constexpr std::array<UnitFactor, 10> kSizes{{
    {"", 1.0},
    {"B", 1.0},
    {"KB", 1e3},
    {"kB", 1e3},
    {"KiB", 1024.0},
    {"MB", 1e6},
    {"MiB", 1048576.0},
    {"GB", 1e9},
    {"GiB", 1073741824.0},
}};

// The bit-rate spellings other tools print and users type: iperf3/ethtool "100G", "100Gb/s",
// tc "100gbit", Ethernet "25GbE". A decimal prefix letter in either case, then one of these
// (a lower-case "b" is bits; "B" stays bytes and is not accepted here).
constexpr std::array<std::string_view, 9> kBitWords{
    "", "b", "b/s", "bit", "bits", "bit/s", "bits/s", "bE", "be",
};

double decimal_prefix(char letter) {
  switch (letter) {
    case 'k':
    case 'K':
      return 1e3;
    case 'm':
    case 'M':
      return 1e6;
    case 'g':
    case 'G':
      return 1e9;
    case 't':
    case 'T':
      return 1e12;
    default:
      return 0.0;
  }
}

bool equal_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// "G", "Gb/s", "gbit", "GbE", "Gbits/s"...: the factor in bit/s, 0 when it is none of them.
double user_bit_rate_factor(std::string_view suffix) {
  if (suffix.empty()) return 0.0;
  const double prefix = decimal_prefix(suffix.front());
  if (prefix == 0.0) return 0.0;
  const std::string_view rest = suffix.substr(1);
  for (std::string_view word : kBitWords) {
    // "bit"/"bits" in any case ("Gbit", "GBit"); the single "b" only lower-case (bits).
    const bool match = word.size() >= 3 && word.substr(0, 3) == "bit"
                           ? equal_ignoring_case(rest, word)
                           : rest == word;
    if (match) return prefix;
  }
  return 0.0;
}

Error bad(std::string message) {
  return make_error(Errc::invalid_config, std::move(message));
}

}  // namespace

Result<Rate> parse_rate(std::string_view text, bool allow_zero) {
  double number = 0;
  std::string_view suffix;
  if (!split_number(text, number, suffix)) {
    return bad(
        fmt::format("'{}' is not a rate; write e.g. \"100Gbps\", \"4096Mbps\" or \"2Mpps\"", text));
  }
  Rate rate;
  if (const auto* unit = find_unit(kBitRates, suffix)) {
    rate = Rate{number * unit->factor, Rate::Unit::bits_per_second};
  } else if (const auto* punit = find_unit(kPacketRates, suffix)) {
    rate = Rate{number * punit->factor, Rate::Unit::packets_per_second};
  } else if (const double factor = user_bit_rate_factor(suffix); factor > 0.0) {
    rate = Rate{number * factor, Rate::Unit::bits_per_second};
  } else if (suffix.size() == 4 && decimal_prefix(suffix.front()) > 0.0 &&
             suffix.substr(1) == "bps") {
    // tc reads "mbps"/"gbps" as bytes per second, most other tools as bits: say which we mean.
    return bad(fmt::format(
        "ambiguous rate unit '{}' in '{}' (tc reads it as bytes per second): write \"{}{}bit\" "
        "or \"{}{}bps\" for bits, \"{}{}B/s\" for bytes",
        suffix, text, number, suffix.front(), number, static_cast<char>(suffix.front() & ~0x20),
        number, static_cast<char>(suffix.front() & ~0x20)));
  } else {
    return bad(
        fmt::format("unknown rate unit '{}' in '{}' (use bps, kbps, Mbps, Gbps, Tbps, "
                    "bit/s forms such as Gbit/s, Gb/s, gbit, G or GbE, B/s forms, or pps, "
                    "kpps, Mpps)",
                    suffix, text));
  }
  if (std::isnan(rate.value)) return bad(fmt::format("'{}' is not a rate", text));
  if (std::isinf(rate.value) && rate.value > 0) {
    return bad(fmt::format("rate '{}' is beyond any rate qosbench takes", text));
  }
  if (rate.value < 0 || (rate.value == 0 && !allow_zero)) {
    return bad(fmt::format("rate '{}' must be {}", text,
                           allow_zero ? "zero or greater" : "greater than zero"));
  }
  return rate;
}

Result<double> parse_duration_ns_unbounded(std::string_view text) {
  double number = 0;
  std::string_view suffix;
  if (!split_number(text, number, suffix)) {
    return bad(
        fmt::format("'{}' is not a duration; write e.g. \"200ms\", \"20us\" or \"1s\"", text));
  }
  const auto* unit = find_unit(kDurations, suffix);
  if (unit == nullptr) {
    return bad(fmt::format("unknown duration unit '{}' in '{}' (use ns, us, ms, s, min, h)", suffix,
                           text));
  }
  const double ns = number * unit->factor;
  if (std::isnan(ns)) return bad(fmt::format("'{}' is not a duration", text));
  return ns;
}

Result<int64_t> parse_duration_ns(std::string_view text, bool allow_zero) {
  auto parsed = parse_duration_ns_unbounded(text);
  if (!parsed) return std::move(parsed).error();
  const double ns = *parsed;
  if (ns < 0) return bad(fmt::format("duration '{}' must be zero or greater", text));
  if (!(ns <= static_cast<double>(kMaxDurationNs))) {
    return bad(
        fmt::format("duration '{}' is longer than {:.0f} h, the longest qosbench takes "
                    "(picoseconds in 64 bits)",
                    text, static_cast<double>(kMaxDurationNs) / 3600e9));
  }
  if (!allow_zero && ns < 1.0) {
    return bad(fmt::format("duration '{}' must be greater than zero", text));
  }
  // The bound is not exact in a double: the rounded value may be one above it.
  return std::min<int64_t>(std::llround(ns), kMaxDurationNs);
}

Result<double> parse_size_bytes_unbounded(std::string_view text) {
  double number = 0;
  std::string_view suffix;
  if (!split_number(text, number, suffix)) {
    return bad(fmt::format("'{}' is not a size; write e.g. 4096, \"4KiB\" or \"9000B\"", text));
  }
  const auto* unit = find_unit(kSizes, suffix);
  if (suffix.size() == 1 &&
      std::string_view("kKmMgG").find(suffix.front()) != std::string_view::npos) {
    // "4k" was 4000 bytes once; users mean 4096 as often as 4000: make them say which.
    const char upper = static_cast<char>(suffix.front() & ~0x20);
    return bad(fmt::format(
        "ambiguous size unit '{}' in '{}': write \"{}{}B\" ({} bytes) or \"{}{}iB\" ({} bytes)",
        suffix, text, number, upper, number * decimal_prefix(suffix.front()), number, upper,
        number * std::pow(1024.0, std::round(std::log10(decimal_prefix(suffix.front())) / 3.0))));
  }
  if (unit == nullptr) {
    return bad(fmt::format("unknown size unit '{}' in '{}' (use B, KB, KiB, MB, MiB, GB, GiB)",
                           suffix, text));
  }
  const double bytes = number * unit->factor;
  if (std::isnan(bytes)) return bad(fmt::format("'{}' is not a size", text));
  return bytes;
}

Result<uint64_t> parse_size_bytes(std::string_view text) {
  auto parsed = parse_size_bytes_unbounded(text);
  if (!parsed) return std::move(parsed).error();
  const double bytes = *parsed;
  if (bytes < 1.0) return bad(fmt::format("size '{}' must be at least one byte", text));
  if (!(bytes <= static_cast<double>(kMaxSizeBytes))) {
    return bad(
        fmt::format("size '{}' is larger than 2^62 bytes, the largest qosbench takes", text));
  }
  if (bytes != std::floor(bytes)) {
    return bad(fmt::format("size '{}' is not a whole number of bytes", text));
  }
  return static_cast<uint64_t>(bytes);
}

std::string format_rate_bps(double rate_bps) {
  const double magnitude = std::fabs(rate_bps);
  if (magnitude >= 1e12) return fmt::format("{:.3f} Tbit/s", rate_bps / 1e12);
  if (magnitude >= 1e9) return fmt::format("{:.3f} Gbit/s", rate_bps / 1e9);
  if (magnitude >= 1e6) return fmt::format("{:.3f} Mbit/s", rate_bps / 1e6);
  if (magnitude >= 1e3) return fmt::format("{:.3f} kbit/s", rate_bps / 1e3);
  return fmt::format("{:.0f} bit/s", rate_bps);
}

std::string format_duration_ns(double duration_ns) {
  const double magnitude = std::fabs(duration_ns);
  if (magnitude >= 1e9) return fmt::format("{:.3f} s", duration_ns / 1e9);
  if (magnitude >= 1e6) return fmt::format("{:.2f} ms", duration_ns / 1e6);
  if (magnitude >= 1e3) return fmt::format("{:.2f} us", duration_ns / 1e3);
  return fmt::format("{:.0f} ns", duration_ns);
}

}  // namespace qb
