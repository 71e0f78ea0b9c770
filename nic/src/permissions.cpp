// CAP_NET_ADMIN for DCB writes, umad access for MADs: checked up front, with the fix.
#include "qb/nic/permissions.hpp"

#include <fmt/format.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace qb::nic {
namespace {

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

bool has_effective_capability(int cap) noexcept {
  __user_cap_header_struct header{};
  header.version = _LINUX_CAPABILITY_VERSION_3;
  header.pid = 0;
  __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  const auto word = static_cast<size_t>(cap / 32);
  return word < _LINUX_CAPABILITY_U32S_3 && ((data[word].effective >> (cap % 32)) & 1U) != 0;
}

Status check_dcb_write_permission(bool has_cap, std::string_view ifname, std::string_view where) {
  if (has_cap) return {};
  return make_error(
      Errc::unavailable,
      fmt::format("programming the QoS of {} through DCB netlink (RTM_SETDCB) needs CAP_NET_ADMIN, "
                  "which this process does not have. Fix: run qosbench as root (sudo), or give "
                  "the binary the capability once: `sudo setcap cap_net_admin+ep $(command -v "
                  "qosbench)`; in a container, start it with `--cap-add NET_ADMIN`. Or set the "
                  "port yourself (the `dcb` or `mlnx_qos` commands) and run without "
                  "nic_qos = \"apply\"",
                  ifname),
      std::string(where));
}

Result<std::string> umad_device_path(const std::string& sysfs_root, const std::string& device,
                                     uint8_t port) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(sysfs_root) / "sys/class/infiniband_mad";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("umad")) continue;
    if (read_line(entry.path() / "ibdev") != device) continue;
    if (read_line(entry.path() / "port") != std::to_string(port)) continue;
    return "/dev/infiniband/" + name;
  }
  return make_error(
      Errc::unavailable,
      fmt::format("no umad device for {} port {} under {} ({}): load the ib_umad "
                  "module (`modprobe ib_umad`), which the MAD reads of SL2VL and "
                  "VLArb need, as smpquery does",
                  device, port, dir.string(), ec ? ec.message() : std::string("none matches")));
}

Status check_umad_permission(const std::string& dev_root, const std::string& umad_path,
                             std::string_view where) {
  const std::string path = (std::filesystem::path(dev_root) / umad_path.substr(1)).string();
  if (::access(path.c_str(), R_OK | W_OK) == 0) return {};
  const int error = errno;
  struct stat st {};
  std::string mode = "its mode unknown";
  if (::stat(path.c_str(), &st) == 0) {
    mode = fmt::format("mode {:o}, owner uid {} gid {}", st.st_mode & 07777, st.st_uid, st.st_gid);
  }
  return make_error(
      Errc::unavailable,
      fmt::format("reading the port's SL2VL and VLArb tables takes MADs through {}, which this "
                  "process cannot open for reading and writing: {} (errno {}; {}). Fix: run "
                  "qosbench as root (sudo), or give your user access to the device (`sudo chmod "
                  "0666 {}` until the next reboot, or a udev rule such as `KERNEL==\"umad*\", "
                  "MODE=\"0666\"` in /etc/udev/rules.d/), as smpquery needs; or skip the check "
                  "with nic_qos = \"off\"",
                  umad_path, std::strerror(error), error, mode, umad_path),
      std::string(where));
}

}  // namespace qb::nic
