// Port arbitration between traffic classes: Ethernet ETS/DCB (priority -> TC, strict / ETS /
// vendor TCs) and InfiniBand SL2VL + VL arbitration (high and low VLArb tables weighted in
// 64-byte credits). Pure data plus the kernel's / OpenSM's validation.
// The runtime arbiter is port_arbiter.hpp; the expected shares are class_oracle.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "qb/common/result.hpp"
#include "qb/policies/opensm_conf.hpp"

namespace qb::policy {

/// Arbitration classes on a port: Ethernet TCs 0-7, or InfiniBand VLs 0-14.
inline constexpr uint32_t kMaxArbClasses = 16;
inline constexpr uint8_t kDropVl = 15;

enum class EthTrust : uint8_t { pcp, dscp };
enum class TcSelect : uint8_t { vendor, strict, ets };  // IEEE TSA per TC

struct EthPortQos {
  EthTrust trust = EthTrust::pcp;
  std::array<uint8_t, 64> dscp2prio{};  // model default: dscp >> 3 (see default_eth_port_qos)
  std::array<uint8_t, 8> prio_tc{};     // mlx5 default: prio 0 -> TC1, prio 1 -> TC0, rest identity
  std::array<TcSelect, 8> tsa{};        // default: all vendor
  std::array<uint8_t, 8> ets_percent{};
  /// Per-TC cap as the hardware applies it (0 = none): the kbit/s setting rounded down to
  /// 100 Mbit/s units below 26 Gbit/s, 1 Gbit/s units above (as the mlx5 driver stores it).
  std::array<double, 8> tc_max_rate_bps{};
  /// `pfc`: bit p set when the suite says priority p is lossless (PFC on). Only compared with
  /// the NIC (nic/eth_qos_check.hpp) when the suite gives it; the models do not read it.
  uint8_t pfc_enabled = 0;
  bool pfc_given = false;
};

/// The mlx5 driver defaults (all TCs vendor, prio_tc 1,0,2..7), with dscp2prio = dscp >> 3
/// (model choice: the default table is not fixed by the driver).
EthPortQos default_eth_port_qos() noexcept;

/// The kernel's checks (en_dcbnl.c): prio_tc entries < 8, ETS percentages summing to 100 when
/// any TC is ETS, percentages of non-ETS TCs 0, dscp2prio values < 8. Errors name the field
/// (e.g. "prio_tc[3]") in Error::where; the caller prefixes its key path and location.
Status validate_eth_port_qos(const EthPortQos& qos);

/// The hardware arbitration groups the mlx5 driver assigns: group number per TC (higher = higher
/// priority; vendor TCs 7, non-zero ETS one group, zero-percent ETS the lowest, strict TCs one
/// group each in ascending TC order above the ETS groups).
std::array<uint8_t, 8> ets_groups(const EthPortQos& qos) noexcept;

/// Rounds a per-TC max rate to what the hardware stores (see EthPortQos::tc_max_rate_bps).
double hw_tc_max_rate_bps(uint64_t rate_kbps) noexcept;

/// InfiniBand port: the tables OpenSM (or the suite) programs, and the port's operational VLs.
struct IbArbitration {
  IbPortQos tables;     // sl2vl (15 = drop), vlarb_high/low, high_limit
  uint8_t op_vls = 4;   // IBA encoding (4 = VL0-7)
};

/// What a port arbitrates by. `none`: one class, the NIC's scheduling tree alone.
struct PortQos {
  enum class Kind : uint8_t { none, ets, vlarb };
  Kind kind = Kind::none;
  EthPortQos eth;    // kind == ets
  IbArbitration ib;  // kind == vlarb
};

/// "TC3" / "VL1" / "port" - how results and explain name an arbitration class.
std::string arb_class_name(const PortQos& qos, uint32_t arb_class);

}  // namespace qb::policy
