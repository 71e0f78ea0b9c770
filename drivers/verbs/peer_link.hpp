// The TCP connection two verbs drivers on two hosts use to exchange what their QPs need to
// connect (QP numbers, PSNs, LIDs, GIDs, rkeys), as perftest does: one line of text per record.
// Every wait is bounded and ends early when the run is stopped (the stop flag, checked every
// 50 ms, or a signal interrupting poll()), so Ctrl-C while waiting for the peer ends the run.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "qb/common/result.hpp"

namespace qb::drv::verbs {

class PeerLink {
 public:
  PeerLink() = default;
  ~PeerLink();
  PeerLink(PeerLink&& other) noexcept;
  PeerLink& operator=(PeerLink&& other) noexcept;
  PeerLink(const PeerLink&) = delete;
  PeerLink& operator=(const PeerLink&) = delete;

  /// Waits for one peer on `port` (all addresses). Errc::unavailable when the port cannot be
  /// bound or nobody connects within `timeout_ms`; Errc::runtime when interrupted.
  /// `stop` (may be null): set when the run must end.
  static Result<PeerLink> accept_one(uint16_t port, int timeout_ms,
                                     const std::atomic<bool>* stop = nullptr);
  /// Connects to "HOST:PORT", retrying while the peer is not listening yet, for `timeout_ms`.
  static Result<PeerLink> connect_to(const std::string& host_port, int timeout_ms,
                                     const std::atomic<bool>* stop = nullptr);

  Status send_line(const std::string& line);
  /// The next line without its '\n'.
  Result<std::string> read_line(int timeout_ms);

 private:
  PeerLink(int fd, const std::atomic<bool>* stop) : fd_(fd), stop_(stop) {}
  int fd_ = -1;
  const std::atomic<bool>* stop_ = nullptr;
  std::string buffered_;
};

}  // namespace qb::drv::verbs
