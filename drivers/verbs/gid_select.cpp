#include "gid_select.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace qb::drv::verbs {
namespace {

constexpr const char* kKey = "driver.verbs.gid_index";

bool gid_is_zero(const ibv_gid& gid) noexcept {
  for (const uint8_t byte : gid.raw) {
    if (byte != 0) return false;
  }
  return true;
}

// Better first: an IPv4 address (what `show_gids` lists with an IPv4 column, what a RoCE
// fabric routes), then a global IPv6 one, then link-local (one L2 segment only).
int preference(const ibv_gid& gid) noexcept {
  if (gid_is_ipv4_mapped(gid)) return 2;
  return gid_is_link_local(gid) ? 0 : 1;
}

// "RoCE v2, ::ffff:192.168.1.10 on eth2"
std::string describe_entry(const GidEntry& entry) {
  std::string text = fmt::format("{}, {}", gid_type_name(entry.type), format_gid(entry.gid));
  char name[IF_NAMESIZE] = {};
  if (entry.ndev_ifindex != 0 && if_indextoname(entry.ndev_ifindex, name) != nullptr) {
    text += fmt::format(" on {}", name);
  }
  return text;
}

Error gid_error(std::string message) {
  return make_error(Errc::unavailable, "verbs: " + std::move(message), kKey);
}

// One entry; nullopt for an empty one (ENODATA, or all zero).
Result<std::optional<GidEntry>> read_entry(VerbsOps& ops, ibv_context* context,
                                           const std::string& device, uint8_t port,
                                           uint32_t index) {
  ibv_gid_entry raw{};
  const int rc = ops.query_gid_ex(context, port, index, &raw);
  if (rc == ENODATA) return std::optional<GidEntry>{};
  if (rc != 0) {
    return gid_error(
        fmt::format("{} port {}: ibv_query_gid_ex for GID index {} failed: {} (errno "
                    "{})",
                    device, port, index, std::strerror(rc), rc));
  }
  if (gid_is_zero(raw.gid)) return std::optional<GidEntry>{};
  return std::optional<GidEntry>{
      GidEntry{index, raw.gid, static_cast<ibv_gid_type>(raw.gid_type), raw.ndev_ifindex}};
}

// Only the one gid_index names.
Result<GidChoice> requested_gid(VerbsOps& ops, ibv_context* context, const std::string& device,
                                uint8_t port, int gid_table_len, bool infiniband, uint32_t index) {
  const char* hint = infiniband ? "`ibv_devinfo -v` lists the port's GIDs"
                                : "`show_gids` lists the RoCE v2 ones; or leave gid_index out and "
                                  "the driver picks one";
  if (index >= static_cast<uint32_t>(std::max(gid_table_len, 0))) {
    return gid_error(fmt::format("{} port {} has no GID at index {} (its table has {} entries): {}",
                                 device, port, index, gid_table_len, hint));
  }
  auto entry = read_entry(ops, context, device, port, index);
  if (!entry) return std::move(entry).error();
  if (!entry->has_value()) {
    return gid_error(fmt::format("{} port {} has no GID at index {} (the entry is empty): {}",
                                 device, port, index, hint));
  }
  const GidEntry& e = **entry;
  if (!infiniband && e.type != IBV_GID_TYPE_ROCE_V2) {
    return gid_error(fmt::format(
        "{} port {} GID index {} is {}, not RoCE v2 (the driver's traffic is RoCE v2: UDP/IP, "
        "DSCP in the traffic class): {}",
        device, port, index, gid_type_name(e.type), hint));
  }
  return GidChoice{index, e.gid, e.type, false,
                   fmt::format("{} port {}: GID index {} ({}): from gid_index", device, port, index,
                               describe_entry(e))};
}

}  // namespace

std::string format_gid(const ibv_gid& gid) {
  char text[INET6_ADDRSTRLEN] = {};
  if (inet_ntop(AF_INET6, gid.raw, text, sizeof(text)) == nullptr) return "?";
  return text;
}

bool gid_is_ipv4_mapped(const ibv_gid& gid) noexcept {
  // ::ffff:a.b.c.d — how the kernel's GID cache stores an IPv4 address of the netdev.
  for (int i = 0; i < 10; ++i) {
    if (gid.raw[i] != 0) return false;
  }
  return gid.raw[10] == 0xff && gid.raw[11] == 0xff;
}

bool gid_is_link_local(const ibv_gid& gid) noexcept {
  return gid.raw[0] == 0xfe && (gid.raw[1] & 0xc0) == 0x80;  // fe80::/10
}

std::string_view gid_type_name(ibv_gid_type type) noexcept {
  switch (type) {
    case IBV_GID_TYPE_IB:
      return "IB";
    case IBV_GID_TYPE_ROCE_V1:
      return "RoCE v1";
    case IBV_GID_TYPE_ROCE_V2:
      return "RoCE v2";
  }
  return "unknown type";
}

std::optional<GidEntry> best_roce_v2_gid(std::span<const GidEntry> table) noexcept {
  std::optional<GidEntry> best;
  for (const GidEntry& entry : table) {
    if (entry.type != IBV_GID_TYPE_ROCE_V2 || gid_is_zero(entry.gid)) continue;
    // Strictly better only: among equals the lowest index stays.
    if (!best || preference(entry.gid) > preference(best->gid)) best = entry;
  }
  return best;
}

Result<GidChoice> choose_gid(VerbsOps& ops, ibv_context* context, const std::string& device,
                             uint8_t port, int gid_table_len, bool infiniband,
                             std::optional<uint32_t> requested) {
  if (requested) {
    return requested_gid(ops, context, device, port, gid_table_len, infiniband, *requested);
  }
  if (infiniband) {
    // The port GID (subnet prefix and port GUID), as perftest and ib_write_bw use by default.
    auto choice = requested_gid(ops, context, device, port, gid_table_len, true, 0);
    if (!choice) return choice;
    choice->automatic = true;
    choice->note = fmt::format(
        "{} port {}: InfiniBand, GID index 0 ({}): the port GID, used only with a GRH "
        "(port.grh)",
        device, port, format_gid(choice->gid));
    return choice;
  }
  std::vector<GidEntry> table;
  for (uint32_t index = 0; index < static_cast<uint32_t>(std::max(gid_table_len, 0)); ++index) {
    auto entry = read_entry(ops, context, device, port, index);
    if (!entry) return std::move(entry).error();
    if (entry->has_value()) table.push_back(**entry);
  }
  const std::optional<GidEntry> best = best_roce_v2_gid(table);
  if (!best) {
    if (table.empty()) {
      return gid_error(fmt::format(
          "{} port {} has no GID (its table of {} entries is empty): give the port's netdev an "
          "IP address and bring it up (`ip addr add ... dev <netdev>`, `rdma link` names the "
          "netdev), then check `show_gids`",
          device, port, gid_table_len));
    }
    std::string listed;
    for (size_t i = 0; i < table.size() && i < 8; ++i) {
      listed +=
          fmt::format("{}{} {}", i == 0 ? "" : ", ", table[i].index, describe_entry(table[i]));
    }
    if (table.size() > 8) listed += fmt::format(", and {} more", table.size() - 8);
    return gid_error(fmt::format(
        "{} port {} has no RoCE v2 GID (its GIDs: {}); the driver sends RoCE v2 (UDP/IP, DSCP in "
        "the traffic class). mlx5 makes a RoCE v1 and a RoCE v2 GID for each address of the "
        "netdev: enable RoCE v2 where the device or its firmware has it off, check the VER "
        "column of `show_gids`, or use a port that has a v2 GID",
        device, port, listed));
  }
  uint32_t others = 0;
  for (const GidEntry& entry : table) {
    if (entry.type == IBV_GID_TYPE_ROCE_V2 && entry.index != best->index) ++others;
  }
  const char* why = gid_is_ipv4_mapped(best->gid)
                        ? "the port's RoCE v2 GID with an IPv4 address, as perftest picks it"
                    : gid_is_link_local(best->gid)
                        ? "the port has no RoCE v2 GID with an IPv4 or a global IPv6 address; a "
                          "link-local GID reaches peers on the same L2 segment only"
                        : "the port has no RoCE v2 GID with an IPv4 address; this one is a global "
                          "IPv6 address";
  GidChoice choice{best->index, best->gid, best->type, true,
                   fmt::format("{} port {}: GID index {} ({}): picked automatically: {} ({} other "
                               "RoCE v2 GID{}; set gid_index to use another)",
                               device, port, best->index, describe_entry(*best), why, others,
                               others == 1 ? "" : "s")};
  return choice;
}

Status check_peer_gid_family(const ibv_gid& mine, const ibv_gid& theirs) {
  if (gid_is_ipv4_mapped(mine) == gid_is_ipv4_mapped(theirs)) return {};
  const auto family = [](const ibv_gid& gid) { return gid_is_ipv4_mapped(gid) ? "IPv4" : "IPv6"; };
  return gid_error(fmt::format(
      "this host's GID {} is {} and the peer's {} is {}: RoCE v2 packets of one family do not "
      "reach the other. Set gid_index on one host to a RoCE v2 GID of the other's family "
      "(`show_gids`; an IPv4 address on both ports is the usual fix)",
      format_gid(mine), family(mine), format_gid(theirs), family(theirs)));
}

}  // namespace qb::drv::verbs
