// The permissions the NIC checks need, checked before anything is made so that a missing one is
// one clear error with its fix (as perftest and rdma-core tell), not a failure half way: DCB
// writes need CAP_NET_ADMIN; MADs need read and write access to the port's umad device.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "qb/common/result.hpp"

namespace qb::nic {

/// Whether the process has `cap` (linux/capability.h numbering) in its effective set.
bool has_effective_capability(int cap) noexcept;

/// Errc::unavailable at `where` when CAP_NET_ADMIN is missing: programming DCB on `ifname`
/// (RTM_SETDCB) needs it. The message gives the fixes. `has_cap` is the capability's state
/// (has_effective_capability(CAP_NET_ADMIN) in the driver; a test passes its own).
Status check_dcb_write_permission(bool has_cap, std::string_view ifname, std::string_view where);

/// The umad device of `device` port `port`: /sys/class/infiniband_mad/umadN whose ibdev and
/// port match, under `sysfs_root` ("/" on a host). Errc::unavailable when there is none (the
/// ib_umad module not loaded).
Result<std::string> umad_device_path(const std::string& sysfs_root, const std::string& device,
                                     uint8_t port);

/// Errc::unavailable at `where` when `umad_path` (under `dev_root`, "/" on a host) cannot be
/// opened for reading and writing: the message names the device, its mode and the fixes.
Status check_umad_permission(const std::string& dev_root, const std::string& umad_path,
                             std::string_view where);

}  // namespace qb::nic
