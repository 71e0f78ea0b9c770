// A DPDK rank inside a network namespace (driver.dpdk.netns): the thread that drives the ports
// (the main thread: EAL, port control, worker 0) moves into the namespace before the EAL makes
// the ports and stays there, as the EAL stays for the process — the PMDs' sockets and their
// ioctls by interface name (net_af_packet's start, promiscuous mode) belong to the namespace
// of the thread that makes them. The job's connections stay where the launcher made them: MPI
// was joined before, its progress thread keeps its namespace, and the ranks on one machine
// talk through shared memory. (A rank started under `ip netns exec` cannot reach mpirun at
// all: PMIx's clients connect over the launcher's loopback TCP, which another namespace does
// not share.)
#pragma once

#include <string>

#include "qb/common/result.hpp"

namespace qb::drv::dpdk {

/// Moves the calling thread into `name` (a name `ip netns` made: /var/run/netns/<name>, or a
/// path to a namespace file), once per process; again with the same name is a no-op, with
/// another an error (the EAL's ports are in the first). Empty: nothing. Errc::invalid_config
/// at driver.dpdk.netns when it does not exist or cannot be entered.
Status enter_netns(const std::string& name);

}  // namespace qb::drv::dpdk
