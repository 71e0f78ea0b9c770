// Pieces the HTML report's figures share: group colours, label shortening, rate and time axes,
// series points and legend items.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "qb/reports/results.hpp"
#include "svg_builder.hpp"
#include "svg_charts.hpp"

namespace qb::report::html {

/// Colour-blind-safe (Okabe–Ito) line colours; groups keep their colour on every figure.
const std::string& group_colour(size_t group_index);
/// Past the palette, lines repeat its colours dashed.
bool group_dashed(size_t group_index);
/// Index of a scenario's group by name (groups.size() when unknown).
size_t group_index(const ScenarioResult& s, const std::string& name);

/// Cuts a label to `max_chars` bytes (never inside a UTF-8 sequence), with an ellipsis.
std::string shorten(const std::string& text, size_t max_chars);
/// "95.9 of 96 Gbit/s": measured of expected, in one unit.
std::string rate_pair(double measured_bps, double expected_bps);
double finite_or(double value, double fallback);

/// A rate axis from 0 to a nice top above `max_bps`.
Axis rate_axis(double max_bps, std::string_view what);
/// Time axis over `bins` bins of `bin_ns`, in ms.
Axis time_axis(size_t bins, int64_t bin_ns);
/// (time in ms at the bin centre, value) per bin.
std::vector<std::pair<double, double>> series_points(const std::vector<double>& values,
                                                     int64_t bin_ns);

void legend_item(Markup& m, const std::string& colour, bool dashed, const std::string& label);

/// The class result named `name` ("TC5", "VL1"), or null.
const ClassResult* find_class(const ScenarioResult& s, const std::string& name);

/// One class's row of the arbitration figures: measured share of the port as a bar, the
/// expected share as a black tick, a cap as a vermillion tick, and "measured of expected ·
/// error" right of it. Shares are of `capacity_bps`.
void class_share_bar(Markup& m, double x, double y, double width, const ClassResult& c,
                     double capacity_bps, std::optional<double> cap_bps);

}  // namespace qb::report::html
