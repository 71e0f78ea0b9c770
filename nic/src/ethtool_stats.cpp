// ethtool statistics through the SIOCETHTOOL ioctl (what `ethtool -S` does): the string set's
// size, its names (ETHTOOL_GSTRINGS), then the values (ETHTOOL_GSTATS). No privilege needed.
#include <fmt/format.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <vector>

#include "qb/nic/port_counters.hpp"

namespace qb::nic {
namespace {

class IoctlEthtoolStats final : public EthtoolStats {
 public:
  CounterSet read(const std::string& ifname) override {
    CounterSet set;
    set.source = "ethtool";
    const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return unavailable(set, ifname, "socket(AF_INET)");
    const auto closer = [fd] { ::close(fd); };
    // The number of statistics: ETHTOOL_GSSET_INFO for ETH_SS_STATS.
    std::vector<std::byte> info_buf(sizeof(ethtool_sset_info) + sizeof(uint32_t));
    auto* info = reinterpret_cast<ethtool_sset_info*>(info_buf.data());
    info->cmd = ETHTOOL_GSSET_INFO;
    info->sset_mask = 1ULL << ETH_SS_STATS;
    if (!call(fd, ifname, info)) {
      closer();
      return unavailable(set, ifname, "ETHTOOL_GSSET_INFO");
    }
    uint32_t count = 0;
    if (info->sset_mask & (1ULL << ETH_SS_STATS)) std::memcpy(&count, info->data, sizeof count);
    if (count == 0) {
      closer();
      set.note = fmt::format("{} has no ethtool statistics", ifname);
      return set;
    }
    std::vector<std::byte> strings_buf(sizeof(ethtool_gstrings) + size_t{count} * ETH_GSTRING_LEN);
    auto* strings = reinterpret_cast<ethtool_gstrings*>(strings_buf.data());
    strings->cmd = ETHTOOL_GSTRINGS;
    strings->string_set = ETH_SS_STATS;
    strings->len = count;
    std::vector<std::byte> stats_buf(sizeof(ethtool_stats) + size_t{count} * sizeof(uint64_t));
    auto* stats = reinterpret_cast<ethtool_stats*>(stats_buf.data());
    stats->cmd = ETHTOOL_GSTATS;
    stats->n_stats = count;
    if (!call(fd, ifname, strings) || !call(fd, ifname, stats)) {
      closer();
      return unavailable(set, ifname, "ETHTOOL_GSTRINGS/GSTATS");
    }
    closer();
    const uint32_t n = std::min(strings->len, stats->n_stats);
    for (uint32_t i = 0; i < n; ++i) {
      const char* name = reinterpret_cast<const char*>(strings->data) + size_t{i} * ETH_GSTRING_LEN;
      uint64_t value = 0;
      std::memcpy(&value,
                  reinterpret_cast<const std::byte*>(stats->data) + size_t{i} * sizeof value,
                  sizeof value);
      set.values.emplace_back(std::string(name, strnlen(name, ETH_GSTRING_LEN)), value);
    }
    return set;
  }

 private:
  static bool call(int fd, const std::string& ifname, void* data) {
    ifreq request{};
    std::strncpy(request.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    request.ifr_data = static_cast<char*>(data);
    return ::ioctl(fd, SIOCETHTOOL, &request) == 0;
  }
  static CounterSet& unavailable(CounterSet& set, const std::string& ifname, const char* call) {
    const int error = errno;
    set.note = fmt::format("ethtool statistics of {} not readable: {} failed: {} (errno {})",
                           ifname, call, std::strerror(error), error);
    return set;
  }
};

}  // namespace

std::unique_ptr<EthtoolStats> make_ethtool_ioctl_stats() {
  return std::make_unique<IoctlEthtoolStats>();
}

}  // namespace qb::nic
