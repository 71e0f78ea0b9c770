#include "figure_parts.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace qb::report::html {
namespace {

// Okabe–Ito without its yellow (too light for a line on white); black softened.
const std::array<std::string, 7> kPalette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                             "#56B4E9", "#D55E00", "#404040"};

}  // namespace

const std::string& group_colour(size_t group_index) {
  return kPalette[group_index % kPalette.size()];
}

bool group_dashed(size_t group_index) {
  return (group_index / kPalette.size()) % 2 == 1;
}

size_t group_index(const ScenarioResult& s, const std::string& name) {
  for (size_t i = 0; i < s.groups.size(); ++i) {
    if (s.groups[i].name == name) return i;
  }
  return s.groups.size();
}

// Cuts a label to `max_chars` bytes (never inside a UTF-8 sequence), with an ellipsis.
std::string shorten(const std::string& text, size_t max_chars) {
  if (text.size() <= max_chars || max_chars < 2) return text;
  size_t cut = max_chars - 1;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

std::string rate_pair(double measured_bps, double expected_bps) {
  const Unit unit = rate_unit_for(std::max(std::fabs(measured_bps), std::fabs(expected_bps)));
  return format_trimmed(measured_bps / unit.scale, 3) + " of " +
         format_trimmed(expected_bps / unit.scale, 3) + " " + unit.name;
}

double finite_or(double value, double fallback) {
  return std::isfinite(value) ? value : fallback;
}

// A rate axis from 0 to a nice top above `max_bps`.
Axis rate_axis(double max_bps, std::string_view what) {
  Axis axis;
  const double top_raw = max_bps > 0.0 ? max_bps * 1.05 : 1.0;
  const double step = nice_step(top_raw, 5);
  const double top = std::ceil(top_raw / step) * step;
  const Unit unit = rate_unit_for(top);
  axis.scale.d0 = 0.0;
  axis.scale.d1 = top;
  axis.ticks = nice_ticks(0.0, top, 5);
  for (double t : axis.ticks) axis.labels.push_back(format_tick(t / unit.scale, step / unit.scale));
  axis.title = std::string(what) + " (" + unit.name + ")";
  return axis;
}

// Time axis over `bins` bins of `bin_ns`, in ms.
Axis time_axis(size_t bins, int64_t bin_ns) {
  Axis axis;
  const double bin_ms = bin_ns > 0 ? static_cast<double>(bin_ns) / 1e6 : 1.0;
  const double end = std::max(1.0, static_cast<double>(bins)) * bin_ms;
  axis.scale.d0 = 0.0;
  axis.scale.d1 = end;
  const double step = nice_step(end, 10);
  axis.ticks = nice_ticks(0.0, end, 10);
  for (double t : axis.ticks) axis.labels.push_back(format_tick(t, step));
  axis.title = bin_ns > 0 ? "time in the measured window (ms)" : "time bin";
  return axis;
}

std::vector<std::pair<double, double>> series_points(const std::vector<double>& values,
                                                     int64_t bin_ns) {
  const double bin_ms = bin_ns > 0 ? static_cast<double>(bin_ns) / 1e6 : 1.0;
  std::vector<std::pair<double, double>> points;
  points.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    points.emplace_back((static_cast<double>(i) + 0.5) * bin_ms, values[i]);
  }
  return points;
}

void legend_item(Markup& m, const std::string& colour, bool dashed, const std::string& label) {
  m.open("li");
  m.element("span",
            {{"class", dashed ? "swatch dashed" : "swatch"},
             {"style", dashed ? "border-color:" + colour : "background:" + colour}},
            "");
  m.text(label);
  m.close();
}

const ClassResult* find_class(const ScenarioResult& s, const std::string& name) {
  for (const auto& c : s.classes) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

void class_share_bar(Markup& m, double x, double y, double width, const ClassResult& c,
                     double capacity_bps, std::optional<double> cap_bps) {
  auto share = [&](double bps) {
    return capacity_bps > 0 ? std::clamp(finite_or(bps, 0) / capacity_bps, 0.0, 1.0) : 0.0;
  };
  constexpr double kBarH = 10;
  m.empty("rect", {{"class", "track"},
                   {"x", coord(x)},
                   {"y", coord(y - kBarH / 2)},
                   {"width", coord(width)},
                   {"height", coord(kBarH)},
                   {"rx", "2"}});
  m.empty("rect", {{"class", "fill"},
                   {"x", coord(x)},
                   {"y", coord(y - kBarH / 2)},
                   {"width", coord(width * share(c.measured_bps))},
                   {"height", coord(kBarH)},
                   {"rx", "2"}});
  const double tick_x = x + width * share(c.expected_bps);
  m.empty("line", {{"class", "expected-tick"},
                   {"x1", coord(tick_x)},
                   {"x2", coord(tick_x)},
                   {"y1", coord(y - kBarH / 2 - 3)},
                   {"y2", coord(y + kBarH / 2 + 3)}});
  if (cap_bps && *cap_bps < capacity_bps) {
    const double cap_x = x + width * share(*cap_bps);
    m.empty("line", {{"class", "cap-tick"},
                     {"x1", coord(cap_x)},
                     {"x2", coord(cap_x)},
                     {"y1", coord(y - kBarH / 2 - 4)},
                     {"y2", coord(y + kBarH / 2 + 4)}});
  }
  m.element("text", {{"class", "small"}, {"x", coord(x + width + 12)}, {"y", coord(y + 4)}},
            rate_pair(c.measured_bps, c.expected_bps) + " · " + format_percent(c.error));
}

}  // namespace qb::report::html
