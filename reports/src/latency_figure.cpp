#include <algorithm>
#include <cmath>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {

namespace {

constexpr double kMaxSlot = 5.85;  // x position of the "max" column, in log10 1/(1-p)
constexpr double kMaxSeparator = 5.45;

/// x of a percentile on the 1/(1-p) axis (log10), for 0 <= p < 100.
double p_axis(double percentile) {
  return std::log10(100.0 / (100.0 - percentile));
}

std::vector<std::pair<double, double>> spectrum_points(const LatencySummary& l) {
  std::vector<std::pair<double, double>> points;
  for (const auto& [p, ns] : l.spectrum) {
    if (p >= 50.0 && p < 100.0) points.emplace_back(p_axis(p), std::max<double>(1.0, ns));
  }
  return points;
}

}  // namespace

void latency_figure(Markup& m, const ScenarioResult& s) {
  // One y scale for every panel, so groups compare at a glance.
  double lo = 0.0, hi = 0.0;
  for (const auto& g : s.groups) {
    for (const LatencySummary* l : {&g.latency, &g.latency_from_sent}) {
      if (l->count == 0) continue;
      for (const auto& [p, ns] : l->spectrum) {
        if (p < 50.0 || ns <= 0) continue;
        const auto v = static_cast<double>(ns);
        lo = lo == 0.0 ? v : std::min(lo, v);
        hi = std::max(hi, v);
      }
    }
  }
  if (hi <= 0.0) {
    lo = 1e3;
    hi = 1e6;
  }
  lo /= 1.3;
  hi *= 1.3;

  m.open("ul", {{"class", "legend"}});
  m.open("li");
  m.element("span", {{"class", "swatch"}, {"style", "background:#404040"}}, "");
  m.text("solid: from the scheduled send time (includes queueing behind the scheduler)");
  m.close();
  m.open("li");
  m.element("span", {{"class", "swatch dashed"}, {"style", "border-color:#404040"}}, "");
  m.text("dashed: from the actual send time");
  m.close();
  m.open("li", {{"class", "muted"}});
  m.text("● ○ at the right: the maximum");
  m.close();
  m.close();

  m.open("div", {{"class", "panels"}});
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const GroupResult& g = s.groups[gi];
    const std::string& colour = group_colour(gi);
    m.open("figure", {{"class", "panel"}});
    m.open("figcaption");
    m.element("span", {{"class", "swatch"}, {"style", "background:" + colour}}, "");
    m.element("strong", {}, g.name);
    if (g.latency.count == 0) {
      m.element("span", {{"class", "muted"}}, " no samples");
    } else {
      m.element("span", {{"class", "muted"}},
                " p99 " + format_ns(static_cast<double>(g.latency.p99_ns)) + " scheduled · " +
                    format_ns(static_cast<double>(g.latency_from_sent.p99_ns)) + " sent");
    }
    m.close();

    Plot plot;
    plot.width = 420;
    plot.height = 260;
    plot.left = 66;
    plot.right = 14;
    plot.bottom = 50;
    plot.x.scale = {p_axis(50.0), kMaxSlot + 0.25, 0, 1, false};
    for (double p : {50.0, 90.0, 99.0, 99.9, 99.99, 99.999}) {
      plot.x.ticks.push_back(p_axis(p));
      plot.x.labels.push_back(format_trimmed(p, 4) + "%");
    }
    plot.x.ticks.push_back(kMaxSlot);
    plot.x.labels.push_back("max");
    plot.x.title = "percentile (log 1/(1−p) axis)";
    plot.y.scale = {lo, hi, 0, 1, true};
    plot.y.ticks = log_ticks(lo, hi);
    for (double t : plot.y.ticks) plot.y.labels.push_back(format_ns(t));
    plot.y.title = "latency";
    begin_plot(m, plot, "latency-spectrum",
               "Latency percentile spectrum of " + g.name + ", scheduled and sent");
    const double sep = plot.x.scale(kMaxSeparator);
    m.empty("line", {{"class", "separator"},
                     {"x1", coord(sep)},
                     {"x2", coord(sep)},
                     {"y1", coord(plot.y1())},
                     {"y2", coord(plot.y0())}});
    struct Basis {
      const char* name;
      const LatencySummary* latency;
      bool dashed;
    };
    for (const Basis& b :
         {Basis{"scheduled", &g.latency, false}, Basis{"sent", &g.latency_from_sent, true}}) {
      std::vector<Attr> attrs = {
          {"class", "spectrum"},
          {"data-subject", g.name},
          {"data-basis", b.name},
          {"data-p99-ns", json_number(static_cast<double>(b.latency->p99_ns))},
          {"data-max-ns", json_number(static_cast<double>(b.latency->max_ns))},
          {"d", b.latency->count == 0
                    ? std::string()
                    : line_path(spectrum_points(*b.latency), plot.x.scale, plot.y.scale)},
          {"stroke", colour}};
      if (b.dashed) attrs.emplace_back("stroke-dasharray", "5 3");
      m.open("path", attrs);
      m.element("title", {},
                g.name + ", from the " + b.name + " time: p50 " +
                    format_ns(static_cast<double>(b.latency->p50_ns)) + ", p99 " +
                    format_ns(static_cast<double>(b.latency->p99_ns)) + ", p99.9 " +
                    format_ns(static_cast<double>(b.latency->p999_ns)) + ", max " +
                    format_ns(static_cast<double>(b.latency->max_ns)));
      m.close();
      if (b.latency->count != 0) {
        // p = 100 has no place on a 1/(1-p) axis: the maximum gets its own column.
        m.empty("circle", {{"class", b.dashed ? "max-marker hollow" : "max-marker"},
                           {"cx", coord(plot.x.scale(kMaxSlot))},
                           {"cy", coord(plot.y.scale(std::max<double>(
                                      1.0, static_cast<double>(b.latency->max_ns))))},
                           {"r", "4"},
                           {"stroke", colour},
                           {"fill", b.dashed ? "#ffffff" : colour}});
      }
    }
    m.close();  // svg
    m.close();  // figure
  }
  m.close();  // panels
}

}  // namespace qb::report::html
