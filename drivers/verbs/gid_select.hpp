// Which GID the QPs use. Without driver.verbs.gid_index the driver picks one as perftest does
// (perftest_communication.c, get_best_gid_index): on Ethernet the port's RoCE v2 GIDs, an
// IPv4-mapped one first, then a global IPv6 one, then a link-local one, the lowest index among
// equals; on InfiniBand index 0, the port GID. gid_index stays the override. The choice comes
// with the sentence that says why, printed at open.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "qb/common/result.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

/// One entry of the port's GID table as ibv_query_gid_ex gives it.
struct GidEntry {
  uint32_t index = 0;
  ibv_gid gid{};
  ibv_gid_type type = IBV_GID_TYPE_ROCE_V2;
  uint32_t ndev_ifindex = 0;  // RoCE: the netdev the GID belongs to
};

struct GidChoice {
  uint32_t index = 0;
  ibv_gid gid{};
  ibv_gid_type type = IBV_GID_TYPE_IB;
  bool automatic = false;  // false: gid_index asked for it
  /// "GID index 3 (RoCE v2, ::ffff:192.168.1.10 on eth2): picked ..." — why this one.
  std::string note;
};

/// "::ffff:192.168.1.10", "fe80::ac0:ebff:fe3d:ca54" (inet_ntop of the 16 bytes).
std::string format_gid(const ibv_gid& gid);
bool gid_is_ipv4_mapped(const ibv_gid& gid) noexcept;
bool gid_is_link_local(const ibv_gid& gid) noexcept;
std::string_view gid_type_name(ibv_gid_type type) noexcept;

/// The best RoCE v2 entry of `table` (IPv4-mapped, then global, then link-local; the lowest
/// index among equals), or nullopt when it has none.
std::optional<GidEntry> best_roce_v2_gid(std::span<const GidEntry> table) noexcept;

/// Reads the port's GID table (ibv_query_gid_ex per index; ENODATA: an empty entry, skipped)
/// and chooses. `requested`: gid_index. Errc::unavailable at driver.verbs.gid_index for a
/// RoCE table with no RoCE v2 entry (the message says what to change), a requested entry that
/// is empty, beyond the table or not RoCE v2 (RoCE), and a query that fails otherwise.
Result<GidChoice> choose_gid(VerbsOps& ops, ibv_context* context, const std::string& device,
                             uint8_t port, int gid_table_len, bool infiniband,
                             std::optional<uint32_t> requested);

/// RoCE v2 to another host: the packets are IPv4 when the source GID is IPv4-mapped, else IPv6,
/// so both ends' GIDs must be of one family (perftest refuses a mix too). Errc::unavailable at
/// driver.verbs.gid_index naming both GIDs and what to set.
Status check_peer_gid_family(const ibv_gid& mine, const ibv_gid& theirs);

}  // namespace qb::drv::verbs
