// The port's own state around a run (issue 27 parts 2-4): before anything is programmed, its
// QoS read and compared with the suite ([eth] through DCB netlink, [ib] through MADs), the
// suite's [eth] programmed for the run with nic_qos = "apply" and the port's own put back at
// close; its counters (RDMA hw_counters and counters, ethtool statistics) read at start and
// stop, their deltas in the driver stats as "nic.<source>.<name>".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qb/drivers/backend.hpp"
#include "qb/nic/counter_checks.hpp"
#include "qb/nic/dcb_transport.hpp"
#include "qb/nic/eth_qos_session.hpp"
#include "qb/nic/ib_qos_state.hpp"
#include "qb/nic/port_counters.hpp"
#include "qb/policies/qos_plan.hpp"

namespace qb::drv::verbs {

/// Where the NIC's state is read from. Default: this machine (netlink, SIOCETHTOOL, libibmad,
/// sysfs under "/"); `root` (nic_root): a recorded machine (qb/nic/recorded.hpp); tests give
/// their own seams.
struct NicSeams {
  std::string root = "/";
  std::shared_ptr<nic::DcbTransport> dcb;
  std::shared_ptr<nic::EthtoolStats> ethtool;
  std::function<std::unique_ptr<nic::SmpSource>(const std::string& device, uint8_t port,
                                                std::string& why)>
      smp;
  std::optional<bool> net_admin;  // unset: the process's effective CAP_NET_ADMIN
};

/// The machine's seams, or a recording's under `root` when it is not "/".
NicSeams system_nic_seams(const std::string& root);

class NicState {
 public:
  NicState(nic::QosMode mode, bool counters, NicSeams seams)
      : mode_(mode), counters_(counters), seams_(std::move(seams)) {}

  /// At open: the port's netdev (RoCE), from sysfs gid_attrs/ndevs/<gid index> or
  /// device/net/. `notes` gets what cannot be read (never an error).
  void open(const std::string& device, uint8_t port, int gid_index, bool infiniband);

  /// At apply, before the tree and any QP: the QoS check (and program). `dscps`: the DSCPs of
  /// the flows this host sends or receives.
  Status check_qos(const policy::QosPlan& plan, const std::vector<uint8_t>& dscps,
                   const std::string& port_label);

  void counters_before();
  void counters_after();
  /// "nic.<source>.<name>" deltas (non-zero, or read by the checks), "nic.direction",
  /// "nic.counters_read".
  void add_stats(DriverStats& stats, nic::CounterDirection direction) const;

  /// Puts the port's QoS back (nic_qos = "apply"); Errc::runtime when it cannot.
  Status close();
  const std::string& netdev() const noexcept { return netdev_; }

 private:
  std::vector<nic::CounterSet> read_counters();
  nic::QosMode mode_;
  bool counters_;
  NicSeams seams_;
  std::string device_;
  uint8_t port_ = 1;
  bool infiniband_ = false;
  std::string netdev_;
  std::unique_ptr<nic::EthQosSession> session_;
  std::vector<nic::CounterSet> before_, after_;
};

}  // namespace qb::drv::verbs
