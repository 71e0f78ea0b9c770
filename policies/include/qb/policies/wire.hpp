// Wire accounting: which bytes a message costs on the link.
//
// Shares, caps and every *_bps figure qosbench judges count *wire bytes*: the bytes the port
// serialises for a message, including every per-packet header and, on Ethernet, the L1 bytes
// (preamble+SFD 8, inter-frame gap 12, FCS 4). So a 100 Gbit/s port carries exactly
// 100 Gbit/s of wire bytes, and `max_avg_bw` caps wire bytes (model choice, documented in
// docs/semantics.md). Payload ("goodput") figures are reported alongside.
#pragma once

#include <cstdint>
#include <string_view>

namespace qb::policy {

enum class Transport { rocev2, ib, eth };
/// read: RDMA READ; its data travels in the responder's READ response packets (the request,
/// BTH + RETH without payload, is not counted, as ACKs are not).
enum class RdmaOp { write, send, read };

std::string_view transport_name(Transport transport) noexcept;
std::string_view op_name(RdmaOp op) noexcept;

struct WireModel {
  Transport transport = Transport::rocev2;
  uint32_t mtu_bytes = 4096;  // rocev2/ib: path MTU (payload per packet); eth: IP MTU
  bool vlan = false;          // eth and rocev2: one 802.1Q tag per frame
  bool ipv6 = false;          // rocev2 only
  bool ib_grh = false;        // ib only: global route header

  /// Per-packet bytes besides the payload (all headers, CRCs and, on Ethernet, L1 bytes).
  uint32_t per_packet_overhead_bytes() const noexcept;
  /// Extra bytes on the first packet of a message (RETH for RDMA WRITE, AETH for a READ
  /// response).
  uint32_t first_packet_extra_bytes(RdmaOp op) const noexcept;
  /// Extra bytes on the last packet of a message of two or more (AETH for a READ response).
  uint32_t last_packet_extra_bytes(RdmaOp op) const noexcept;
  /// Packets a message of this size needs (eth: always 1, the size is the frame).
  uint32_t packets_for_message(uint64_t message_bytes) const noexcept;
  /// Wire bytes of a whole message.
  uint64_t wire_bytes_for_message(uint64_t message_bytes, RdmaOp op) const noexcept;
  /// Payload bytes of packet `index` (0-based) of a message.
  uint32_t packet_payload_bytes(uint64_t message_bytes, uint32_t index) const noexcept;
  /// Wire bytes of one packet carrying `payload_bytes`: headers, the BTH pad to 4 bytes
  /// (RDMA), the 64-byte Ethernet minimum frame, and L1 bytes. Simulators must use this.
  /// `last_packet`: the last of a message of two or more (matters for READ responses only).
  uint32_t packet_wire_bytes(uint32_t payload_bytes, bool first_packet, RdmaOp op,
                             bool last_packet = false) const noexcept;
  /// Largest message/frame size a flow may use (eth: mtu + 18 (+4 VLAN); RDMA: 2^31).
  uint64_t max_message_bytes() const noexcept;
  /// Smallest (eth: 64-byte frame; RDMA: 1 byte).
  uint64_t min_message_bytes() const noexcept;
};

}  // namespace qb::policy
