// The HTML fairness report: one self-contained page (inline CSS, inline SVG, no scripts, no
// URLs) answering "did every flow get its share, and at what latency?". Every data element
// carries its figures in data attributes (docs/report.md lists the contract).
#pragma once

#include <cstddef>
#include <string>

#include "qb/reports/compare_report.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

struct HtmlOptions {
  /// Flows drawn as bars (and as throughput series) per scenario, the largest |error| first;
  /// scenarios with more flows say "top N of M flows by error". 0: every flow.
  size_t top_flows = 20;
};

/// One self-contained HTML page (inline CSS + inline SVG; no scripts needed to read it).
/// With a comparison, the page also shows the baseline comparison and its verdict counts; with
/// the `baseline` results, their series and errors are overlaid on the throughput and error
/// charts of the scenarios of the same name.
std::string render_html_report(const Results& results, const Comparison* comparison = nullptr,
                               const HtmlOptions& options = {}, const Results* baseline = nullptr);

}  // namespace qb::report
