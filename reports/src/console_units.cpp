#include "console_units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace qb::report {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string bits(RateUnit unit, double bps) {
  if (unit == RateUnit::gbyte_per_s) return fmt::format("{:.4f}", bps / 8e9);
  return fmt::format("{:.3f}", bps / 1e9);
}

std::string mpps(double packets_per_s) {
  return fmt::format("{:.4f}", packets_per_s / 1e6);
}

}  // namespace

std::optional<RateUnit> parse_rate_unit(std::string_view text) {
  const std::string key = lower(text);
  if (key == "gbit" || key == "gbit/s" || key == "gbps") return RateUnit::gbit_per_s;
  if (key == "gbyte" || key == "gb/s" || key == "gbytes") return RateUnit::gbyte_per_s;
  if (key == "mpps") return RateUnit::mpps;
  return std::nullopt;
}

std::string rate_unit_name(RateUnit unit) {
  switch (unit) {
    case RateUnit::gbyte_per_s:
      return "GB/s";
    case RateUnit::mpps:
      return "Mpps";
    case RateUnit::gbit_per_s:
      break;
  }
  return "Gbit/s";
}

MeasuredRates measured_rates(const FlowResult& flow) {
  MeasuredRates r;
  r.wire_bps = flow.measured_bps;
  r.payload_bps = flow.measured_payload_bps;
  // The counters are totals and measured_bps a mean over repetitions: their ratio, the mean
  // wire size of a packet, turns the mean bit rate into the mean packet rate.
  if (flow.counts.packets > 0 && flow.counts.wire_bytes > 0) {
    r.wire_bytes_per_packet =
        static_cast<double>(flow.counts.wire_bytes) / static_cast<double>(flow.counts.packets);
    r.packets_per_s = flow.measured_bps / 8.0 / r.wire_bytes_per_packet;
  }
  return r;
}

MeasuredRates sum_rates(const std::vector<const FlowResult*>& flows) {
  MeasuredRates sum;
  for (const FlowResult* flow : flows) {
    const MeasuredRates r = measured_rates(*flow);
    sum.wire_bps += r.wire_bps;
    sum.payload_bps += r.payload_bps;
    sum.packets_per_s += r.packets_per_s;
  }
  if (sum.packets_per_s > 0.0) sum.wire_bytes_per_packet = sum.wire_bps / 8.0 / sum.packets_per_s;
  return sum;
}

RateHeader rate_header(RateUnit unit) {
  RateHeader h;
  const std::string name = rate_unit_name(unit);
  if (unit == RateUnit::mpps) {
    h.expected_basis = h.measured_basis = "Mpps";
    h.goodput_basis = "payload Gbit/s";
    h.extra = "measured";
    h.extra_basis = "wire Gbit/s";
    return h;
  }
  h.expected_basis = h.measured_basis = "wire " + name;
  h.goodput_basis = "payload " + name;
  h.extra = "packets";
  h.extra_basis = "Mpps";
  return h;
}

RateCells rate_cells(RateUnit unit, double expected_bps, const MeasuredRates& measured) {
  RateCells c;
  if (unit == RateUnit::mpps) {
    // The expected packet rate at the mean packet size measured (none measured: unknown).
    c.expected = measured.wire_bytes_per_packet > 0.0
                     ? mpps(expected_bps / 8.0 / measured.wire_bytes_per_packet)
                     : std::string("-");
    c.measured = mpps(measured.packets_per_s);
    c.goodput = bits(RateUnit::gbit_per_s, measured.payload_bps);
    c.extra = bits(RateUnit::gbit_per_s, measured.wire_bps);
    return c;
  }
  c.expected = bits(unit, expected_bps);
  c.measured = bits(unit, measured.wire_bps);
  c.goodput = bits(unit, measured.payload_bps);
  c.extra = mpps(measured.packets_per_s);
  return c;
}

}  // namespace qb::report
