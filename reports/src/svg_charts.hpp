// Private chart pieces of the HTML report: a plot frame (grid, axes, tick labels, axis titles)
// into which the report draws its own data elements, and path helpers.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "svg_builder.hpp"

namespace qb::report::html {

struct Axis {
  Scale scale;  // domain set by the caller; the range is set by begin_plot
  std::vector<double> ticks;
  std::vector<std::string> labels;  // one per tick
  std::string title;                // with its unit: "throughput (Gbit/s)"
};

struct Plot {
  double width = 1180.0, height = 280.0;
  double left = 64.0, right = 24.0, top = 14.0, bottom = 46.0;
  Axis x, y;
  double x0() const noexcept { return left; }
  double x1() const noexcept { return width - right; }
  double y0() const noexcept { return height - bottom; }  // bottom of the plot area
  double y1() const noexcept { return top; }
};

/// Opens <svg class="chart ..."> with a viewBox, draws grid lines, axes, tick labels and axis
/// titles; the svg stays open for the caller's data elements (close with m.close()).
void begin_plot(Markup& m, Plot& plot, std::string_view css_class, std::string_view label,
                std::vector<Attr> extra_attrs = {});

/// "M x,y L x,y ..." through the points (data units), skipping non-finite values.
std::string line_path(const std::vector<std::pair<double, double>>& points, const Scale& x,
                      const Scale& y);

/// Opens <svg class="chart ..."> of a fixed size without axes (diagrams, bar rows).
void begin_svg(Markup& m, double width, double height, std::string_view css_class,
               std::string_view label);

}  // namespace qb::report::html
