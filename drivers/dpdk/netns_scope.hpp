// A DPDK rank inside a network namespace (driver.dpdk.netns): the ports are made there — the
// sockets of net_af_packet/net_af_xdp belong to the namespace they were created in — while
// the process itself, and its MPI connections, stay where the launcher put them. (A rank
// started under `ip netns exec` cannot reach mpirun: PMIx's clients connect over the
// launcher's loopback TCP, which another namespace does not share.)
#pragma once

#include <string>

#include "qb/common/result.hpp"

namespace qb::drv::dpdk {

/// While it lives, the calling thread is in the namespace; it goes back when destroyed. An
/// empty name does nothing.
class NetnsScope {
 public:
  NetnsScope() = default;
  ~NetnsScope();
  NetnsScope(const NetnsScope&) = delete;
  NetnsScope& operator=(const NetnsScope&) = delete;

  /// `name`: a name `ip netns` made (/var/run/netns/<name>) or a path to a namespace file.
  /// Errc::invalid_config at driver.dpdk.netns when it does not exist or cannot be entered.
  Status enter(const std::string& name);

 private:
  int home_fd_ = -1;  // the namespace to go back to
};

}  // namespace qb::drv::dpdk
