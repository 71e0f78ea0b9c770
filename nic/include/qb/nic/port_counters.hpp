// A port's hardware counters, read before and after each repetition: the RDMA port's
// hw_counters and counters (sysfs, names read from the directory: another firmware's names
// work as they are), ethtool statistics (ETHTOOL_GSTRINGS/GSTATS: per-priority bytes, packets,
// pause frames and durations), DPDK xstats. Counters that cannot be read (a VF, a container
// without sysfs) give a note, not an error.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace qb::nic {

/// One source's counters at one moment, in the device's order.
struct CounterSet {
  std::string source;  // "rdma" (hw_counters), "port" (counters), "ethtool", "dpdk"
  std::vector<std::pair<std::string, uint64_t>> values;
  /// Why nothing (or not everything) was read; empty when all was.
  std::string note;
};

/// <sysfs_root>/sys/class/infiniband/<device>/ports/<port>/hw_counters/* ("rdma"; `lifespan`,
/// a setting, left out) and .../counters/* ("port"). A missing directory or unreadable files
/// give a note naming the path and the reason.
CounterSet read_rdma_hw_counters(const std::string& sysfs_root, const std::string& device,
                                 uint8_t port);
CounterSet read_rdma_port_counters(const std::string& sysfs_root, const std::string& device,
                                   uint8_t port);

/// The ethtool statistics of a netdev. The real one asks the kernel (SIOCETHTOOL); tests give
/// `ethtool -S` output recorded from a port.
class EthtoolStats {
 public:
  virtual ~EthtoolStats() = default;
  virtual CounterSet read(const std::string& ifname) = 0;
};
std::unique_ptr<EthtoolStats> make_ethtool_ioctl_stats();

/// `ethtool -S IFNAME` output ("NIC statistics:" then "     name: value" lines) as counters.
CounterSet parse_ethtool_s(std::string_view text);

/// after - before per name present in both (names only in one: left out); a counter that went
/// down (reset, wrapped) is left out and named in `notes`.
std::vector<std::pair<std::string, double>> counter_deltas(const CounterSet& before,
                                                           const CounterSet& after,
                                                           std::vector<std::string>& notes);

/// Whether the reconciliation checks (counter_checks.hpp) read this counter, so that a zero
/// delta is kept in the results (a zero there says something; other zeros are left out).
bool counter_is_checked(std::string_view source, std::string_view name) noexcept;

}  // namespace qb::nic
