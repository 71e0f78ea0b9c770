// The DCB netlink messages (rtnetlink RTM_GETDCB/RTM_SETDCB, struct dcbmsg, linux/dcbnl.h) as
// bytes: the request a reader sends, the kernel's reply parsed into an EthQosState, and the
// IEEE_SET/IEEE_DEL requests that program (and restore) a port. Pure functions: the bytes go
// through a DcbTransport (dcb_transport.hpp), so tests replay recorded replies.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/nic/eth_qos_state.hpp"

namespace qb::nic {

/// RTM_GETDCB, DCB_CMD_IEEE_GET for `ifname` (what `dcb ets show` sends).
std::vector<uint8_t> encode_ieee_get(std::string_view ifname, uint32_t seq);

/// The kernel's answer to encode_ieee_get: DCB_ATTR_IFNAME, then DCB_ATTR_IEEE nesting ETS,
/// MAXRATE, PFC and the APP table (dcbnl.c, dcbnl_ieee_fill). Errc::runtime for an NLMSG_ERROR
/// (EOPNOTSUPP: the netdev has no DCB ops) and Errc::io for bytes that are not such a message.
Result<EthQosState> decode_ieee_get_reply(std::span<const uint8_t> bytes, std::string_view ifname);

/// What an IEEE_SET (or, for apps, IEEE_DEL) carries: only the set members are sent.
struct DcbIeeeSet {
  std::optional<ieee_ets> ets;
  std::optional<ieee_maxrate> maxrate;
  std::optional<ieee_pfc> pfc;
  std::vector<dcb_app> apps;
  bool empty() const noexcept { return !ets && !maxrate && !pfc && apps.empty(); }
};

/// RTM_SETDCB with DCB_CMD_IEEE_SET (or DCB_CMD_IEEE_DEL when `del`: only the apps matter).
std::vector<uint8_t> encode_ieee_set(std::string_view ifname, uint32_t seq, const DcbIeeeSet& set,
                                     bool del = false);

/// The kernel's answer to a set: DCB_ATTR_IEEE as a u8 status (0 or a negative errno cut to 8
/// bits), or an NLMSG_ERROR (EPERM without CAP_NET_ADMIN). The error names `what`.
Status decode_ieee_set_reply(std::span<const uint8_t> bytes, std::string_view what);

}  // namespace qb::nic
