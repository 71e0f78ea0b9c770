// The DCB seam's real side: an rtnetlink socket, one request at a time, bounded waits.
#include <fmt/format.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "qb/nic/dcb_transport.hpp"

namespace qb::nic {
namespace {

constexpr int kWaitMs = 2000;

class NetlinkTransport final : public DcbTransport {
 public:
  ~NetlinkTransport() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Result<std::vector<uint8_t>> exchange(std::span<const uint8_t> request) override {
    if (fd_ < 0) {
      fd_ = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
      if (fd_ < 0) return failed("socket(AF_NETLINK)");
    }
    nlmsghdr header{};
    if (request.size() < sizeof header) return make_error(Errc::runtime, "netlink: no request");
    std::memcpy(&header, request.data(), sizeof header);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd_, request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel) < 0) {
      return failed("sendto");
    }
    std::vector<uint8_t> buffer(64 * 1024);
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      const int ready = ::poll(&p, 1, kWaitMs);
      if (ready < 0 && errno == EINTR) continue;
      if (ready < 0) return failed("poll");
      if (ready == 0) {
        return make_error(Errc::runtime,
                          fmt::format("netlink: no DCB answer within {} ms", kWaitMs));
      }
      const ssize_t n = ::recv(fd_, buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return failed("recv");
      nlmsghdr reply{};
      if (static_cast<size_t>(n) < sizeof reply) continue;
      std::memcpy(&reply, buffer.data(), sizeof reply);
      if (reply.nlmsg_seq != header.nlmsg_seq) continue;  // a notification or an older answer
      buffer.resize(static_cast<size_t>(n));
      return buffer;
    }
  }

 private:
  static Error failed(const char* call) {
    const int error = errno;
    return make_error(Errc::runtime, fmt::format("netlink: {} failed: {} (errno {})", call,
                                                 std::strerror(error), error));
  }
  int fd_ = -1;
};

}  // namespace

std::unique_ptr<DcbTransport> make_netlink_dcb_transport() {
  return std::make_unique<NetlinkTransport>();
}

}  // namespace qb::nic
