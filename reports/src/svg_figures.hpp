// Private figures of the HTML report, one function per picture of a scenario, each in its own
// file (tree_figure.cpp, bar_figure.cpp, throughput_figure.cpp, latency_figure.cpp,
// jain_figure.cpp; shared pieces in figure_parts.*). Each writes its SVG (and HTML
// legend/captions) into the Markup, with the data attributes of docs/report.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qb/reports/results.hpp"
#include "svg_builder.hpp"

namespace qb::report::html {

/// The scheduling tree as a left-to-right diagram, expected vs measured at every element.
void tree_figure(Markup& m, const ScenarioResult& s);

struct BarRow {
  std::string label;
  std::string sublabel;
  std::string colour;
  double expected_bps = 0.0;
  double measured_bps = 0.0;
  double error = 0.0;
  std::vector<Attr> attrs;  // class and data attributes of the row's <g>
};
/// Expected vs measured bars with a diverging error panel; `gate` draws ±threshold lines.
void bar_figure(Markup& m, std::string_view css_class, std::string_view label,
                const std::vector<BarRow>& rows, std::optional<double> gate);

/// Throughput over time per group (always) and, when `flows` is not empty, of those flows.
void throughput_figure(Markup& m, const ScenarioResult& s, const std::vector<size_t>& flows);

/// Latency percentile spectra, one panel per group, both bases, on a log 1/(1-p) axis.
void latency_figure(Markup& m, const ScenarioResult& s);

/// Switch egress queue depth per time bin, one series (mean and maximum) per queue; nothing
/// when the results have none.
void queue_figure(Markup& m, const ScenarioResult& s);

/// Normalised Jain index per time bin, with the min_jain gate when there is one.
void jain_figure(Markup& m, const ScenarioResult& s, std::optional<double> gate);

}  // namespace qb::report::html
