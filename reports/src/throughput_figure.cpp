#include <algorithm>
#include <cmath>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {
namespace {

// Congestion control: a dashed line where flows joined, a solid one where the rates settled.
void convergence_markers(Markup& m, const ScenarioResult& s, const Plot& plot) {
  if (!s.convergence.present) return;
  auto marker = [&](int64_t at_ns, const char* kind, const std::string& title) {
    const double x_ms = static_cast<double>(at_ns - s.warmup_ns) / 1e6;  // the axis is in ms
    if (x_ms < 0.0 || x_ms > plot.x.scale.d1) return;
    const std::string x = coord(plot.x.scale(x_ms));
    m.open("line", {{"class", std::string("convergence-marker ") + kind},
                    {"x1", x},
                    {"x2", x},
                    {"y1", coord(plot.y0())},
                    {"y2", coord(plot.y1())}});
    m.element("title", {}, title);
    m.close();
  };
  for (const ConvergenceEpoch& epoch : s.convergence.epochs) {
    marker(epoch.start_ns, "join",
           std::to_string(epoch.active_flows) + " flows active from " +
               format_ns(static_cast<double>(epoch.start_ns)));
    if (epoch.converged) {
      marker(epoch.start_ns + epoch.time_ns, "settled",
             "settled within " + format_ns(static_cast<double>(epoch.time_ns)) + " of the join");
    }
  }
}

template <class Row>
const Row* named(const std::vector<Row>& rows, const std::string& name) {
  for (const auto& row : rows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

double series_max(const std::vector<double>& series) {
  double top = 0.0;
  for (double v : series) top = std::max(top, finite_or(v, 0));
  return top;
}

// The baseline's series of the same subject, behind the current one: only the bins inside the
// current window (a longer baseline would run off the axis).
void baseline_series(Markup& m, const Plot& plot, const std::vector<double>& series, int64_t bin_ns,
                     const char* kind, const std::string& subject, const std::string& colour) {
  auto points = series_points(series, bin_ns);
  std::erase_if(points, [&](const auto& p) { return p.first > plot.x.scale.d1; });
  m.open("path", {{"class", "baseline-series"},
                  {"data-kind", kind},
                  {"data-subject", subject},
                  {"data-points", json_array(series)},
                  {"d", line_path(points, plot.x.scale, plot.y.scale)},
                  {"stroke", colour}});
  m.element("title", {}, subject + ": baseline");
  m.close();
}

// A legend key drawn with the style of the lines it names (the CSS gives `<key>-key-line` the
// lines' rule), so key and lines cannot disagree; a CSS border cannot draw the same dashes.
void line_key(Markup& m, const std::string& key, const std::string& label) {
  m.open("li", {{"class", "muted line-key " + key + "-key"}});
  m.open("svg", {{"class", "key"}, {"width", "34"}, {"height", "8"}, {"aria-hidden", "true"}});
  m.empty("line", {{"class", key + "-key-line"},
                   {"x1", "0"},
                   {"x2", "34"},
                   {"y1", "4"},
                   {"y2", "4"},
                   {"stroke", "#59636e"}});
  m.close();
  m.text(label);
  m.close();
}

}  // namespace

void throughput_figure(Markup& m, const ScenarioResult& s, const std::vector<size_t>& flows,
                       const ScenarioResult* baseline) {
  size_t bins = 0;
  double max_bps = 0.0;
  for (const auto& g : s.groups) {
    bins = std::max(bins, g.series_bps.size());
    max_bps = std::max({max_bps, finite_or(g.expected_bps, 0), series_max(g.series_bps)});
    if (const GroupResult* b = baseline ? named(baseline->groups, g.name) : nullptr) {
      max_bps = std::max(max_bps, series_max(b->series_bps));
    }
  }
  m.element("h4", {}, "Per group");
  m.open("ul", {{"class", "legend"}});
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    legend_item(m, group_colour(gi), group_dashed(gi), s.groups[gi].name);
  }
  line_key(m, "expected", "thin dotted: expected");
  if (baseline != nullptr) line_key(m, "baseline", "wide, faint, long dashes: baseline");
  m.close();

  Plot plot;
  plot.x = time_axis(bins, s.bin_ns);
  plot.y = rate_axis(max_bps, "throughput");
  begin_plot(m, plot, "throughput", "Throughput over time per group");
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const auto& g = s.groups[gi];
    const std::string y =
        coord(plot.y.scale(std::clamp(finite_or(g.expected_bps, 0), 0.0, plot.y.scale.d1)));
    m.empty("line", {{"class", "expected"},
                     {"x1", coord(plot.x0())},
                     {"x2", coord(plot.x1())},
                     {"y1", y},
                     {"y2", y},
                     {"stroke", group_colour(gi)}});
  }
  if (baseline != nullptr) {
    for (size_t gi = 0; gi < s.groups.size(); ++gi) {
      const GroupResult* b = named(baseline->groups, s.groups[gi].name);
      if (b == nullptr) continue;
      baseline_series(m, plot, b->series_bps, baseline->bin_ns, "group", b->name, group_colour(gi));
    }
  }
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const auto& g = s.groups[gi];
    std::vector<Attr> attrs = {
        {"class", "series"},
        {"data-kind", "group"},
        {"data-subject", g.name},
        {"data-points", json_array(g.series_bps)},
        {"d", line_path(series_points(g.series_bps, s.bin_ns), plot.x.scale, plot.y.scale)},
        {"stroke", group_colour(gi)}};
    if (group_dashed(gi)) attrs.emplace_back("stroke-dasharray", "6 3");
    m.open("path", attrs);
    m.element("title", {},
              g.name + ": expected " + format_bps(g.expected_bps) + ", measured " +
                  format_bps(g.measured_bps));
    m.close();
  }
  convergence_markers(m, s, plot);
  m.close();  // svg

  if (flows.empty()) return;
  size_t flow_bins = 0;
  double flow_max = 0.0;
  for (size_t fi : flows) {
    const auto& f = s.flows[fi];
    flow_bins = std::max(flow_bins, f.series_bps.size());
    flow_max = std::max({flow_max, finite_or(f.expected_bps, 0), series_max(f.series_bps)});
    if (const FlowResult* b = baseline ? named(baseline->flows, f.name) : nullptr) {
      flow_max = std::max(flow_max, series_max(b->series_bps));
    }
  }
  m.element("h4", {},
            flows.size() == s.flows.size()
                ? "Per flow (coloured by group)"
                : "The " + std::to_string(flows.size()) + " flows shown above (coloured by group)");
  Plot flow_plot;
  flow_plot.x = time_axis(flow_bins, s.bin_ns);
  flow_plot.y = rate_axis(flow_max, "throughput");
  begin_plot(m, flow_plot, "throughput flows", "Throughput over time of the flows shown");
  if (baseline != nullptr) {
    for (size_t fi : flows) {
      const FlowResult* b = named(baseline->flows, s.flows[fi].name);
      if (b == nullptr) continue;
      baseline_series(m, flow_plot, b->series_bps, baseline->bin_ns, "flow", b->name,
                      group_colour(group_index(s, s.flows[fi].group)));
    }
  }
  for (size_t fi : flows) {
    const auto& f = s.flows[fi];
    const size_t gi = group_index(s, f.group);
    std::vector<Attr> attrs = {{"class", "series thin"},
                               {"data-kind", "flow"},
                               {"data-subject", f.name},
                               {"data-points", json_array(f.series_bps)},
                               {"d", line_path(series_points(f.series_bps, s.bin_ns),
                                               flow_plot.x.scale, flow_plot.y.scale)},
                               {"stroke", group_colour(gi)}};
    if (group_dashed(gi)) attrs.emplace_back("stroke-dasharray", "6 3");
    m.open("path", attrs);
    m.element("title", {},
              f.name + " (" + f.group + "): expected " + format_bps(f.expected_bps) +
                  ", measured " + format_bps(f.measured_bps));
    m.close();
  }
  m.close();  // svg
}

}  // namespace qb::report::html
