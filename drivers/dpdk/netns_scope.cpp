#include "netns_scope.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace qb::drv::dpdk {

NetnsScope::~NetnsScope() {
  if (home_fd_ < 0) return;
  if (setns(home_fd_, CLONE_NEWNET) != 0) {
    std::fprintf(stderr, "qosbench: warning: dpdk: could not leave the network namespace: %s\n",
                 std::strerror(errno));
  }
  ::close(home_fd_);
}

Status NetnsScope::enter(const std::string& name) {
  if (name.empty()) return {};
  const std::string path = name.find('/') == std::string::npos ? "/var/run/netns/" + name : name;
  const int target = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (target < 0) {
    return make_error(Errc::invalid_config,
                      fmt::format("dpdk: network namespace '{}' ({}): {}", name, path,
                                  std::strerror(errno)),
                      "driver.dpdk.netns");
  }
  home_fd_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home_fd_ < 0 || setns(target, CLONE_NEWNET) != 0) {
    const int error = errno;
    ::close(target);
    if (home_fd_ >= 0) ::close(home_fd_);
    home_fd_ = -1;
    return make_error(Errc::invalid_config,
                      fmt::format("dpdk: cannot enter network namespace '{}': {}", name,
                                  std::strerror(error)),
                      "driver.dpdk.netns");
  }
  ::close(target);
  return {};
}

}  // namespace qb::drv::dpdk
