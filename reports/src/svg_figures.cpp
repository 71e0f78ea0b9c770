#include "svg_figures.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include "svg_charts.hpp"

namespace qb::report::html {
namespace {

// Okabe–Ito without its yellow (too light for a line on white); black softened.
const std::array<std::string, 7> kPalette = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                             "#56B4E9", "#D55E00", "#404040"};
constexpr const char* kCapColour = "#D55E00";
constexpr const char* kFailColour = "#CF222E";

/// Cuts a label to `max_chars` bytes (never inside a UTF-8 sequence), with an ellipsis.
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

/// A rate axis from 0 to a nice top above `max_bps`.
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

/// Time axis over `bins` bins of `bin_ns`, in ms.
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

// ---------------------------------------------------------------------------------------------
void tree_figure(Markup& m, const ScenarioResult& s) {
  const auto& tree = s.tree;
  const size_t n = tree.size();
  if (n == 0) {
    m.element("p", {{"class", "note"}}, "The results carry no scheduling tree.");
    return;
  }
  std::map<std::string, size_t> by_name;
  for (size_t i = 0; i < n; ++i) by_name.emplace(tree[i].name, i);
  std::vector<std::vector<size_t>> children(n);
  std::vector<size_t> parent_of(n, n);
  std::vector<size_t> roots;
  for (size_t i = 0; i < n; ++i) {
    auto it = by_name.find(tree[i].parent);
    if (tree[i].parent.empty() || it == by_name.end() || it->second == i) {
      roots.push_back(i);
    } else {
      children[it->second].push_back(i);
      parent_of[i] = it->second;
    }
  }
  std::map<std::string, size_t> flows_on_leaf;
  for (const auto& f : s.flows) ++flows_on_leaf[f.leaf];

  // Tidy left-to-right layout: leaves take consecutive rows, a node sits between its first
  // and last child. `placed` guards against cycles in a hand-edited results file.
  struct Pos {
    int depth = 0;
    double row = 0.0;
    bool placed = false;
  };
  std::vector<Pos> pos(n);
  int rows = 0, max_depth = 0;
  std::function<double(size_t, int)> place = [&](size_t i, int depth) -> double {
    pos[i].placed = true;
    pos[i].depth = depth;
    max_depth = std::max(max_depth, depth);
    double first = -1.0, last = -1.0;
    for (size_t c : children[i]) {
      if (pos[c].placed) continue;
      const double r = place(c, depth + 1);
      if (first < 0) first = r;
      last = r;
    }
    pos[i].row = first < 0 ? rows++ : (first + last) / 2.0;
    return pos[i].row;
  };
  for (size_t r : roots) place(r, 0);
  for (size_t i = 0; i < n; ++i) {
    if (!pos[i].placed) place(i, 0);
  }

  constexpr double kBoxW = 300, kBoxH = 62, kCol = 348, kRowPitch = 76, kPad = 14, kTop = 12;
  const double width = 2 * kPad + max_depth * kCol + kBoxW;
  const double height = kPad + kTop + rows * kRowPitch - (kRowPitch - kBoxH) + kPad;
  auto bx = [&](size_t i) { return kPad + pos[i].depth * kCol; };
  auto by = [&](size_t i) { return kPad + kTop + pos[i].row * kRowPitch; };

  begin_svg(m, width, height, "tree", "Scheduling tree: expected vs measured at every element");
  m.open("g", {{"class", "edges"}});
  for (size_t i = 0; i < n; ++i) {
    for (size_t c : children[i]) {
      const double x_from = bx(i) + kBoxW, y_from = by(i) + kBoxH / 2;
      const double x_to = bx(c), y_to = by(c) + kBoxH / 2;
      const double x_mid = x_from + (x_to - x_from) / 2;
      m.empty("path", {{"d", "M" + coord(x_from) + "," + coord(y_from) + " H" + coord(x_mid) +
                                 " V" + coord(y_to) + " H" + coord(x_to)}});
    }
  }
  m.close();

  for (size_t i = 0; i < n; ++i) {
    const ElementResult& e = tree[i];
    const double x = bx(i), y = by(i);
    std::vector<Attr> attrs = {{"class", "tree-node"},
                               {"data-name", e.name},
                               {"data-kind", e.is_leaf ? "leaf" : "node"},
                               {"data-expected-bps", json_number(e.expected_bps)},
                               {"data-measured-bps", json_number(e.measured_bps)}};
    if (e.cap_bps) attrs.emplace_back("data-cap-bps", json_number(*e.cap_bps));
    m.open("g", attrs);

    const double error = e.expected_bps > 0 ? e.measured_bps / e.expected_bps - 1.0 : 0.0;
    std::string title = e.name + (e.is_leaf ? " (leaf)" : " (node)") + "\nmeasured " +
                        format_bps(e.measured_bps) + ", expected " + format_bps(e.expected_bps) +
                        " (" + format_percent(error) + ")";
    if (e.bw_share > 0) title += "\nbw_share " + std::to_string(e.bw_share);
    if (e.cap_bps) title += "\ncap (max_avg_bw) " + format_bps(*e.cap_bps);
    m.element("title", {}, title);

    m.empty("rect", {{"class", e.is_leaf ? "box leaf" : "box"},
                     {"x", coord(x)},
                     {"y", coord(y)},
                     {"width", coord(kBoxW)},
                     {"height", coord(kBoxH)},
                     {"rx", "6"}});
    std::string right;
    if (e.bw_share > 0) right = "share " + std::to_string(e.bw_share);
    if (e.is_leaf) {
      const size_t k = flows_on_leaf.count(e.name) != 0 ? flows_on_leaf[e.name] : 0;
      right += (right.empty() ? "" : " · ") + std::to_string(k) + (k == 1 ? " flow" : " flows");
    }
    if (parent_of[i] == n && right.empty()) right = "port " + format_bps(s.capacity_bps);
    const auto name_chars = static_cast<size_t>(
        std::max(4.0, (kBoxW - 24 - static_cast<double>(right.size()) * 6.2 - 10) / 7.6));
    m.element("text", {{"class", "name"}, {"x", coord(x + 12)}, {"y", coord(y + 19)}},
              shorten(e.name, name_chars));
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(x + kBoxW - 12)},
               {"y", coord(y + 19)},
               {"text-anchor", "end"}},
              right);

    // The bar: this element's share of its parent (of the port for a root); tick = expected.
    double parent_measured = s.capacity_bps, parent_expected = s.capacity_bps;
    if (parent_of[i] != n) {
      parent_measured = tree[parent_of[i]].measured_bps;
      parent_expected = tree[parent_of[i]].expected_bps;
    }
    auto share = [](double part, double whole) {
      return whole > 0 ? std::clamp(part / whole, 0.0, 1.0) : 0.0;
    };
    const double bar_x = x + 12, bar_y = y + 28, bar_w = kBoxW - 24 - 56, bar_h = 8;
    const double measured_share = share(e.measured_bps, parent_measured);
    const double expected_share = share(e.expected_bps, parent_expected);
    m.empty("rect", {{"class", "track"},
                     {"x", coord(bar_x)},
                     {"y", coord(bar_y)},
                     {"width", coord(bar_w)},
                     {"height", coord(bar_h)},
                     {"rx", "2"}});
    m.empty("rect", {{"class", "fill"},
                     {"x", coord(bar_x)},
                     {"y", coord(bar_y)},
                     {"width", coord(bar_w * measured_share)},
                     {"height", coord(bar_h)},
                     {"rx", "2"}});
    const double tick_x = bar_x + bar_w * expected_share;
    m.empty("line", {{"class", "expected-tick"},
                     {"x1", coord(tick_x)},
                     {"x2", coord(tick_x)},
                     {"y1", coord(bar_y - 3)},
                     {"y2", coord(bar_y + bar_h + 3)}});
    if (e.cap_bps && parent_expected > 0 && *e.cap_bps < parent_expected) {
      const double cap_x = bar_x + bar_w * share(*e.cap_bps, parent_expected);
      m.empty("line", {{"class", "cap-tick"},
                       {"x1", coord(cap_x)},
                       {"x2", coord(cap_x)},
                       {"y1", coord(bar_y - 4)},
                       {"y2", coord(bar_y + bar_h + 4)}});
    }
    m.element("text",
              {{"class", "small"},
               {"x", coord(x + kBoxW - 12)},
               {"y", coord(bar_y + bar_h)},
               {"text-anchor", "end"}},
              format_sig(measured_share * 100.0, 3) + "%");
    m.element("text", {{"class", "small"}, {"x", coord(x + 12)}, {"y", coord(y + 54)}},
              rate_pair(e.measured_bps, e.expected_bps));
    m.element("text",
              {{"class", "small muted"},
               {"x", coord(x + kBoxW - 12)},
               {"y", coord(y + 54)},
               {"text-anchor", "end"}},
              format_percent(error));

    if (e.cap_bps) {
      const std::string cap_text = "cap " + format_bps(*e.cap_bps);
      const double w = 12 + static_cast<double>(cap_text.size()) * 6.0;
      m.empty("rect", {{"class", "cap-badge"},
                       {"x", coord(x + kBoxW - 12 - w)},
                       {"y", coord(y - 9)},
                       {"width", coord(w)},
                       {"height", "17"},
                       {"rx", "8"}});
      m.element("text",
                {{"class", "cap-text"},
                 {"x", coord(x + kBoxW - 12 - w / 2)},
                 {"y", coord(y + 3.5)},
                 {"text-anchor", "middle"}},
                cap_text);
    }
    m.close();  // g.tree-node
  }
  m.close();  // svg
  m.open("p", {{"class", "note"}});
  m.text(
      "Each box: measured of expected rate and the error. Bar: measured share of the parent "
      "(of the port for the root); black tick: expected share; ");
  m.element("span", {{"class", "cap-key"}}, "vermillion tick and badge");
  m.text(": the element's cap (max_avg_bw).");
  m.close();
}

// ---------------------------------------------------------------------------------------------
void bar_figure(Markup& m, std::string_view css_class, std::string_view label,
                const std::vector<BarRow>& rows, std::optional<double> gate) {
  constexpr double kWidth = 1180, kRowH = 28, kHeader = 48;
  constexpr double kLabelEnd = 268, kBar0 = 284, kBar1 = 730, kErr0 = 800, kErr1 = 1060;
  const double height = kHeader + static_cast<double>(rows.size()) * kRowH + 10;

  double max_bps = 0.0, max_err = 0.0;
  for (const auto& r : rows) {
    max_bps = std::max({max_bps, finite_or(r.expected_bps, 0), finite_or(r.measured_bps, 0)});
    max_err = std::max(max_err, std::fabs(finite_or(r.error, 0)));
  }
  Axis rate = rate_axis(max_bps, "rate");
  rate.scale.r0 = kBar0;
  rate.scale.r1 = kBar1;
  const double err_reach = std::max({max_err, gate.value_or(0.0), 1e-6}) * 1.1;
  const double err_step = nice_step(2 * err_reach, 4);
  const double err_top = std::ceil(err_reach / err_step) * err_step;
  Scale err{-err_top, err_top, kErr0, kErr1};
  auto err_x = [&](double v) { return err(std::clamp(v, -err_top, err_top)); };

  begin_svg(m, kWidth, height, css_class, label);
  // Header: column titles and tick labels.
  m.open("g", {{"class", "axis"}});
  m.element("text", {{"class", "axis-title"}, {"x", coord(kBar0)}, {"y", "14"}},
            std::string("measured (bar) vs expected (tick), ") + rate_unit_for(rate.scale.d1).name);
  m.element("text", {{"class", "axis-title"}, {"x", coord(kErr0)}, {"y", "14"}},
            "error = measured / expected − 1");
  for (size_t i = 0; i < rate.ticks.size(); ++i) {
    const double tx = rate.scale(rate.ticks[i]);
    m.element("text", {{"x", coord(tx)}, {"y", "36"}, {"text-anchor", "middle"}}, rate.labels[i]);
    m.empty("line", {{"class", "gridline"},
                     {"x1", coord(tx)},
                     {"x2", coord(tx)},
                     {"y1", coord(kHeader - 6)},
                     {"y2", coord(height - 6)}});
  }
  for (double t : nice_ticks(-err_top, err_top, 4)) {
    const double tx = err(t);
    m.element("text", {{"x", coord(tx)}, {"y", "36"}, {"text-anchor", "middle"}},
              t == 0.0 ? std::string("0") : format_tick(t * 100.0, err_step * 100.0) + "%");
    m.empty("line", {{"class", t == 0.0 ? "zeroline" : "gridline"},
                     {"x1", coord(tx)},
                     {"x2", coord(tx)},
                     {"y1", coord(kHeader - 6)},
                     {"y2", coord(height - 6)}});
  }
  if (gate) {
    for (double sign : {-1.0, 1.0}) {
      const double gx = err_x(sign * *gate);
      m.empty("line", {{"class", "gate-line"},
                       {"x1", coord(gx)},
                       {"x2", coord(gx)},
                       {"y1", coord(kHeader - 6)},
                       {"y2", coord(height - 6)}});
    }
    m.element(
        "text",
        {{"class", "gate-text"}, {"x", coord(kWidth - 8)}, {"y", "14"}, {"text-anchor", "end"}},
        "- - gate ±" + format_trimmed(*gate * 100.0, 4) + "%");
  }
  m.close();

  for (size_t i = 0; i < rows.size(); ++i) {
    const BarRow& r = rows[i];
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
    m.element("text", {{"class", "label"}, {"x", "8"}, {"y", coord(mid + 4)}},
              shorten(r.label, 26));
    if (!r.sublabel.empty()) {
      m.element("text",
                {{"class", "small muted"},
                 {"x", coord(kLabelEnd)},
                 {"y", coord(mid + 4)},
                 {"text-anchor", "end"}},
                shorten(r.sublabel, 14));
    }
    const double exp_x = rate.scale(std::clamp(finite_or(r.expected_bps, 0), 0.0, rate.scale.d1));
    const double meas_x = rate.scale(std::clamp(finite_or(r.measured_bps, 0), 0.0, rate.scale.d1));
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
    const double zero_x = err(0.0), e_x = err_x(finite_or(r.error, 0));
    m.empty("rect", {{"class", beyond_gate ? "error-bar beyond" : "error-bar"},
                     {"x", coord(std::min(zero_x, e_x))},
                     {"y", coord(mid - 6)},
                     {"width", coord(std::max(std::fabs(e_x - zero_x), 1.0))},
                     {"height", "12"}});
    m.element("text",
              {{"class", beyond_gate ? "value beyond" : "value"},
               {"x", coord(kWidth - 8)},
               {"y", coord(mid + 4)},
               {"text-anchor", "end"}},
              format_percent(r.error));
    m.close();
  }
  m.close();  // svg
}

// ---------------------------------------------------------------------------------------------
void throughput_figure(Markup& m, const ScenarioResult& s, const std::vector<size_t>& flows) {
  size_t bins = 0;
  double max_bps = 0.0;
  for (const auto& g : s.groups) {
    bins = std::max(bins, g.series_bps.size());
    max_bps = std::max(max_bps, finite_or(g.expected_bps, 0));
    for (double v : g.series_bps) max_bps = std::max(max_bps, finite_or(v, 0));
  }
  m.element("h4", {}, "Per group");
  m.open("ul", {{"class", "legend"}});
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    legend_item(m, group_colour(gi), group_dashed(gi), s.groups[gi].name);
  }
  m.open("li", {{"class", "muted"}});
  m.element("span", {{"class", "swatch expected-key"}}, "");
  m.text("thin dotted: expected");
  m.close();
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
  m.close();  // svg

  if (flows.empty()) return;
  size_t flow_bins = 0;
  double flow_max = 0.0;
  for (size_t fi : flows) {
    const auto& f = s.flows[fi];
    flow_bins = std::max(flow_bins, f.series_bps.size());
    flow_max = std::max(flow_max, finite_or(f.expected_bps, 0));
    for (double v : f.series_bps) flow_max = std::max(flow_max, finite_or(v, 0));
  }
  m.element("h4", {},
            flows.size() == s.flows.size()
                ? "Per flow (coloured by group)"
                : "The " + std::to_string(flows.size()) + " flows shown above (coloured by group)");
  Plot flow_plot;
  flow_plot.x = time_axis(flow_bins, s.bin_ns);
  flow_plot.y = rate_axis(flow_max, "throughput");
  begin_plot(m, flow_plot, "throughput flows", "Throughput over time of the flows shown");
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

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
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
  double span = 1.0 - lo;
  lo = span < 1e-6 ? 0.999 : lo - span * 0.08;
  span = 1.0 - lo;
  const double step = nice_step(span, 4);
  lo = std::max(0.0, std::floor(lo / step) * step);

  Plot plot;
  plot.height = 230;
  plot.left = 72;
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
  m.open("path", {{"class", "jain-series"},
                  {"data-points", json_array(series)},
                  {"d", line_path(series_points(series, s.bin_ns), plot.x.scale, plot.y.scale)}});
  m.element("title", {},
            "Jain index per time bin; over the whole window " + format_sig(s.fairness.jain, 8));
  m.close();
  m.close();  // svg
}

}  // namespace qb::report::html
