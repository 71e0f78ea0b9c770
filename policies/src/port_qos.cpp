// Port QoS data: the mlx5 driver defaults, the kernel's ETS checks (en_dcbnl.c) and the
// hardware group assignment (vendor TCs group 7, non-zero ETS TCs one group, zero-percent ETS
// TCs the lowest, each strict TC a group of its own above the ETS groups; higher group wins).
#include "qb/policies/port_qos.hpp"

#include <cmath>

namespace qb::policy {
namespace {

constexpr uint8_t kLowestGroup = 0;
constexpr uint8_t kVendorGroup = 7;
// The hardware stores a TC cap as an 8-bit count of 100 Mbit/s or 1 Gbit/s units.
constexpr uint64_t k100MbitInKbps = 100'000;
constexpr uint64_t k1GbitInKbps = 1'000'000;
constexpr uint64_t kMaxUnits = 255;

std::string indexed(const char* field, size_t index) {
  return std::string(field) + "[" + std::to_string(index) + "]";
}

}  // namespace

EthPortQos default_eth_port_qos() noexcept {
  EthPortQos qos;
  qos.trust = EthTrust::pcp;
  for (size_t d = 0; d < qos.dscp2prio.size(); ++d) qos.dscp2prio[d] = static_cast<uint8_t>(d >> 3);
  for (size_t p = 0; p < qos.prio_tc.size(); ++p) qos.prio_tc[p] = static_cast<uint8_t>(p);
  qos.prio_tc[0] = 1;
  qos.prio_tc[1] = 0;
  qos.tsa.fill(TcSelect::vendor);
  qos.ets_percent.fill(0);
  qos.tc_max_rate_bps.fill(0.0);
  return qos;
}

Status validate_eth_port_qos(const EthPortQos& qos) {
  for (size_t p = 0; p < qos.prio_tc.size(); ++p) {
    if (qos.prio_tc[p] >= 8) {
      return make_error(Errc::invalid_config,
                        "TC " + std::to_string(qos.prio_tc[p]) + " is out of range (0-7)",
                        indexed("prio_tc", p));
    }
  }
  for (size_t d = 0; d < qos.dscp2prio.size(); ++d) {
    if (qos.dscp2prio[d] >= 8) {
      return make_error(Errc::invalid_config,
                        "priority " + std::to_string(qos.dscp2prio[d]) + " is out of range (0-7)",
                        indexed("dscp2prio", d));
    }
  }
  bool any_ets = false;
  uint32_t percent_sum = 0;
  for (size_t tc = 0; tc < qos.tsa.size(); ++tc) {
    if (qos.tsa[tc] == TcSelect::ets) {
      any_ets = true;
      percent_sum += qos.ets_percent[tc];
    } else if (qos.ets_percent[tc] != 0) {
      // en_dcbnl.c: "BW 0 is mandatory for a none ETS TC".
      return make_error(Errc::invalid_config,
                        "TC " + std::to_string(tc) +
                            " is not ETS, so its bandwidth must be 0 (is " +
                            std::to_string(qos.ets_percent[tc]) + "%)",
                        indexed("ets_percent", tc));
    }
  }
  if (any_ets && percent_sum != 100) {
    return make_error(
        Errc::invalid_config,
        "the ETS percentages sum to " + std::to_string(percent_sum) + "%, they must sum to 100%",
        "ets_percent");
  }
  for (size_t tc = 0; tc < qos.tc_max_rate_bps.size(); ++tc) {
    const double rate = qos.tc_max_rate_bps[tc];
    if (!std::isfinite(rate) || rate < 0.0 || rate > static_cast<double>(kMaxUnits) * 1e9) {
      return make_error(Errc::invalid_config,
                        "the max rate must be between 0 (none) and 255 Gbit/s",
                        indexed("tc_max_rate", tc));
    }
  }
  return {};
}

std::array<uint8_t, 8> ets_groups(const EthPortQos& qos) noexcept {
  // mlx5e_build_tc_group(): zero-percent ETS TCs take the lowest group and push the non-zero
  // ETS group one up; strict TCs stack above, one group each in ascending TC order.
  bool any_ets = false;
  bool ets_zero = false;
  for (size_t tc = 0; tc < qos.tsa.size(); ++tc) {
    if (qos.tsa[tc] != TcSelect::ets) continue;
    any_ets = true;
    if (qos.ets_percent[tc] == 0) ets_zero = true;
  }
  uint8_t strict_group = kLowestGroup;
  if (any_ets) ++strict_group;
  if (ets_zero) ++strict_group;
  std::array<uint8_t, 8> groups{};
  for (size_t tc = 0; tc < qos.tsa.size(); ++tc) {
    switch (qos.tsa[tc]) {
      case TcSelect::vendor:
        groups[tc] = kVendorGroup;
        break;
      case TcSelect::strict:
        groups[tc] = strict_group++;
        break;
      case TcSelect::ets:
        groups[tc] = (qos.ets_percent[tc] != 0 && ets_zero) ? kLowestGroup + 1 : kLowestGroup;
        break;
    }
  }
  return groups;
}

double hw_tc_max_rate_bps(uint64_t rate_kbps) noexcept {
  // mlx5e_dcbnl_ieee_setmaxrate(): up to 255 x 100 Mbit/s in 100 Mbit/s units (at least one),
  // above in whole Gbit/s; both rounded down.
  if (rate_kbps == 0) return 0.0;
  if (rate_kbps <= kMaxUnits * k100MbitInKbps) {
    uint64_t units = rate_kbps / k100MbitInKbps;
    if (units == 0) units = 1;
    return static_cast<double>(units) * 100e6;
  }
  return static_cast<double>(rate_kbps / k1GbitInKbps) * 1e9;
}

std::string arb_class_name(const PortQos& qos, uint32_t arb_class) {
  switch (qos.kind) {
    case PortQos::Kind::ets:
      return "TC" + std::to_string(arb_class);
    case PortQos::Kind::vlarb:
      return "VL" + std::to_string(arb_class);
    case PortQos::Kind::none:
      break;
  }
  return "port";
}

}  // namespace qb::policy
