// Frames qosbench sends: Ethernet, optional 802.1Q tag with PCP, IPv4 with DSCP+ECN, UDP, then a
// 14-byte payload header. Pure byte code (no DPDK), so it is unit-tested byte by byte.
//
// Payload header (network byte order), sized so that a 64-byte frame with a VLAN tag still
// carries it (60 bytes without FCS = 46 bytes of headers + 14):
//   0  flow          u16  flow index in the plan (so at most 65536 flows per port)
//   2  sequence      u32  per-flow sequence, low 32 bits (the receiver extends it)
//   6  tx_tsc        u32  TSC when the frame was handed to the PMD, low 32 bits (the receiver
//                         extends it from its own TSC: valid while latency < 2^31 ticks); in
//                         a multi-host job the receiver's job clock in ns instead
//                         (job_clock_stamps.hpp: valid while latency < 2^31 ns)
//   10 lateness_ns   u32  send time - scheduled time in ns, saturated at 2^32-1 (4.29 s)
// Bytes after the header are left as the mbuf had them (not part of any check).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

namespace qb::drv::dpdk {

inline constexpr uint32_t kEthHeaderBytes = 14;
inline constexpr uint32_t kVlanTagBytes = 4;
inline constexpr uint32_t kIpv4HeaderBytes = 20;
inline constexpr uint32_t kUdpHeaderBytes = 8;
inline constexpr uint32_t kPayloadHeaderBytes = 14;
inline constexpr uint32_t kMaxHeaderBytes =
    kEthHeaderBytes + kVlanTagBytes + kIpv4HeaderBytes + kUdpHeaderBytes;
inline constexpr uint32_t kFcsBytes = 4;
/// Headers + payload header of the largest (VLAN) layout: what write_prepared() copies.
inline constexpr uint32_t kPrefixBytes = kMaxHeaderBytes + kPayloadHeaderBytes;
inline constexpr uint32_t kMaxFlows = 65536;

struct FrameSpec {
  std::array<uint8_t, 6> src_mac{};
  std::array<uint8_t, 6> dst_mac{};
  bool vlan = false;
  uint16_t vlan_id = 0;  // 0..4095
  uint8_t pcp = 0;       // 0..7
  uint8_t dscp = 0;      // 0..63
  uint8_t ecn = 0;       // 0..3
  uint8_t ttl = 64;
  uint32_t src_ip = 0;  // host order
  uint32_t dst_ip = 0;
  uint16_t src_port = 0;
  uint16_t dst_port = 0;
};

struct PayloadHeader {
  uint16_t flow = 0;
  uint32_t sequence = 0;
  uint32_t tx_tsc = 0;
  uint32_t lateness_ns = 0;
};

/// Big-endian store: one bswap and one store (byte stores were merged by GCC into a long
/// shift/or chain).
inline void store_be32(uint8_t* p, uint32_t v) noexcept {
  const uint32_t be = std::endian::native == std::endian::little ? __builtin_bswap32(v) : v;
  std::memcpy(p, &be, sizeof be);
}

class PacketTemplate {
 public:
  PacketTemplate() = default;
  explicit PacketTemplate(const FrameSpec& spec) noexcept;

  /// Ethernet + VLAN + IPv4 + UDP bytes (42 or 46).
  uint32_t header_bytes() const noexcept { return header_bytes_; }
  /// Smallest frame (without FCS) that holds the headers and the payload header.
  uint32_t min_length() const noexcept { return header_bytes_ + kPayloadHeaderBytes; }
  /// Writes the headers of a frame of `length` bytes without FCS (>= min_length(): the caller
  /// clamps) and the payload header; lengths and the IPv4 checksum follow `length`.
  void write(uint8_t* frame, uint32_t length, const PayloadHeader& payload) const noexcept;

  /// The fast path: builds once the frame prefix (headers and flow id) for frames of
  /// `length` bytes, so write_prepared() is one fixed 60-byte copy and three stores.
  void prepare(uint32_t length, uint16_t flow) noexcept;
  uint32_t prepared_length() const noexcept { return prepared_length_; }
  /// The same bytes as write() for the prepared length and flow. The frame buffer must hold
  /// kPrefixBytes (bytes past the frame's length are left as garbage, not sent).
  void write_prepared(uint8_t* frame, uint32_t sequence, uint32_t tx_tsc,
                      uint32_t lateness_ns) const noexcept {
    std::memcpy(frame, prefix_.data(), kPrefixBytes);  // fixed size: a few vector moves
    uint8_t* h = frame + header_bytes_;
    store_be32(h + 2, sequence);
    store_be32(h + 6, tx_tsc);
    store_be32(h + 10, lateness_ns);
  }

 private:
  std::array<uint8_t, kPrefixBytes> prefix_{};
  uint32_t prepared_length_ = 0;  // 0: nothing prepared
  std::array<uint8_t, kMaxHeaderBytes> bytes_{};
  uint32_t header_bytes_ = 0;
  uint32_t ip_offset_ = 0;
  uint32_t checksum_base_ = 0;  // one's-complement sum of the IPv4 header but total length
};

struct ParsedFrame {
  PayloadHeader payload;
  bool vlan = false;
  uint8_t pcp = 0;
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  uint16_t src_port = 0;
};

/// The Ethernet (with or without one VLAN tag), IPv4 and UDP headers of a received frame: what
/// the UDP frames and the RoCEv2 frames have in common.
struct UdpFrame {
  bool vlan = false;
  uint8_t pcp = 0;
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  uint16_t src_port = 0;
  uint32_t ip_length = 0;                // IPv4 total length
  const uint8_t* udp_payload = nullptr;  // after the UDP header
};

/// Reads the headers of a frame (without FCS). False unless IPv4 (no options)/UDP to
/// `udp_dst_port` with at least `min_payload` bytes after the UDP header, and IP/UDP lengths
/// that agree with each other and with `length` (frames may be padded beyond the IP length).
bool parse_udp_frame(const uint8_t* frame, uint32_t length, uint16_t udp_dst_port,
                     uint32_t min_payload, UdpFrame& out) noexcept;

/// The payload header at `p` (PacketTemplate::write's layout).
PayloadHeader read_payload_header(const uint8_t* p) noexcept;

/// Reads a frame (without FCS). False when it is not a qosbench frame: not IPv4/UDP (with or
/// without one VLAN tag), not to `udp_dst_port`, truncated, or IP/UDP lengths that disagree
/// with `length`. Frames may be padded beyond the IP length (short frames on the wire).
bool parse_frame(const uint8_t* frame, uint32_t length, uint16_t udp_dst_port,
                 ParsedFrame& out) noexcept;

/// The 64-bit value whose low 32 bits are `low`, nearest to `expected` (sequence numbers).
uint64_t extend_sequence(uint32_t low, uint64_t expected) noexcept;
/// The latest 64-bit TSC <= `now` whose low 32 bits are `low` (a send time seen at `now`).
uint64_t extend_tsc(uint32_t low, uint64_t now) noexcept;

}  // namespace qb::drv::dpdk
