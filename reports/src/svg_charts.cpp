#include "svg_charts.hpp"

#include <algorithm>
#include <cmath>

namespace qb::report::html {

void begin_svg(Markup& m, double width, double height, std::string_view css_class,
               std::string_view label) {
  // Inline SVG in HTML needs no xmlns (and the page must not contain any URL).
  // viewBox + max-width: charts scale down on narrow screens and never blow up past 1:1.
  m.open("svg", {{"class", "chart " + std::string(css_class)},
                 {"viewBox", "0 0 " + coord(width) + " " + coord(height)},
                 {"style", "max-width:" + coord(width) + "px"},
                 {"role", "img"},
                 {"aria-label", std::string(label)}});
}

namespace {

// Tick labels are digits, signs and a few unit letters at 11.5px: about 7px a character.
constexpr double kTickCharPx = 7.0;
constexpr double kTickGapPx = 8.0;    // axis line to the end of a tick label
constexpr double kTitleGapPx = 10.0;  // tick labels to the rotated y-axis title's baseline side
constexpr double kTitleHalfPx = 8.0;  // half the title's line height

double widest_label_px(const std::vector<std::string>& labels) {
  size_t widest = 0;
  for (const auto& label : labels) {
    // Characters, not bytes: "−" and "µ" are one glyph each.
    size_t chars = 0;
    for (unsigned char c : label) chars += (c & 0xC0) != 0x80 ? 1 : 0;
    widest = std::max(widest, chars);
  }
  return static_cast<double>(widest) * kTickCharPx;
}

}  // namespace

void begin_plot(Markup& m, Plot& plot, std::string_view css_class, std::string_view label,
                std::vector<Attr> extra_attrs) {
  // The y-axis title sits left of the widest tick label; widen the margin when it would not fit.
  const double label_px = widest_label_px(plot.y.labels);
  const double title_room = plot.y.title.empty() ? 0.0 : kTitleGapPx + 2 * kTitleHalfPx + 2;
  plot.left = std::max(plot.left, kTickGapPx + label_px + title_room);
  const double title_x = plot.x0() - kTickGapPx - label_px - kTitleGapPx - kTitleHalfPx;
  plot.x.scale.r0 = plot.x0();
  plot.x.scale.r1 = plot.x1();
  plot.y.scale.r0 = plot.y0();
  plot.y.scale.r1 = plot.y1();
  std::vector<Attr> attrs = {{"class", "chart " + std::string(css_class)},
                             {"viewBox", "0 0 " + coord(plot.width) + " " + coord(plot.height)},
                             {"style", "max-width:" + coord(plot.width) + "px"},
                             {"role", "img"},
                             {"aria-label", std::string(label)}};
  for (auto& a : extra_attrs) attrs.push_back(std::move(a));
  m.open("svg", attrs);

  m.open("g", {{"class", "grid"}});
  for (double t : plot.y.ticks) {
    const std::string y = coord(plot.y.scale(t));
    m.empty("line", {{"x1", coord(plot.x0())}, {"x2", coord(plot.x1())}, {"y1", y}, {"y2", y}});
  }
  for (double t : plot.x.ticks) {
    const std::string x = coord(plot.x.scale(t));
    m.empty("line", {{"x1", x}, {"x2", x}, {"y1", coord(plot.y1())}, {"y2", coord(plot.y0())}});
  }
  m.close();

  m.open("g", {{"class", "axis"}});
  m.empty("line", {{"class", "axis-line"},
                   {"x1", coord(plot.x0())},
                   {"x2", coord(plot.x1())},
                   {"y1", coord(plot.y0())},
                   {"y2", coord(plot.y0())}});
  m.empty("line", {{"class", "axis-line"},
                   {"x1", coord(plot.x0())},
                   {"x2", coord(plot.x0())},
                   {"y1", coord(plot.y1())},
                   {"y2", coord(plot.y0())}});
  for (size_t i = 0; i < plot.y.ticks.size() && i < plot.y.labels.size(); ++i) {
    m.element("text",
              {{"x", coord(plot.x0() - 8)},
               {"y", coord(plot.y.scale(plot.y.ticks[i]) + 4)},
               {"text-anchor", "end"}},
              plot.y.labels[i]);
  }
  for (size_t i = 0; i < plot.x.ticks.size() && i < plot.x.labels.size(); ++i) {
    m.element("text",
              {{"x", coord(plot.x.scale(plot.x.ticks[i]))},
               {"y", coord(plot.y0() + 18)},
               {"text-anchor", "middle"}},
              plot.x.labels[i]);
  }
  if (!plot.x.title.empty()) {
    m.element("text",
              {{"class", "axis-title"},
               {"x", coord((plot.x0() + plot.x1()) / 2)},
               {"y", coord(plot.height - 6)},
               {"text-anchor", "middle"}},
              plot.x.title);
  }
  if (!plot.y.title.empty()) {
    const double cy = (plot.y0() + plot.y1()) / 2;
    m.element("text",
              {{"class", "axis-title"},
               {"x", coord(title_x)},
               {"y", coord(cy)},
               {"text-anchor", "middle"},
               {"dominant-baseline", "central"},
               {"transform", "rotate(-90 " + coord(title_x) + " " + coord(cy) + ")"}},
              plot.y.title);
  }
  m.close();
}

std::string line_path(const std::vector<std::pair<double, double>>& points, const Scale& x,
                      const Scale& y) {
  std::string d;
  bool pen_down = false;
  for (const auto& [px, py] : points) {
    if (!std::isfinite(px) || !std::isfinite(py)) {
      pen_down = false;
      continue;
    }
    d += pen_down ? " L" : (d.empty() ? "M" : " M");
    d += coord(x(px));
    d += ',';
    d += coord(y(py));
    pen_down = true;
  }
  return d;
}

}  // namespace qb::report::html
