// A real driver's port around a run (issue 27 parts 2-4), the same for verbs and DPDK: before
// anything is programmed, its QoS read and compared with the suite ([eth] through DCB netlink,
// [ib] through MADs), the suite's [eth] programmed for the run with nic_qos = "apply" and the
// port's own put back at close; its counters (RDMA hw_counters and counters, ethtool
// statistics) read at start and stop, their deltas as "nic.<source>.<name>".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qb/nic/counter_checks.hpp"
#include "qb/nic/dcb_transport.hpp"
#include "qb/nic/eth_qos_session.hpp"
#include "qb/nic/ib_qos_state.hpp"
#include "qb/nic/port_counters.hpp"
#include "qb/policies/qos_plan.hpp"

namespace qb::nic {

/// Where the NIC's state is read from. Default: this machine (netlink, SIOCETHTOOL, libibmad,
/// sysfs under "/"); `root` (nic_root): a recorded machine (qb/nic/recorded.hpp); tests give
/// their own seams.
struct NicSeams {
  std::string root = "/";
  std::shared_ptr<DcbTransport> dcb;
  std::shared_ptr<EthtoolStats> ethtool;
  std::function<std::unique_ptr<SmpSource>(const std::string& device, uint8_t port,
                                           std::string& why)>
      smp;
  std::optional<bool> net_admin;  // unset: the process's effective CAP_NET_ADMIN
  std::string state_dir;          // restore journals; empty: default_nic_state_dir()
};

/// The machine's seams, or a recording's under `root` when it is not "/".
NicSeams system_nic_seams(const std::string& root);

/// The netdev of an RDMA port's GID (sysfs gid_attrs/ndevs/<gid index>), else the device's
/// first (device/net/); empty when none.
std::string netdev_of_rdma_port(const std::string& root, const std::string& device, uint8_t port,
                                int gid_index);
/// The RDMA device of a netdev (sysfs /sys/class/net/<netdev>/device/infiniband/); empty when
/// none (not an RDMA-capable port).
std::string rdma_device_of_netdev(const std::string& root, const std::string& netdev);

/// One line for stderr, printed once per process per text (every repetition opens the port).
using NoteSink = std::function<void(const std::string&)>;

class PortState {
 public:
  /// `option_key`: the driver's option, "driver.verbs.nic_qos", named in errors and fixes.
  PortState(QosMode mode, bool counters, NicSeams seams, std::string option_key, NoteSink notes)
      : mode_(mode),
        counters_(counters),
        seams_(std::move(seams)),
        option_key_(std::move(option_key)),
        notes_(std::move(notes)) {}

  /// At open: the RDMA device and port (empty device: none, no RDMA counters) and the netdev
  /// (empty on InfiniBand). Nothing is read yet.
  void open(std::string rdma_device, uint8_t port, std::string netdev, bool infiniband);

  /// At apply, before the tree and any QP: the QoS check (and program). `dscps`: the DSCPs of
  /// the flows this host sends or receives.
  Status check_qos(const policy::QosPlan& plan, const std::vector<uint8_t>& dscps,
                   const std::string& port_label);

  /// Counters the driver reads itself (the DPDK PMD's xstats, source "dpdk"), read with the
  /// others at counters_before() and counters_after().
  void add_counter_source(std::function<CounterSet()> read) {
    extra_sources_.push_back(std::move(read));
  }

  void counters_before();
  void counters_after();
  /// "nic.<source>.<name>" deltas (non-zero, or read by the checks), "nic.direction",
  /// "nic.counters_read".
  void add_stats(std::vector<std::pair<std::string, double>>& stats,
                 CounterDirection direction) const;

  /// Puts the port's QoS back (nic_qos = "apply"); Errc::runtime when it cannot.
  Status close();
  const std::string& netdev() const noexcept { return netdev_; }

 private:
  std::vector<CounterSet> read_counters();
  QosMode mode_;
  bool counters_;
  NicSeams seams_;
  std::string option_key_;
  NoteSink notes_;
  std::string device_;
  uint8_t port_ = 1;
  bool infiniband_ = false;
  std::string netdev_;
  std::unique_ptr<EthQosSession> session_;
  std::vector<std::function<CounterSet()>> extra_sources_;
  std::vector<CounterSet> before_, after_;
};

}  // namespace qb::nic
