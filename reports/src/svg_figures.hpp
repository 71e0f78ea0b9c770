// Private figures of the HTML report, one function per picture of a scenario, each in its own
// file (tree_figure.cpp, ets_figure.cpp, vlarb_figure.cpp, bar_figure.cpp,
// throughput_figure.cpp, latency_figure.cpp, jain_figure.cpp, fabric_figure.cpp; shared pieces in figure_parts.*).
// Each writes its SVG (and HTML legend/captions) into the Markup, with the data attributes of
// docs/report.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qb/reports/results.hpp"
#include "svg_builder.hpp"

namespace qb::report::html {

/// A scheduling tree as a left-to-right diagram, expected vs measured at every element. `host`:
/// the tree of that host's NIC (its flows only); empty: the scenario's tree over every flow.
void tree_figure(Markup& m, const ScenarioResult& s, const std::vector<ElementResult>& tree,
                 std::optional<uint32_t> host);
/// The key to the tree figures' bars, ticks and badges (once under one or more trees).
void tree_note(Markup& m);

/// An Ethernet port's ETS: priority -> TC, each TC's TSA, ETS share and cap, and, at the port
/// that decides the shares, expected vs measured per TC.
void ets_figure(Markup& m, const ScenarioResult& s, const PortArbitrationResult& port);

/// An InfiniBand port's SL -> VL table, its VLArb high and low tables with high_limit, and, at
/// the port that decides the shares, expected vs measured per VL.
void vlarb_figure(Markup& m, const ScenarioResult& s, const PortArbitrationResult& port);

struct BarRow {
  std::string label;
  std::string sublabel;
  std::string colour;
  double expected_bps = 0.0;
  double measured_bps = 0.0;
  double error = 0.0;
  std::optional<double> baseline_error;  // the same row's error in the baseline, when given
  std::vector<Attr> attrs;               // class and data attributes of the row's <g>
};
/// Expected vs measured bars with a diverging error panel; `gate` draws ±threshold lines.
void bar_figure(Markup& m, std::string_view css_class, std::string_view label,
                const std::vector<BarRow>& rows, std::optional<double> gate);

/// Throughput over time per group (always) and, when `flows` is not empty, of those flows;
/// with a `baseline` scenario, its series of the same groups and flows drawn faintly behind.
void throughput_figure(Markup& m, const ScenarioResult& s, const std::vector<size_t>& flows,
                       const ScenarioResult* baseline);

/// Latency percentile spectra, one panel per group, both bases, on a log 1/(1-p) axis.
void latency_figure(Markup& m, const ScenarioResult& s);

/// Switch egress queue depth per time bin, one series (mean and maximum) per queue; nothing
/// when the results have none.
void queue_figure(Markup& m, const ScenarioResult& s);

/// A [topology]'s fabric: nodes in tiers, links coloured by each channel's load, victims
/// marked (fabric_figure.cpp); nothing without a topology in the results.
void fabric_figure(Markup& m, const ScenarioResult& s);
/// Per flow its SL (IB) or priority (Ethernet) and its class at every hop; nothing on an
/// Ethernet fabric without classes.
void hop_classes_table(Markup& m, const ScenarioResult& s);

/// Normalised Jain index per time bin, with the min_jain gate when there is one.
void jain_figure(Markup& m, const ScenarioResult& s, std::optional<double> gate);

}  // namespace qb::report::html
