// An Ethernet port's QoS as the NIC has it: what `dcb` and `mlnx_qos` show, read through the
// kernel's DCB netlink interface (RTM_GETDCB, DCB_CMD_IEEE_GET: ETS, max rates, PFC and the APP
// table) and, where the kernel's DCB has no word for it, mlx5's sysfs (the OFED driver's
// qos/trust). The raw kernel structures are kept so that a state can be written back as read.
#pragma once

#include <linux/dcbnl.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qb/policies/port_qos.hpp"

namespace qb::nic {

struct EthQosState {
  std::string ifname;
  /// IEEE 802.1Qaz objects as the driver answered them; unset when the driver has no such op
  /// (the reply carries no attribute).
  std::optional<ieee_ets> ets;
  std::optional<ieee_maxrate> maxrate;  // kbit/s per TC, 0 = none
  std::optional<ieee_pfc> pfc;
  /// The APP table (every selector, in the kernel's order).
  std::vector<dcb_app> apps;
  /// mlx5's sysfs qos/trust when the driver has it (OFED); else empty and the trust follows
  /// the APP table (upstream mlx5 trusts DSCP exactly when it has DSCP APP entries).
  std::string sysfs_trust;

  policy::EthTrust trust() const noexcept;
  /// Where trust() comes from, for messages: "sysfs qos/trust" or "the DCB APP table (...)".
  std::string trust_source() const;
  /// The priority of `dscp` in the APP table (selector 5), if it has an entry.
  std::optional<uint8_t> dscp_priority(uint8_t dscp) const noexcept;
  /// Bit p set: PFC on for priority p (0 when the driver has no PFC).
  uint8_t pfc_enabled() const noexcept { return pfc ? pfc->pfc_en : 0; }
};

/// "strict", "ets", "vendor", "cbs" or the number.
std::string tsa_name(uint8_t tsa);

}  // namespace qb::nic
