#include <algorithm>
#include <cmath>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {

void jain_figure(Markup& m, const ScenarioResult& s, std::optional<double> gate) {
  const auto& series = s.fairness.jain_series;
  double lo = 1.0;
  for (double v : series) {
    if (std::isfinite(v)) lo = std::min(lo, v);
  }
  // The min_jain gate judges the whole-window index, not the bins: draw that value (and name
  // the gate against it) so a bursty flow's dipping bins do not read as a failed gate.
  const double whole = s.fairness.jain;
  if (std::isfinite(whole)) lo = std::min(lo, whole);
  if (gate && std::isfinite(*gate)) lo = std::min(lo, *gate);
  // The axis spans at least kMinSpan below 1: a fair run's 0.9999 then reads as the flat line
  // it is, not as a swing across the whole plot.
  constexpr double kMinSpan = 0.02;
  lo = std::min(lo - (1.0 - lo) * 0.08, 1.0 - kMinSpan);
  const double span = 1.0 - lo;
  const double step = nice_step(span, 4);
  lo = std::max(0.0, std::floor(lo / step) * step);

  Plot plot;
  plot.height = 230;
  plot.x = time_axis(series.size(), s.bin_ns);
  plot.y.scale = {lo, 1.0, 0, 1, false};
  plot.y.ticks = nice_ticks(lo, 1.0, 4);
  for (double t : plot.y.ticks) plot.y.labels.push_back(format_tick(t, step));
  plot.y.title = "normalised Jain index";
  begin_plot(m, plot, "jain", "Normalised Jain index over time");
  if (std::isfinite(whole)) {
    const double wy = plot.y.scale(whole);
    m.empty("line", {{"class", "reference-line"},
                     {"x1", coord(plot.x0())},
                     {"x2", coord(plot.x1())},
                     {"y1", coord(wy)},
                     {"y2", coord(wy)}});
    std::string label = "whole window " + format_sig(whole, 6);
    if (gate) {
      label += whole >= *gate ? " \u2265 " : " < ";
      label += "min_jain gate " + format_trimmed(*gate, 6);
    }
    m.element("text",
              {{"class", "reference-text"},
               {"x", coord(plot.x1() - 4)},
               {"y", coord(wy - 5)},
               {"text-anchor", "end"}},
              label);
  }
  // The min_jain gate itself, where the whole-window index must stay at or above.
  if (gate && std::isfinite(*gate)) {
    const double gy = plot.y.scale(*gate);
    m.empty("line", {{"class", "gate-line jain-gate"},
                     {"data-min-jain", json_number(*gate)},
                     {"x1", coord(plot.x0())},
                     {"x2", coord(plot.x1())},
                     {"y1", coord(gy)},
                     {"y2", coord(gy)}});
    // Below the line when it sits at the top of the axis, above it otherwise; at the left, so
    // it never meets the whole-window label at the right.
    const bool near_top = gy - plot.y.scale(1.0) < 16;
    m.element("text",
              {{"class", "gate-text"},
               {"x", coord(plot.x0() + 6)},
               {"y", coord(near_top ? gy + 14 : gy - 5)}},
              "min_jain gate " + format_trimmed(*gate, 6));
  }
  m.open("path", {{"class", "jain-series"},
                  {"data-points", json_array(series)},
                  {"d", line_path(series_points(series, s.bin_ns), plot.x.scale, plot.y.scale)}});
  m.element("title", {},
            "Jain index per time bin; over the whole window " + format_sig(s.fairness.jain, 8));
  m.close();
  m.close();  // svg
}

}  // namespace qb::report::html
