// Virtual time of the simulator and link serialisation on it. Time is integer picoseconds
// (4194 B at 100 Gbit/s is 335.52 ns; ns would drift 0.15%); serialisation carries its
// remainder from packet to packet, so a link runs at exactly its rate.
#pragma once

#include <algorithm>
#include <cstdint>

#include "qb/policies/wire.hpp"

namespace qb::drv::sim {

inline constexpr uint64_t kPsPerSecond = 1'000'000'000'000;

/// Picoseconds `wire_bytes` take at `rate_bps`, with the remainder of bits * 1e12 / rate
/// carried in `carry` to the next packet (no drift).
inline int64_t serialise(uint32_t wire_bytes, uint64_t rate_bps, uint64_t& carry) noexcept {
  __extension__ using Uint128 = unsigned __int128;
  const Uint128 numerator = Uint128{wire_bytes} * 8U * kPsPerSecond + carry;
  uint64_t quotient = 0;
  if (numerator <= UINT64_MAX) {
    const auto n = static_cast<uint64_t>(numerator);
    quotient = n / rate_bps;
    carry = n % rate_bps;
  } else {
    quotient = static_cast<uint64_t>(numerator / rate_bps);
    carry = static_cast<uint64_t>(numerator % rate_bps);
  }
  return static_cast<int64_t>(quotient);
}

/// serialise() for one link (a fixed rate) that keeps the quotient and remainder of the last
/// packet size it saw: with carry < rate (serialise() keeps it so), bits * 1e12 + carry is
/// q * rate + (r + carry), and r + carry < 2 * rate, so the same size needs no division, and the
/// result and the carry are serialise()'s exactly. A link sends runs of one size (one MTU, or
/// one message size), so this is the usual case.
struct Serialiser {
  uint32_t wire_bytes = 0;  // 0 bytes: quotient 0, remainder 0, which is right
  uint64_t quotient = 0;
  uint64_t remainder = 0;

  int64_t next(uint32_t bytes, uint64_t rate_bps, uint64_t& carry) noexcept {
    if (bytes != wire_bytes) [[unlikely]] {
      uint64_t zero = 0;
      quotient = static_cast<uint64_t>(serialise(bytes, rate_bps, zero));
      remainder = zero;
      wire_bytes = bytes;
    }
    const uint64_t sum = remainder + carry;  // < 2 * rate < 2^64 (rate < 2^63)
    const bool wrap = sum >= rate_bps;
    carry = wrap ? sum - rate_bps : sum;
    return static_cast<int64_t>(quotient + (wrap ? 1 : 0));
  }
};

/// Picoseconds `bytes` take at `rate_bps`, rounded down.
inline int64_t bytes_ps(uint64_t bytes, uint64_t rate_bps) noexcept {
  __extension__ using Uint128 = unsigned __int128;
  return static_cast<int64_t>(Uint128{bytes} * 8U * kPsPerSecond / rate_bps);
}

/// Picoseconds a packet of `wire_bytes` takes at `rate_bps` (at least 1; for sizing rings).
inline uint64_t packet_ps(uint64_t wire_bytes, int64_t rate_bps) {
  return std::max<uint64_t>(1, wire_bytes * 8ULL * kPsPerSecond / static_cast<uint64_t>(rate_bps));
}

/// Wire bytes of the largest packet a flow can send: the DWRR quantum.
inline uint32_t largest_packet_wire_bytes(const policy::WireModel& wire) {
  if (wire.transport == policy::Transport::eth) {
    return wire.packet_wire_bytes(static_cast<uint32_t>(wire.max_message_bytes()), true,
                                  policy::RdmaOp::send);
  }
  return wire.packet_wire_bytes(wire.mtu_bytes, true, policy::RdmaOp::write);
}

/// Wire bytes of the smallest packet (at least 1; for sizing rings).
inline uint32_t smallest_packet_wire_bytes(const policy::WireModel& wire) {
  return std::max(1u, wire.packet_wire_bytes(0, false, policy::RdmaOp::send));
}

}  // namespace qb::drv::sim
