// The seam under the DCB reads and writes: one netlink request out, its answer back. The real
// one is an rtnetlink socket; tests replay answers recorded (or built) in the kernel's layout
// and see every request the code sends.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "qb/common/result.hpp"

namespace qb::nic {

class DcbTransport {
 public:
  virtual ~DcbTransport() = default;
  /// Sends one request and returns the first message answering it (its sequence number).
  virtual Result<std::vector<uint8_t>> exchange(std::span<const uint8_t> request) = 0;
};

/// NETLINK_ROUTE socket; every wait bounded (2 s).
std::unique_ptr<DcbTransport> make_netlink_dcb_transport();

}  // namespace qb::nic
