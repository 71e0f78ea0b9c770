#include <algorithm>
#include <cmath>

#include "figure_parts.hpp"
#include "svg_charts.hpp"
#include "svg_figures.hpp"

namespace qb::report::html {
namespace {

constexpr double kWidth = 1180, kRowH = 28, kHeader = 48;
constexpr double kLabelEnd = 268, kBar0 = 284, kBar1 = 730, kErr0 = 800, kErr1 = 1060;

// The two panels' scales: rates (bars) and errors (symmetric about 0).
struct BarAxes {
  Axis rate;
  Scale err;
  double err_top = 0.0, err_step = 0.0;
  double height = 0.0;
  double err_x(double v) const { return err(std::clamp(v, -err_top, err_top)); }
};

// Header: column titles and tick labels, the gate's lines and the baseline's key.
void bar_header(Markup& m, const BarAxes& axes, std::optional<double> gate, bool any_baseline) {
  m.open("g", {{"class", "axis"}});
  m.element(
      "text", {{"class", "axis-title"}, {"x", coord(kBar0)}, {"y", "14"}},
      std::string("measured (bar) vs expected (tick), ") + rate_unit_for(axes.rate.scale.d1).name);
  m.element("text", {{"class", "axis-title"}, {"x", coord(kErr0)}, {"y", "14"}},
            "error = measured / expected − 1");
  for (size_t i = 0; i < axes.rate.ticks.size(); ++i) {
    const double tx = axes.rate.scale(axes.rate.ticks[i]);
    m.element("text", {{"x", coord(tx)}, {"y", "36"}, {"text-anchor", "middle"}},
              axes.rate.labels[i]);
    m.empty("line", {{"class", "gridline"},
                     {"x1", coord(tx)},
                     {"x2", coord(tx)},
                     {"y1", coord(kHeader - 6)},
                     {"y2", coord(axes.height - 6)}});
  }
  for (double t : nice_ticks(-axes.err_top, axes.err_top, 4)) {
    const double tx = axes.err(t);
    m.element("text", {{"x", coord(tx)}, {"y", "36"}, {"text-anchor", "middle"}},
              t == 0.0 ? std::string("0") : format_tick(t * 100.0, axes.err_step * 100.0) + "%");
    m.empty("line", {{"class", t == 0.0 ? "zeroline" : "gridline"},
                     {"x1", coord(tx)},
                     {"x2", coord(tx)},
                     {"y1", coord(kHeader - 6)},
                     {"y2", coord(axes.height - 6)}});
  }
  if (gate) {
    for (double sign : {-1.0, 1.0}) {
      const double gx = axes.err_x(sign * *gate);
      m.empty("line", {{"class", "gate-line"},
                       {"x1", coord(gx)},
                       {"x2", coord(gx)},
                       {"y1", coord(kHeader - 6)},
                       {"y2", coord(axes.height - 6)}});
    }
    m.element(
        "text",
        {{"class", "gate-text"}, {"x", coord(kWidth - 8)}, {"y", "14"}, {"text-anchor", "end"}},
        "- - gate ±" + format_trimmed(*gate * 100.0, 4) + "%");
  }
  if (any_baseline) {
    // On the tick row, right of the error ticks: the header row holds the titles and the gate.
    m.element(
        "text",
        {{"class", "baseline-text"}, {"x", coord(kWidth - 8)}, {"y", "36"}, {"text-anchor", "end"}},
        "◇ baseline");
  }
  m.close();
}

void bar_row(Markup& m, const BarAxes& axes, const BarRow& r, size_t i,
             std::optional<double> gate) {
  const double y = kHeader + static_cast<double>(i) * kRowH;
  const double mid = y + kRowH / 2;
  const bool beyond_gate = gate && std::fabs(r.error) > *gate;
  m.open("g", r.attrs);
  m.element("title", {},
            r.label + (r.sublabel.empty() ? "" : " (" + r.sublabel + ")") + "\nmeasured " +
                format_bps(r.measured_bps) + ", expected " + format_bps(r.expected_bps) +
                ", error " + format_percent(r.error));
  if (i % 2 == 0) {
    m.empty("rect", {{"class", "zebra"},
                     {"x", "0"},
                     {"y", coord(y)},
                     {"width", coord(kWidth)},
                     {"height", coord(kRowH)}});
  }
  m.element("text", {{"class", "label"}, {"x", "8"}, {"y", coord(mid + 4)}}, shorten(r.label, 26));
  if (!r.sublabel.empty()) {
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(kLabelEnd)},
               {"y", coord(mid + 4)},
               {"text-anchor", "end"}},
              shorten(r.sublabel, 14));
  }
  const double exp_x =
      axes.rate.scale(std::clamp(finite_or(r.expected_bps, 0), 0.0, axes.rate.scale.d1));
  const double meas_x =
      axes.rate.scale(std::clamp(finite_or(r.measured_bps, 0), 0.0, axes.rate.scale.d1));
  m.empty("rect", {{"class", "expected-bar"},
                   {"x", coord(kBar0)},
                   {"y", coord(mid - 7)},
                   {"width", coord(exp_x - kBar0)},
                   {"height", "14"}});
  m.empty("rect", {{"x", coord(kBar0)},
                   {"y", coord(mid - 3.5)},
                   {"width", coord(meas_x - kBar0)},
                   {"height", "7"},
                   {"fill", r.colour}});
  m.empty("line", {{"class", "expected-tick"},
                   {"x1", coord(exp_x)},
                   {"x2", coord(exp_x)},
                   {"y1", coord(mid - 9)},
                   {"y2", coord(mid + 9)}});
  const double zero_x = axes.err(0.0), e_x = axes.err_x(finite_or(r.error, 0));
  m.empty("rect", {{"class", beyond_gate ? "error-bar beyond" : "error-bar"},
                   {"x", coord(std::min(zero_x, e_x))},
                   {"y", coord(mid - 6)},
                   {"width", coord(std::max(std::fabs(e_x - zero_x), 1.0))},
                   {"height", "12"}});
  if (r.baseline_error) {
    // A hollow diamond at the baseline's error: how far this row moved since.
    const double bx = axes.err_x(finite_or(*r.baseline_error, 0));
    m.open("path", {{"class", "baseline-marker"},
                    {"data-baseline-error", json_number(*r.baseline_error)},
                    {"d", "M" + coord(bx) + "," + coord(mid - 6) + " L" + coord(bx + 5) + "," +
                              coord(mid) + " L" + coord(bx) + "," + coord(mid + 6) + " L" +
                              coord(bx - 5) + "," + coord(mid) + " Z"}});
    m.element("title", {}, "baseline error " + format_percent(*r.baseline_error));
    m.close();
  }
  m.element("text",
            {{"class", beyond_gate ? "value beyond" : "value"},
             {"x", coord(kWidth - 8)},
             {"y", coord(mid + 4)},
             {"text-anchor", "end"}},
            format_percent(r.error));
  m.close();
}

}  // namespace

void bar_figure(Markup& m, std::string_view css_class, std::string_view label,
                const std::vector<BarRow>& rows, std::optional<double> gate) {
  BarAxes axes;
  axes.height = kHeader + static_cast<double>(rows.size()) * kRowH + 10;

  // Errors smaller than this are noise: the axis spans at least ±kMinErrorReach so that they
  // draw as the slivers they are instead of filling the panel.
  constexpr double kMinErrorReach = 0.01;
  double max_bps = 0.0, max_err = 0.0;
  bool any_baseline = false;
  for (const auto& r : rows) {
    max_bps = std::max({max_bps, finite_or(r.expected_bps, 0), finite_or(r.measured_bps, 0)});
    max_err = std::max(max_err, std::fabs(finite_or(r.error, 0)));
    if (r.baseline_error) {
      any_baseline = true;
      max_err = std::max(max_err, std::fabs(finite_or(*r.baseline_error, 0)));
    }
  }
  axes.rate = rate_axis(max_bps, "rate");
  axes.rate.scale.r0 = kBar0;
  axes.rate.scale.r1 = kBar1;
  const double err_reach = std::max({max_err, gate.value_or(0.0), kMinErrorReach}) * 1.1;
  axes.err_step = nice_step(2 * err_reach, 4);
  axes.err_top = std::ceil(err_reach / axes.err_step) * axes.err_step;
  axes.err = Scale{-axes.err_top, axes.err_top, kErr0, kErr1};

  begin_svg(m, kWidth, axes.height, css_class, label);
  bar_header(m, axes, gate, any_baseline);
  for (size_t i = 0; i < rows.size(); ++i) bar_row(m, axes, rows[i], i, gate);
  m.close();  // svg
}

}  // namespace qb::report::html
