// Private helpers of the HTML report: escaping, number formats, nice axis ticks and a small
// markup builder that escapes every attribute and text and keeps tags balanced.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qb::report::html {

/// Escapes & < > " ' for text and attribute values alike.
std::string escape(std::string_view text);

/// A plain JSON number (23976000000, 0.00001; no locale, shortest round trip); "null" when
/// not finite.
std::string json_number(double value);
/// "[1,2.5,3]"
std::string json_array(std::span<const double> values);

/// A coordinate for SVG: at most two decimals, no exponent.
std::string coord(double value);

/// Human figures: "95.90 Gbit/s", "21.98 µs", "+0.0011%".
std::string format_bps(double bps);
std::string format_ns(double ns);
std::string format_percent(double ratio, bool with_sign = true);
/// A figure with `significant` significant digits, no exponent for ordinary magnitudes.
std::string format_sig(double value, int significant);

/// At most `max_decimals` decimals, trailing zeros dropped: 50, 99.999.
std::string format_trimmed(double value, int max_decimals);
/// A unit for an axis of rates: divide by `scale` and label with `name`.
struct Unit {
  double scale = 1.0;
  const char* name = "";
};
Unit rate_unit_for(double max_bps);

/// A step of 1, 2, 2.5 or 5 times a power of ten giving about `target` intervals over range.
double nice_step(double range, int target);
/// Ticks at multiples of nice_step inside [lo, hi].
std::vector<double> nice_ticks(double lo, double hi, int target);
/// A tick label with as many decimals as the step needs.
std::string format_tick(double value, double step);
/// Ticks for a log axis over [lo, hi] (lo > 0): 1-2-5 per decade, thinned or densified to
/// give between 3 and about 8 ticks.
std::vector<double> log_ticks(double lo, double hi);

/// A map from a domain to a range of pixels, linear or logarithmic (log10; domain > 0).
struct Scale {
  double d0 = 0.0, d1 = 1.0, r0 = 0.0, r1 = 1.0;
  bool log = false;
  double operator()(double value) const noexcept;
};

using Attr = std::pair<std::string_view, std::string>;
using Attrs = std::initializer_list<Attr>;

/// Append-only HTML/SVG writer. Attribute values and text are escaped here, so callers
/// pass raw strings from the results.
class Markup {
 public:
  Markup& open(std::string_view tag, Attrs attrs = {});
  Markup& open(std::string_view tag, const std::vector<Attr>& attrs);
  Markup& close();  // closes the innermost open tag
  /// <tag attrs/>: SVG elements and HTML void elements only (an HTML <span/> is an open tag).
  Markup& empty(std::string_view tag, Attrs attrs = {});
  Markup& empty(std::string_view tag, const std::vector<Attr>& attrs);
  /// <tag attrs>escaped text</tag>
  Markup& element(std::string_view tag, Attrs attrs, std::string_view text);
  Markup& element(std::string_view tag, const std::vector<Attr>& attrs, std::string_view text);
  Markup& text(std::string_view text);
  /// Trusted markup (our own constant CSS and fragments built with another Markup).
  Markup& raw(std::string_view markup);
  size_t depth() const noexcept { return stack_.size(); }
  std::string& str() noexcept { return out_; }

 private:
  void start_tag(std::string_view tag, std::span<const Attr> attrs);
  std::string out_;
  std::vector<std::string> stack_;
};

}  // namespace qb::report::html
