// The process-wide EAL owner and port lookup. rte_eal_init runs at most once per process (a
// second call fails, even after rte_eal_cleanup), so the first caller's arguments win and later
// callers must ask for the same ones. Cleanup runs at process exit.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::drv::dpdk {

/// The arguments rte_eal_init gets for `args` (without the program name): adds
/// --file-prefix=qosbench-<pid> unless one is given, and --no-telemetry unless --telemetry is.
std::vector<std::string> effective_eal_args(const std::vector<std::string>& args, int pid);

/// What to do about a failed rte_eal_init (`err` = rte_errno), for a process running as root or
/// not: " (...)", or empty when there is nothing useful to say. A root user is never told to
/// run as root: the hugepages are then missing, unmounted or refused by a container.
std::string eal_failure_hint(int err, bool root);

/// Why rte_eal_init failed, in words: rte_strerror(err), or, when DPDK set no rte_errno (a
/// second process on a --file-prefix another one holds: "Success" would be printed), what that
/// usually means and the fix. `effective_args` are the arguments it got.
std::string eal_failure_reason(int err, const std::vector<std::string>& effective_args);

/// Initialises the EAL with `args` on first use. Later calls: ok when `args` is empty or equal
/// to the first call's; Errc::runtime otherwise (one EAL per process). A failed init is
/// remembered: every later call returns the same error.
Status ensure_eal(const std::vector<std::string>& args);
/// Closes the ports and the EAL of this process and removes its runtime directory now rather
/// than at exit (DriverEntry::release_process); the EAL cannot be initialised again after.
void release_eal();

/// The EAL's runtime directory (/var/run/dpdk/<prefix>), empty before initialisation. When
/// qosbench chose the prefix, the directory is removed at process exit.
std::string eal_runtime_dir();

/// The ethdev port for `spec`: a port name ("net_ring0", "0000:03:00.0"), a port number
/// ("0"), a device string that is probed when no port has that name yet ("net_null1,size=64"),
/// or "ring_pair:NAME:0" / "ring_pair:NAME:1": two net_ring ports net_ring_NAME0 and net_ring_NAME1
/// on crossed rings (what one sends, the other receives), created on first use. Empty: the first
/// port. Errc::unavailable (listing the ports there are) when none matches.
Result<uint16_t> find_port(std::string_view spec);

/// Lcores the EAL has (after init), or will have with `args`: the CPUs named by -l/--lcores or
/// the bits of -c; all online CPUs when none is given.
uint32_t eal_lcore_count(const std::vector<std::string>& args);

/// Pins the calling thread to the `index`-th EAL lcore's CPUs and gives it an lcore id (so
/// mempool caches work) when it has none; undone when the thread exits. Worker 0 runs on the
/// main lcore and needs nothing.
void bind_worker_thread(uint32_t index) noexcept;

/// The main lcore's thread (worker 0) runs pinned to its CPU between pin_main_thread() (at
/// start) and unpin_main_thread() (at stop), which gives it back the CPUs it had before
/// rte_eal_init: what follows a run (judging, writing the results, also after a signal) is
/// not confined to one CPU that another process may be busy on. No-ops on other threads.
void pin_main_thread() noexcept;
void unpin_main_thread() noexcept;

/// "0 net_ring0, 1 net_null0" (or "none").
std::string describe_ports();

}  // namespace qb::drv::dpdk
