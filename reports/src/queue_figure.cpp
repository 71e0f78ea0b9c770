#include <algorithm>
#include <cmath>
#include <string>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {

void queue_figure(Markup& m, const ScenarioResult& s) {
  if (s.queue_depth.empty()) return;
  size_t bins = 0;
  double max_bytes = 0.0;
  for (const QueueDepthSeries& q : s.queue_depth) {
    bins = std::max({bins, q.max_bytes.size(), q.mean_bytes.size()});
    for (double v : q.max_bytes) max_bytes = std::max(max_bytes, finite_or(v, 0));
    for (double v : q.mean_bytes) max_bytes = std::max(max_bytes, finite_or(v, 0));
  }
  m.open("ul", {{"class", "legend"}});
  for (size_t qi = 0; qi < s.queue_depth.size(); ++qi) {
    legend_item(m, group_colour(qi), false, "egress " + s.queue_depth[qi].name);
  }
  m.open("li", {{"class", "muted"}});
  m.text("solid: mean over the bin (time-weighted); dotted: the bin's maximum");
  m.close();
  m.close();

  // Bytes in KB (1000) on the axis: the suites write their thresholds in KB.
  Plot plot;
  plot.x = time_axis(bins, s.bin_ns);
  const double top_raw = max_bytes > 0.0 ? max_bytes * 1.05 / 1e3 : 1.0;
  const double step = nice_step(top_raw, 5);
  const double top = std::ceil(top_raw / step) * step;
  plot.y.scale = {0.0, top, 0, 1, false};
  plot.y.ticks = nice_ticks(0.0, top, 5);
  for (double t : plot.y.ticks) plot.y.labels.push_back(format_tick(t, step));
  plot.y.title = "switch egress queue (KB)";
  begin_plot(m, plot, "queue-depth", "Switch egress queue depth over time per class");
  const auto in_kb = [](const std::vector<double>& bytes) {
    std::vector<double> kb;
    kb.reserve(bytes.size());
    for (double v : bytes) kb.push_back(v / 1e3);
    return kb;
  };
  for (size_t qi = 0; qi < s.queue_depth.size(); ++qi) {
    const QueueDepthSeries& q = s.queue_depth[qi];
    m.open("g", {{"class", "queue-series"}, {"data-queue", q.name}});
    m.open(
        "path",
        {{"class", "queue-line thin"},
         {"data-kind", "max"},
         {"data-points", json_array(q.max_bytes)},
         {"d", line_path(series_points(in_kb(q.max_bytes), s.bin_ns), plot.x.scale, plot.y.scale)},
         {"stroke", group_colour(qi)},
         {"stroke-dasharray", "2 3"}});
    m.element("title", {}, q.name + ": deepest per bin");
    m.close();
    m.open(
        "path",
        {{"class", "queue-line"},
         {"data-kind", "mean"},
         {"data-points", json_array(q.mean_bytes)},
         {"d", line_path(series_points(in_kb(q.mean_bytes), s.bin_ns), plot.x.scale, plot.y.scale)},
         {"stroke", group_colour(qi)}});
    m.element("title", {}, q.name + ": mean per bin");
    m.close();
    m.close();  // g
  }
  m.close();  // svg
}

}  // namespace qb::report::html
