// A [topology] scenario's links and victims in the console and the HTML report (the figures:
// judge/src/fabric_results.hpp). Nothing for a scenario without a topology.
#pragma once

#include <ostream>

#include "qb/judge/results.hpp"
#include "svg_builder.hpp"

namespace qb::report {

/// "  fabric: ..." with the busiest links and every victim.
void print_fabric(const judge::ScenarioResult& s, std::ostream& out);

namespace html {
/// The fabric drawn (fabric_figure.cpp), the victims, the per-hop classes and the links table
/// (expected against measured, utilisation, pause time).
void fabric_section(Markup& m, const judge::ScenarioResult& s);
}  // namespace html

}  // namespace qb::report
