#include "packet_template.hpp"

#include <cstring>

namespace qb::drv::dpdk {
namespace {

void put16(uint8_t* p, uint16_t v) noexcept {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void put32(uint8_t* p, uint32_t v) noexcept {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}
uint16_t get16(const uint8_t* p) noexcept {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}
uint32_t get32(const uint8_t* p) noexcept {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeVlan = 0x8100;
constexpr uint8_t kIpProtoUdp = 17;

}  // namespace

PacketTemplate::PacketTemplate(const FrameSpec& spec) noexcept {
  uint8_t* p = bytes_.data();
  std::memcpy(p, spec.dst_mac.data(), 6);
  std::memcpy(p + 6, spec.src_mac.data(), 6);
  uint32_t offset = 12;
  if (spec.vlan) {
    put16(p + offset, kEtherTypeVlan);
    put16(p + offset + 2, static_cast<uint16_t>(((spec.pcp & 7u) << 13) | (spec.vlan_id & 0xfffu)));
    offset += kVlanTagBytes;
  }
  put16(p + offset, kEtherTypeIpv4);
  offset += 2;
  ip_offset_ = offset;
  uint8_t* ip = p + offset;
  ip[0] = 0x45;  // version 4, 5 words
  ip[1] = static_cast<uint8_t>(((spec.dscp & 63u) << 2) | (spec.ecn & 3u));
  put16(ip + 2, 0);  // total length: per frame
  put16(ip + 4, 0);  // identification (DF set: never fragmented)
  put16(ip + 6, 0x4000);
  ip[8] = spec.ttl;
  ip[9] = kIpProtoUdp;
  put16(ip + 10, 0);  // checksum: per frame
  put32(ip + 12, spec.src_ip);
  put32(ip + 16, spec.dst_ip);
  uint32_t sum = 0;
  for (uint32_t i = 0; i < kIpv4HeaderBytes; i += 2) sum += get16(ip + i);
  checksum_base_ = sum;
  uint8_t* udp = ip + kIpv4HeaderBytes;
  put16(udp, spec.src_port);
  put16(udp + 2, spec.dst_port);
  put16(udp + 4, 0);  // length: per frame
  put16(udp + 6, 0);  // no checksum (allowed on IPv4)
  header_bytes_ = offset + kIpv4HeaderBytes + kUdpHeaderBytes;
}

void PacketTemplate::write(uint8_t* frame, uint32_t length,
                           const PayloadHeader& payload) const noexcept {
  std::memcpy(frame, bytes_.data(), kMaxHeaderBytes);  // fixed size: one unrolled copy
  const auto ip_length = static_cast<uint16_t>(length - ip_offset_);
  uint8_t* ip = frame + ip_offset_;
  put16(ip + 2, ip_length);
  uint32_t sum = checksum_base_ + ip_length;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  put16(ip + 10, static_cast<uint16_t>(~sum));
  put16(ip + kIpv4HeaderBytes + 4, static_cast<uint16_t>(ip_length - kIpv4HeaderBytes));
  uint8_t* h = frame + header_bytes_;
  put16(h, payload.flow);
  put32(h + 2, payload.sequence);
  put32(h + 6, payload.tx_tsc);
  put32(h + 10, payload.lateness_ns);
}

void PacketTemplate::prepare(uint32_t length, uint16_t flow) noexcept {
  prefix_.fill(0);
  write(prefix_.data(), length, PayloadHeader{flow, 0, 0, 0});
  prepared_length_ = length;
}

bool parse_udp_frame(const uint8_t* frame, uint32_t length, uint16_t udp_dst_port,
                     uint32_t min_payload, UdpFrame& out) noexcept {
  if (length < kEthHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes + min_payload) return false;
  uint32_t offset = 12;
  uint16_t ether_type = get16(frame + offset);
  out.vlan = ether_type == kEtherTypeVlan;
  out.pcp = 0;
  if (out.vlan) {
    if (length < kMaxHeaderBytes + min_payload) return false;
    out.pcp = static_cast<uint8_t>(frame[offset + 2] >> 5);
    offset += kVlanTagBytes;
    ether_type = get16(frame + offset);
  }
  if (ether_type != kEtherTypeIpv4) return false;
  offset += 2;
  const uint8_t* ip = frame + offset;
  if (ip[0] != 0x45 || ip[9] != kIpProtoUdp) return false;
  const uint32_t ip_length = get16(ip + 2);
  if (ip_length < kIpv4HeaderBytes + kUdpHeaderBytes + min_payload || offset + ip_length > length) {
    return false;
  }
  const uint8_t* udp = ip + kIpv4HeaderBytes;
  if (get16(udp + 2) != udp_dst_port || get16(udp + 4) != ip_length - kIpv4HeaderBytes) {
    return false;
  }
  out.dscp = static_cast<uint8_t>(ip[1] >> 2);
  out.ecn = static_cast<uint8_t>(ip[1] & 3);
  out.src_port = get16(udp);
  out.ip_length = ip_length;
  out.udp_payload = udp + kUdpHeaderBytes;
  return true;
}

PayloadHeader read_payload_header(const uint8_t* p) noexcept {
  return PayloadHeader{get16(p), get32(p + 2), get32(p + 6), get32(p + 10)};
}

bool parse_frame(const uint8_t* frame, uint32_t length, uint16_t udp_dst_port,
                 ParsedFrame& out) noexcept {
  UdpFrame udp;
  if (!parse_udp_frame(frame, length, udp_dst_port, kPayloadHeaderBytes, udp)) return false;
  out.vlan = udp.vlan;
  out.pcp = udp.pcp;
  out.dscp = udp.dscp;
  out.ecn = udp.ecn;
  out.src_port = udp.src_port;
  out.payload = read_payload_header(udp.udp_payload);
  return true;
}

uint64_t extend_sequence(uint32_t low, uint64_t expected) noexcept {
  // The signed 32-bit distance from expected's low bits picks the nearest candidate.
  const auto delta = static_cast<int32_t>(low - static_cast<uint32_t>(expected));
  if (delta < 0 && expected < static_cast<uint64_t>(-static_cast<int64_t>(delta))) {
    return low;  // would go below zero: take the value in the first epoch
  }
  return expected + static_cast<uint64_t>(static_cast<int64_t>(delta));
}

uint64_t extend_tsc(uint32_t low, uint64_t now) noexcept {
  return now - static_cast<uint32_t>(static_cast<uint32_t>(now) - low);
}

}  // namespace qb::drv::dpdk
