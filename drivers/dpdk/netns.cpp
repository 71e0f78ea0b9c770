#include "netns.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

namespace qb::drv::dpdk {
namespace {

std::mutex g_mutex;
std::string g_entered;  // the namespace this process's port thread is in ("": its own)

}  // namespace

Status enter_netns(const std::string& name) {
  std::lock_guard lock(g_mutex);
  if (name == g_entered) return {};
  if (!g_entered.empty() || name.empty()) {
    return make_error(Errc::invalid_config,
                      fmt::format("dpdk: the ports of this process are in network namespace "
                                  "'{}' already (the EAL is the process's); '{}' cannot be "
                                  "another",
                                  g_entered, name),
                      "driver.dpdk.netns");
  }
  const std::string path = name.find('/') == std::string::npos ? "/var/run/netns/" + name : name;
  const int target = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) {
    return make_error(Errc::invalid_config,
                      fmt::format("dpdk: network namespace '{}' ({}): {}", name, path,
                                  std::strerror(errno)),
                      "driver.dpdk.netns");
  }
  const int entered = setns(target, CLONE_NEWNET);
  const int error = errno;
  ::close(target);
  if (entered != 0) {
    return make_error(Errc::invalid_config,
                      fmt::format("dpdk: cannot enter network namespace '{}': {}", name,
                                  std::strerror(error)),
                      "driver.dpdk.netns");
  }
  g_entered = name;
  return {};
}

}  // namespace qb::drv::dpdk
