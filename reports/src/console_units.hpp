// The console's rate columns in the unit `--units` picks: what each column holds, its header
// (with its basis: wire bytes, payload or packets) and its figures. Packets/s and goodput are
// derived from the counters the results already keep (no new results fields).
#pragma once

#include <string>
#include <vector>

#include "qb/reports/console_report.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

/// What a flow, group or class measured, in every basis.
struct MeasuredRates {
  double wire_bps = 0.0;
  double payload_bps = 0.0;
  double packets_per_s = 0.0;
  double wire_bytes_per_packet = 0.0;  // 0: no packet counted
};

MeasuredRates measured_rates(const FlowResult& flow);
/// The sum over `flows` (a group's or a class's members).
MeasuredRates sum_rates(const std::vector<const FlowResult*>& flows);

/// The five rate columns of a row: expected, measured, error (not here), then two more.
struct RateCells {
  std::string expected, measured, goodput, extra;
};

/// Header lines: the column name and, under it, its basis and unit.
struct RateHeader {
  std::string expected = "expected", measured = "measured", goodput = "goodput", extra;
  std::string expected_basis, measured_basis, goodput_basis, extra_basis;
};

RateHeader rate_header(RateUnit unit);
RateCells rate_cells(RateUnit unit, double expected_bps, const MeasuredRates& measured);
/// The unit's name as the console writes it ("Gbit/s", "GB/s", "Mpps").
std::string rate_unit_name(RateUnit unit);

}  // namespace qb::report
