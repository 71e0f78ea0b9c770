#include "peer_link.hpp"

#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

namespace qb::drv::verbs {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool stopped(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// Waits for `events` on `fd` until `deadline_ms`, in slices that look at the stop flag:
// 1 ready, 0 timed out, -1 stopped or interrupted by a signal.
int wait_for(int fd, short events, int64_t deadline_ms, const std::atomic<bool>* stop) {
  constexpr int64_t kSliceMs = 50;
  while (true) {
    if (stopped(stop)) return -1;
    const int64_t left = deadline_ms - now_ms();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min(left, kSliceMs)));
    if (rc < 0) return -1;  // EINTR: a signal (the run is being stopped)
    if (rc > 0) return rc;
  }
}

Error interrupted(const char* what) {
  return make_error(Errc::runtime, fmt::format("verbs: interrupted while {}", what));
}

}  // namespace

PeerLink::~PeerLink() {
  if (fd_ >= 0) ::close(fd_);
}

PeerLink::PeerLink(PeerLink&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), stop_(other.stop_), buffered_(std::move(other.buffered_)) {}

PeerLink& PeerLink::operator=(PeerLink&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    stop_ = other.stop_;
    buffered_ = std::move(other.buffered_);
  }
  return *this;
}

Result<PeerLink> PeerLink::accept_one(uint16_t port, int timeout_ms,
                                      const std::atomic<bool>* stop) {
  const int listener = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) {
    return make_error(Errc::unavailable, fmt::format("verbs: socket(): {}", std::strerror(errno)));
  }
  PeerLink guard(listener, nullptr);  // closes the listener on every return
  const int on = 1;
  const int off = 0;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  ::setsockopt(listener, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);  // IPv4 too
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_addr = in6addr_any;
  address.sin6_port = htons(port);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listener, 1) != 0) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: cannot listen on TCP port {}: {}", port,
                                  std::strerror(errno)),
                      "driver.verbs.listen");
  }
  const int rc = wait_for(listener, POLLIN, now_ms() + timeout_ms, stop);
  if (rc < 0) return interrupted("waiting for the peer to connect");
  if (rc == 0) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: no peer connected to TCP port {} within {} s (start "
                                  "the sender with peer = \"THIS_HOST:{}\")",
                                  port, timeout_ms / 1000, port),
                      "driver.verbs.listen");
  }
  const int fd = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    return make_error(Errc::unavailable, fmt::format("verbs: accept(): {}", std::strerror(errno)));
  }
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  return PeerLink(fd, stop);
}

Result<PeerLink> PeerLink::connect_to(const std::string& host_port, int timeout_ms,
                                      const std::atomic<bool>* stop) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == host_port.size()) {
    return make_error(Errc::invalid_config,
                      fmt::format("verbs: peer \"{}\" is not HOST:PORT", host_port),
                      "driver.verbs.peer");
  }
  std::string host = host_port.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);  // [IPv6]:port
  }
  const std::string service = host_port.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return make_error(Errc::unavailable,
                      fmt::format("verbs: peer {}: {}", host_port, ::gai_strerror(rc)),
                      "driver.verbs.peer");
  }
  const int64_t deadline_ms = now_ms() + timeout_ms;
  std::string last_error = "timed out";
  while (now_ms() < deadline_ms) {
    for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) continue;
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        ::freeaddrinfo(found);
        const int on = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
        return PeerLink(fd, stop);
      }
      last_error = std::strerror(errno);
      ::close(fd);
    }
    // The receiver may not be listening yet: retry, in short sleeps a signal can cut.
    const timespec pause{0, 50'000'000};
    if (::nanosleep(&pause, nullptr) != 0 || stopped(stop)) {
      ::freeaddrinfo(found);
      return interrupted("connecting to the peer");
    }
  }
  ::freeaddrinfo(found);
  return make_error(Errc::unavailable,
                    fmt::format("verbs: cannot connect to peer {} within {} s: {} (start the "
                                "receiver first, with listen = PORT)",
                                host_port, timeout_ms / 1000, last_error),
                    "driver.verbs.peer");
}

Status PeerLink::send_line(const std::string& line) {
  const std::string data = line + "\n";
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) return interrupted("talking to the peer");
    if (n <= 0) {
      return make_error(Errc::runtime,
                        fmt::format("verbs: the peer connection failed: {}", std::strerror(errno)));
    }
    sent += static_cast<size_t>(n);
  }
  return {};
}

Result<std::string> PeerLink::read_line(int timeout_ms) {
  const int64_t deadline_ms = now_ms() + timeout_ms;
  constexpr size_t kMaxLine = 4096;
  while (true) {
    if (const size_t end = buffered_.find('\n'); end != std::string::npos) {
      std::string line = buffered_.substr(0, end);
      buffered_.erase(0, end + 1);
      return line;
    }
    if (buffered_.size() > kMaxLine) {
      return make_error(Errc::runtime, "verbs: the peer sent a line longer than 4 KiB");
    }
    const int rc = wait_for(fd_, POLLIN, deadline_ms, stop_);
    if (rc < 0) return interrupted("waiting for the peer");
    if (rc == 0) {
      return make_error(Errc::runtime,
                        fmt::format("verbs: the peer said nothing for {} s", timeout_ms / 1000));
    }
    char chunk[512];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) return interrupted("waiting for the peer");
    if (n <= 0) {
      return make_error(Errc::runtime, "verbs: the peer closed the connection");
    }
    buffered_.append(chunk, static_cast<size_t>(n));
  }
}

}  // namespace qb::drv::verbs
