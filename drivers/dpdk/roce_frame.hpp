// RoCEv2 frames qosbench sends on a `transport = "rocev2"` port: Ethernet [802.1Q] / IPv4 /
// UDP 4791 / BTH [/ RETH on the first packet of an RDMA WRITE] / payload / pad / ICRC. Pure byte
// code (no DPDK), unit-tested byte by byte and dissected by tshark in a test.
//
// The payload of every packet starts with qosbench's 14-byte payload header (packet_template.hpp:
// flow, sequence, send TSC, lateness), so a packet carries at least 14 payload bytes; the rest of
// the payload and the pad are zeros. Wire bytes match policy::WireModel's rocev2 model.
//
// ICRC (IBA annex A17, RoCEv2): CRC-32 (the Ethernet polynomial, reflected, initial value and
// final complement as the FCS) over 8 bytes of 1s standing for the LRH, then the IPv4 header with
// TOS, TTL and header checksum set to 1s, the UDP header with its checksum set to 1s, the BTH with
// its FECN/BECN/reserved byte set to 1s, and everything after up to the ICRC; stored least
// significant byte first, like the FCS. The fields set to 1s are those routers may change.
#pragma once

#include <array>
#include <cstdint>

#include "packet_template.hpp"

namespace qb::drv::dpdk {

inline constexpr uint16_t kRoceUdpPort = 4791;
inline constexpr uint32_t kBthBytes = 12;
inline constexpr uint32_t kRethBytes = 16;
inline constexpr uint32_t kIcrcBytes = 4;

/// RC opcodes (IBA table 38).
enum class BthOpcode : uint8_t {
  send_first = 0x00,
  send_middle = 0x01,
  send_last = 0x02,
  send_only = 0x04,
  write_first = 0x06,
  write_middle = 0x07,
  write_last = 0x08,
  write_only = 0x0a,
};

/// The opcode of packet `index` of `count` of a message.
BthOpcode bth_opcode(bool write, uint32_t index, uint32_t count) noexcept;
inline bool opcode_has_reth(uint8_t opcode) noexcept {
  return opcode == static_cast<uint8_t>(BthOpcode::write_first) ||
         opcode == static_cast<uint8_t>(BthOpcode::write_only);
}
inline bool opcode_ends_message(uint8_t opcode) noexcept {
  const auto op = static_cast<BthOpcode>(opcode);
  return op == BthOpcode::send_last || op == BthOpcode::send_only || op == BthOpcode::write_last ||
         op == BthOpcode::write_only;
}

struct RoceSpec {
  FrameSpec frame;       // its dst_port should be kRoceUdpPort
  bool write = true;     // RDMA WRITE (RETH on the first packet) or SEND
  uint32_t dest_qp = 0;  // 24 bits
  uint32_t rkey = 0;
  uint64_t remote_va = 0;
  uint16_t pkey = 0xffff;
};

/// One packet of a message.
struct RocePacket {
  uint32_t payload_bytes = 0;  // >= kPayloadHeaderBytes (the caller clamps)
  uint32_t index = 0;          // of `count` packets of the message
  uint32_t count = 1;
  uint32_t psn = 0;            // 24 bits
  uint32_t message_bytes = 0;  // RETH DMA length
  PayloadHeader header;
};

/// CRC-32 state (reflected, not complemented) after `state` went over bytes `p[0..n)`.
uint32_t crc32_update(uint32_t state, const uint8_t* p, uint32_t n) noexcept;
/// The ICRC of a RoCEv2 frame of `length` bytes (without FCS; the last 4 are the ICRC itself)
/// whose IPv4 header starts at `ip_offset`: computed over every byte (tests, slow path).
uint32_t roce_icrc(const uint8_t* frame, uint32_t length, uint32_t ip_offset) noexcept;

/// The CRC-32 state change of `n` zero bytes: a linear map over GF(2), applied in 32 steps
/// (the payload after the header is zeros, so a 4 KiB packet costs no 4 KiB CRC).
class Crc32Zeros {
 public:
  Crc32Zeros() = default;
  explicit Crc32Zeros(uint32_t n) noexcept;
  uint32_t bytes() const noexcept { return bytes_; }
  uint32_t apply(uint32_t state) const noexcept;

 private:
  std::array<uint32_t, 32> column_{};  // image of each state bit
  uint32_t bytes_ = 0;
};

class RoceTemplate {
 public:
  RoceTemplate() = default;
  explicit RoceTemplate(const RoceSpec& spec) noexcept;

  bool write_op() const noexcept { return spec_.write; }
  /// Frame length without FCS of a packet carrying `payload_bytes`.
  uint32_t frame_length(uint32_t payload_bytes, bool reth) const noexcept;
  /// Writes the whole packet (headers, payload header, zeros, pad, ICRC); returns its length
  /// without FCS. `frame` must hold frame_length(). Not const: caches the zero-run CRC maps.
  uint32_t write(uint8_t* frame, const RocePacket& packet) noexcept;

 private:
  const Crc32Zeros& zeros(uint32_t n) noexcept;

  RoceSpec spec_;
  PacketTemplate eth_;
  std::array<Crc32Zeros, 2> zeros_{};  // the last two zero-run lengths (full and last packets)
  uint32_t zeros_next_ = 0;
};

struct ParsedRoce {
  PayloadHeader header;
  uint8_t opcode = 0;
  uint32_t dest_qp = 0;
  uint32_t psn = 0;
  uint32_t payload_bytes = 0;  // without pad
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  bool vlan = false;
  uint8_t pcp = 0;
};

/// Reads a RoCEv2 frame (without FCS) qosbench sent: IPv4/UDP to kRoceUdpPort, a known RC
/// opcode, and a payload that holds the payload header. The ICRC is not checked (the NIC does).
bool parse_roce_frame(const uint8_t* frame, uint32_t length, ParsedRoce& out) noexcept;

}  // namespace qb::drv::dpdk
