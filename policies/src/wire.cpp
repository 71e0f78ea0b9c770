#include "qb/policies/wire.hpp"

#include <algorithm>

namespace qb::policy {
namespace {

// Ethernet L1: preamble+SFD 8 and inter-frame gap 12 around every frame.
constexpr uint32_t kEthL1Bytes = 8 + 12;
constexpr uint32_t kEthHeaderBytes = 14;
constexpr uint32_t kEthFcsBytes = 4;
constexpr uint32_t kVlanTagBytes = 4;
constexpr uint32_t kEthMinFrameBytes = 64;  // incl. FCS; shorter frames are padded
constexpr uint32_t kIpv4HeaderBytes = 20;
constexpr uint32_t kIpv6HeaderBytes = 40;
constexpr uint32_t kUdpHeaderBytes = 8;
constexpr uint32_t kBthBytes = 12;
constexpr uint32_t kRethBytes = 16;
constexpr uint32_t kAethBytes = 4;
constexpr uint32_t kIcrcBytes = 4;
constexpr uint32_t kIbLrhBytes = 8;
constexpr uint32_t kIbGrhBytes = 40;
constexpr uint32_t kIbVcrcBytes = 2;
constexpr uint64_t kRdmaMaxMessageBytes = 1ULL << 31;

// The BTH pad count rounds an RDMA payload up to a multiple of 4 bytes.
constexpr uint32_t pad_to_4(uint32_t bytes) noexcept {
  return (bytes + 3U) & ~3U;
}

}  // namespace

std::string_view transport_name(Transport transport) noexcept {
  switch (transport) {
    case Transport::rocev2:
      return "rocev2";
    case Transport::ib:
      return "ib";
    case Transport::eth:
      return "eth";
  }
  return "?";
}

std::string_view op_name(RdmaOp op) noexcept {
  switch (op) {
    case RdmaOp::write:
      return "write";
    case RdmaOp::send:
      return "send";
    case RdmaOp::read:
      return "read";
  }
  return "?";
}

uint32_t WireModel::per_packet_overhead_bytes() const noexcept {
  switch (transport) {
    case Transport::rocev2:
      return kEthL1Bytes + kEthHeaderBytes + (vlan ? kVlanTagBytes : 0) +
             (ipv6 ? kIpv6HeaderBytes : kIpv4HeaderBytes) + kUdpHeaderBytes + kBthBytes +
             kIcrcBytes + kEthFcsBytes;
    case Transport::ib:
      return kIbLrhBytes + (ib_grh ? kIbGrhBytes : 0) + kBthBytes + kIcrcBytes + kIbVcrcBytes;
    case Transport::eth:
      return kEthL1Bytes;  // the message *is* the frame, headers and FCS included
  }
  return 0;
}

uint32_t WireModel::first_packet_extra_bytes(RdmaOp op) const noexcept {
  if (transport == Transport::eth) return 0;
  switch (op) {
    case RdmaOp::write:
      return kRethBytes;
    case RdmaOp::read:
      return kAethBytes;  // READ Response First / Only
    case RdmaOp::send:
      break;
  }
  return 0;
}

uint32_t WireModel::last_packet_extra_bytes(RdmaOp op) const noexcept {
  return (transport != Transport::eth && op == RdmaOp::read) ? kAethBytes : 0;  // Response Last
}

uint32_t WireModel::packets_for_message(uint64_t message_bytes) const noexcept {
  if (transport == Transport::eth || message_bytes <= mtu_bytes) return 1;
  return static_cast<uint32_t>((message_bytes + mtu_bytes - 1) / mtu_bytes);
}

uint32_t WireModel::packet_payload_bytes(uint64_t message_bytes, uint32_t index) const noexcept {
  if (transport == Transport::eth) return static_cast<uint32_t>(message_bytes);
  const uint64_t offset = static_cast<uint64_t>(index) * mtu_bytes;
  if (offset >= message_bytes) return 0;
  return static_cast<uint32_t>(std::min<uint64_t>(mtu_bytes, message_bytes - offset));
}

uint32_t WireModel::packet_wire_bytes(uint32_t payload_bytes, bool first_packet, RdmaOp op,
                                      bool last_packet) const noexcept {
  if (transport == Transport::eth) {
    return std::max(payload_bytes, kEthMinFrameBytes) + kEthL1Bytes;
  }
  const uint32_t extra = first_packet  ? first_packet_extra_bytes(op)
                         : last_packet ? last_packet_extra_bytes(op)
                                       : 0;
  const uint32_t packet = pad_to_4(payload_bytes) + extra + per_packet_overhead_bytes();
  if (transport == Transport::rocev2) {
    // The Ethernet frame (everything but L1) cannot be shorter than 64 bytes.
    return std::max(packet - kEthL1Bytes, kEthMinFrameBytes) + kEthL1Bytes;
  }
  return packet;
}

uint64_t WireModel::wire_bytes_for_message(uint64_t message_bytes, RdmaOp op) const noexcept {
  const uint32_t packets = packets_for_message(message_bytes);
  if (packets == 1) {
    return packet_wire_bytes(static_cast<uint32_t>(message_bytes), true, op);
  }
  // All packets but the last are full (mtu is a multiple of 4, so no pad).
  const uint64_t full =
      static_cast<uint64_t>(packets - 1) * packet_wire_bytes(mtu_bytes, false, op);
  const uint32_t last = packet_payload_bytes(message_bytes, packets - 1);
  return full + first_packet_extra_bytes(op) + packet_wire_bytes(last, false, op, true);
}

uint64_t WireModel::max_message_bytes() const noexcept {
  if (transport == Transport::eth) {
    return static_cast<uint64_t>(mtu_bytes) + kEthHeaderBytes + kEthFcsBytes +
           (vlan ? kVlanTagBytes : 0);
  }
  return kRdmaMaxMessageBytes;
}

uint64_t WireModel::min_message_bytes() const noexcept {
  return transport == Transport::eth ? kEthMinFrameBytes : 1;
}

}  // namespace qb::policy
