#include "svg_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "markup_escape.hpp"

namespace qb::report::html {

std::string escape(std::string_view text) {
  return escape_markup(text, /*attribute=*/true);
}

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";
  if (value == 0.0) return "0";
  std::array<char, 400> buffer{};
  // Fixed notation reads like the JSON the user knows (23976000000, 0.00001); the exponent
  // form only where fixed would be absurdly long.
  const double magnitude = std::fabs(value);
  const auto format =
      magnitude >= 1e-7 && magnitude < 1e21 ? std::chars_format::fixed : std::chars_format::general;
  auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, format);
  if (ec != std::errc()) return "null";
  return std::string(buffer.data(), end);
}

std::string json_array(std::span<const double> values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i != 0) out += ',';
    out += json_number(values[i]);
  }
  out += ']';
  return out;
}

std::string coord(double value) {
  if (!std::isfinite(value)) return "0";
  std::string out = fmt::format("{:.2f}", value);
  // Trim trailing zeros: the SVG is smaller and easier to read.
  while (!out.empty() && out.back() == '0') out.pop_back();
  if (!out.empty() && out.back() == '.') out.pop_back();
  if (out == "-0") out = "0";
  return out;
}

std::string format_trimmed(double value, int max_decimals) {
  if (!std::isfinite(value)) return "–";
  std::string out = fmt::format("{:.{}f}", value, std::clamp(max_decimals, 0, 12));
  if (out.find('.') != std::string::npos) {
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
  }
  return out == "-0" ? "0" : out;
}

std::string format_sig(double value, int significant) {
  if (!std::isfinite(value)) return "–";
  if (value == 0.0) return "0";
  const int digits_before = static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1;
  const int decimals = std::clamp(significant - digits_before, 0, 12);
  return fmt::format("{:.{}f}", value, decimals);
}

namespace {
std::string trim_zeros(std::string text) {
  if (text.find('.') == std::string::npos) return text;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text;
}
}  // namespace

Unit rate_unit_for(double max_bps) {
  const double m = std::fabs(max_bps);
  if (m >= 1e9) return {1e9, "Gbit/s"};
  if (m >= 1e6) return {1e6, "Mbit/s"};
  if (m >= 1e3) return {1e3, "kbit/s"};
  return {1.0, "bit/s"};
}

std::string format_bps(double bps) {
  const Unit unit = rate_unit_for(bps);
  return trim_zeros(format_sig(bps / unit.scale, 4)) + " " + unit.name;
}

std::string format_ns(double ns) {
  const double m = std::fabs(ns);
  if (m >= 1e9) return trim_zeros(format_sig(ns / 1e9, 4)) + " s";
  if (m >= 1e6) return trim_zeros(format_sig(ns / 1e6, 4)) + " ms";
  if (m >= 1e3) return trim_zeros(format_sig(ns / 1e3, 4)) + " µs";
  return trim_zeros(format_sig(ns, 4)) + " ns";
}

std::string format_percent(double ratio, bool with_sign) {
  if (!std::isfinite(ratio)) return "–";
  const double pct = ratio * 100.0;
  const double m = std::fabs(pct);
  // Share errors span 1e-6 .. 1: two significant digits below 1 %, two decimals above.
  int decimals = 2;
  if (m > 0.0 && m < 1.0) {
    decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(m))), 2, 6);
  } else if (m >= 100.0) {
    decimals = 0;
  }
  if (m == 0.0) return with_sign ? "±0%" : "0%";
  return with_sign ? fmt::format("{:+.{}f}%", pct, decimals)
                   : fmt::format("{:.{}f}%", pct, decimals);
}

double nice_step(double range, int target) {
  if (!(range > 0.0) || !std::isfinite(range)) return 1.0;
  const double raw = range / std::max(target, 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double norm = raw / magnitude;
  double step = 10.0;
  if (norm <= 1.0) {
    step = 1.0;
  } else if (norm <= 2.0) {
    step = 2.0;
  } else if (norm <= 2.5) {
    step = 2.5;
  } else if (norm <= 5.0) {
    step = 5.0;
  }
  return step * magnitude;
}

std::vector<double> nice_ticks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo)) {
    ticks.push_back(lo);
    return ticks;
  }
  const double step = nice_step(hi - lo, target);
  const double first = std::ceil(lo / step - 1e-9);
  for (int i = 0; i < 1000; ++i) {
    const double v = (first + i) * step;
    if (v > hi + step * 1e-9) break;
    ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  }
  return ticks;
}

std::string format_tick(double value, double step) {
  int decimals = 0;
  if (step > 0.0 && std::isfinite(step)) {
    const int exponent = static_cast<int>(std::floor(std::log10(step) + 1e-9));
    decimals = std::max(0, -exponent);
    // 2.5 x 10^k needs one more decimal than 10^k when k <= 0 (0.25, 2.5; not 25).
    const double norm = step / std::pow(10.0, exponent);
    if (std::fabs(norm - 2.5) < 1e-6 && exponent <= 0) ++decimals;
  }
  return fmt::format("{:.{}f}", value, std::min(decimals, 12));
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> ticks;
  if (!(lo > 0.0) || !(hi > lo)) return nice_ticks(lo, hi, 4);
  const int k0 = static_cast<int>(std::floor(std::log10(lo)));
  const int k1 = static_cast<int>(std::ceil(std::log10(hi)));
  auto collect = [&](std::initializer_list<double> mantissas) {
    std::vector<double> out;
    for (int k = k0; k <= k1; ++k) {
      for (double m : mantissas) {
        const double v = m * std::pow(10.0, k);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push_back(v);
      }
    }
    return out;
  };
  ticks = collect({1.0, 2.0, 5.0});
  if (ticks.size() > 8) ticks = collect({1.0});
  if (ticks.size() < 3) ticks = collect({1, 2, 3, 4, 5, 6, 7, 8, 9});
  if (ticks.size() < 3) ticks = nice_ticks(lo, hi, 4);
  return ticks;
}

double Scale::operator()(double value) const noexcept {
  double a = d0, b = d1, v = value;
  if (log) {
    a = std::log10(std::max(a, 1e-300));
    b = std::log10(std::max(b, 1e-300));
    v = std::log10(std::max(v, 1e-300));
  }
  if (b == a) return (r0 + r1) / 2.0;
  return r0 + (v - a) / (b - a) * (r1 - r0);
}

void Markup::start_tag(std::string_view tag, std::span<const Attr> attrs) {
  out_ += '<';
  out_ += tag;
  for (const auto& [name, value] : attrs) {
    out_ += ' ';
    out_ += name;
    out_ += "=\"";
    out_ += escape(value);
    out_ += '"';
  }
}

Markup& Markup::open(std::string_view tag, Attrs attrs) {
  start_tag(tag, std::span<const Attr>(attrs.begin(), attrs.size()));
  out_ += '>';
  stack_.emplace_back(tag);
  return *this;
}

Markup& Markup::open(std::string_view tag, const std::vector<Attr>& attrs) {
  start_tag(tag, attrs);
  out_ += '>';
  stack_.emplace_back(tag);
  return *this;
}

Markup& Markup::close() {
  if (stack_.empty()) return *this;
  out_ += "</";
  out_ += stack_.back();
  out_ += '>';
  stack_.pop_back();
  return *this;
}

Markup& Markup::empty(std::string_view tag, Attrs attrs) {
  start_tag(tag, std::span<const Attr>(attrs.begin(), attrs.size()));
  out_ += "/>";
  return *this;
}

Markup& Markup::empty(std::string_view tag, const std::vector<Attr>& attrs) {
  start_tag(tag, attrs);
  out_ += "/>";
  return *this;
}

Markup& Markup::element(std::string_view tag, Attrs attrs, std::string_view text) {
  open(tag, attrs);
  out_ += escape(text);
  return close();
}

Markup& Markup::element(std::string_view tag, const std::vector<Attr>& attrs,
                        std::string_view text) {
  open(tag, attrs);
  out_ += escape(text);
  return close();
}

Markup& Markup::text(std::string_view text) {
  out_ += escape(text);
  return *this;
}

Markup& Markup::raw(std::string_view markup) {
  out_ += markup;
  return *this;
}

}  // namespace qb::report::html
