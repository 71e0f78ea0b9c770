// Reads the congestion keys of a suite: `[fabric.ecn]` and `cnp_interval` inside [fabric], and
// `[dpa]` with its program parameters (docs/suite-format.md, docs/dpa.md). Parameters are
// checked against the program's own specs (dpa/include/qb_dpa/programs.h) where they are
// written, and converted to the units the program reads.
#pragma once

#include "qb/suite/suite.hpp"
#include "toml_reader.hpp"

namespace qb::suite::detail {

/// The congestion keys of a [fabric] table being read (`ecn`, `cnp_interval`).
void read_fabric_congestion(const TableReader& fabric_reader, FabricSpec& fabric,
                            bool has_topology);
DpaSpec read_dpa(const Located* section);
/// Rules across sections: ECN marking needs a switch, its classes must exist.
void check_scenario_congestion(const Scenario& scenario);

}  // namespace qb::suite::detail
