#include "roce_frame.hpp"

#include <cstring>

namespace qb::drv::dpdk {
namespace {

constexpr uint32_t kCrc32Poly = 0xedb88320;  // 0x04c11db7 reflected

constexpr std::array<uint32_t, 256> make_crc_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) != 0 ? kCrc32Poly : 0);
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = make_crc_table();

using Matrix = std::array<uint32_t, 32>;

uint32_t times(const Matrix& m, uint32_t v) noexcept {
  uint32_t out = 0;
  for (uint32_t i = 0; v != 0; ++i, v >>= 1) {
    if ((v & 1) != 0) out ^= m[i];
  }
  return out;
}
Matrix compose(const Matrix& a, const Matrix& b) noexcept {  // a after b
  Matrix out{};
  for (uint32_t i = 0; i < 32; ++i) out[i] = times(a, b[i]);
  return out;
}

void put16(uint8_t* p, uint32_t v) noexcept {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void put24(uint8_t* p, uint32_t v) noexcept {
  p[0] = static_cast<uint8_t>(v >> 16);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v);
}
void put32(uint8_t* p, uint32_t v) noexcept {
  put16(p, v >> 16);
  put16(p + 2, v);
}
uint32_t get24(const uint8_t* p) noexcept {
  return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2];
}

constexpr uint32_t pad_of(uint32_t payload_bytes) noexcept {
  return (4 - (payload_bytes & 3)) & 3;
}

// The invariant fields of IPv4 + UDP + BTH, the variant ones set to 1s (IBA A17.3.3).
constexpr uint32_t kMaskedBytes = kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes;
void mask_variant_fields(uint8_t* h) noexcept {
  h[1] = 0xff;           // IPv4 TOS (DSCP/ECN)
  h[8] = 0xff;           // TTL
  h[10] = h[11] = 0xff;  // header checksum
  uint8_t* udp = h + kIpv4HeaderBytes;
  udp[6] = udp[7] = 0xff;           // UDP checksum
  udp[kUdpHeaderBytes + 4] = 0xff;  // BTH FECN, BECN, reserved
}

// CRC state after the 8 bytes of 1s that stand for the LRH.
uint32_t lrh_state() noexcept {
  const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  return crc32_update(0xffffffff, ones, sizeof ones);
}

}  // namespace

uint32_t crc32_update(uint32_t state, const uint8_t* p, uint32_t n) noexcept {
  for (uint32_t i = 0; i < n; ++i) state = (state >> 8) ^ kCrcTable[(state ^ p[i]) & 0xff];
  return state;
}

uint32_t roce_icrc(const uint8_t* frame, uint32_t length, uint32_t ip_offset) noexcept {
  uint8_t masked[kMaskedBytes];
  std::memcpy(masked, frame + ip_offset, kMaskedBytes);
  mask_variant_fields(masked);
  uint32_t state = crc32_update(lrh_state(), masked, kMaskedBytes);
  const uint32_t rest = ip_offset + kMaskedBytes;
  state = crc32_update(state, frame + rest, length - kIcrcBytes - rest);
  return ~state;
}

Crc32Zeros::Crc32Zeros(uint32_t n) noexcept : bytes_(n) {
  Matrix step{};  // one zero byte
  for (uint32_t i = 0; i < 32; ++i) {
    const uint8_t zero = 0;
    step[i] = crc32_update(1u << i, &zero, 1);
  }
  Matrix result{};
  for (uint32_t i = 0; i < 32; ++i) result[i] = 1u << i;
  for (; n != 0; n >>= 1) {
    if ((n & 1) != 0) result = compose(step, result);
    step = compose(step, step);
  }
  column_ = result;
}

uint32_t Crc32Zeros::apply(uint32_t state) const noexcept {
  return times(column_, state);
}

BthOpcode bth_opcode(bool write, uint32_t index, uint32_t count) noexcept {
  if (count <= 1) return write ? BthOpcode::write_only : BthOpcode::send_only;
  if (index == 0) return write ? BthOpcode::write_first : BthOpcode::send_first;
  if (index + 1 == count) return write ? BthOpcode::write_last : BthOpcode::send_last;
  return write ? BthOpcode::write_middle : BthOpcode::send_middle;
}

RoceTemplate::RoceTemplate(const RoceSpec& spec) noexcept : spec_(spec), eth_(spec.frame) {}

uint32_t RoceTemplate::frame_length(uint32_t payload_bytes, bool reth) const noexcept {
  return eth_.header_bytes() + kBthBytes + (reth ? kRethBytes : 0) + payload_bytes +
         pad_of(payload_bytes) + kIcrcBytes;
}

const Crc32Zeros& RoceTemplate::zeros(uint32_t n) noexcept {
  for (const auto& z : zeros_) {
    if (z.bytes() == n) return z;
  }
  Crc32Zeros& slot = zeros_[zeros_next_];
  zeros_next_ = (zeros_next_ + 1) % zeros_.size();
  slot = Crc32Zeros(n);
  return slot;
}

uint32_t RoceTemplate::write(uint8_t* frame, const RocePacket& packet) noexcept {
  const auto opcode = static_cast<uint8_t>(bth_opcode(spec_.write, packet.index, packet.count));
  const bool reth = opcode_has_reth(opcode);
  const uint32_t pad = pad_of(packet.payload_bytes);
  const uint32_t length = frame_length(packet.payload_bytes, reth);
  // Ethernet/IPv4/UDP with lengths and IP checksum; its payload header lands where the BTH
  // goes and is overwritten below.
  eth_.write(frame, length, packet.header);
  const uint32_t ip_offset = eth_.header_bytes() - kUdpHeaderBytes - kIpv4HeaderBytes;
  uint8_t* bth = frame + eth_.header_bytes();
  bth[0] = opcode;
  bth[1] = static_cast<uint8_t>(0x40 | (pad << 4));  // M (migrated: RoCE QPs are), pad, TVer 0
  put16(bth + 2, spec_.pkey);
  bth[4] = 0;  // FECN, BECN, reserved
  put24(bth + 5, spec_.dest_qp);
  bth[8] = opcode_ends_message(opcode) ? 0x80 : 0;  // AckReq on the message's last packet
  put24(bth + 9, packet.psn);
  uint8_t* p = bth + kBthBytes;
  if (reth) {
    put32(p, static_cast<uint32_t>(spec_.remote_va >> 32));
    put32(p + 4, static_cast<uint32_t>(spec_.remote_va));
    put32(p + 8, spec_.rkey);
    put32(p + 12, packet.message_bytes);
    p += kRethBytes;
  }
  put16(p, packet.header.flow);
  put32(p + 2, packet.header.sequence);
  put32(p + 6, packet.header.tx_tsc);
  put32(p + 10, packet.header.lateness_ns);
  const uint32_t zero_bytes = packet.payload_bytes - kPayloadHeaderBytes + pad;
  std::memset(p + kPayloadHeaderBytes, 0, zero_bytes);

  // ICRC: the masked headers, the bytes up to the end of the payload header, then the zeros.
  uint8_t masked[kMaskedBytes];
  std::memcpy(masked, frame + ip_offset, kMaskedBytes);
  mask_variant_fields(masked);
  uint32_t state = crc32_update(lrh_state(), masked, kMaskedBytes);
  uint8_t* after_bth = bth + kBthBytes;
  state =
      crc32_update(state, after_bth, static_cast<uint32_t>(p + kPayloadHeaderBytes - after_bth));
  state = zeros(zero_bytes).apply(state);
  const uint32_t icrc = ~state;
  uint8_t* out = p + kPayloadHeaderBytes + zero_bytes;
  out[0] = static_cast<uint8_t>(icrc);  // least significant byte first, like the FCS
  out[1] = static_cast<uint8_t>(icrc >> 8);
  out[2] = static_cast<uint8_t>(icrc >> 16);
  out[3] = static_cast<uint8_t>(icrc >> 24);
  return length;
}

bool parse_roce_frame(const uint8_t* frame, uint32_t length, ParsedRoce& out) noexcept {
  constexpr uint32_t kMinRoce = kBthBytes + kPayloadHeaderBytes + kIcrcBytes;
  UdpFrame udp;
  if (!parse_udp_frame(frame, length, kRoceUdpPort, kMinRoce, udp)) return false;
  out.vlan = udp.vlan;
  out.pcp = udp.pcp;
  const uint32_t ip_length = udp.ip_length;
  const uint8_t* bth = udp.udp_payload;
  const uint8_t opcode = bth[0];
  switch (static_cast<BthOpcode>(opcode)) {
    case BthOpcode::send_first:
    case BthOpcode::send_middle:
    case BthOpcode::send_last:
    case BthOpcode::send_only:
    case BthOpcode::write_first:
    case BthOpcode::write_middle:
    case BthOpcode::write_last:
    case BthOpcode::write_only:
      break;
    default:
      return false;
  }
  const uint32_t reth = opcode_has_reth(opcode) ? kRethBytes : 0;
  const uint32_t pad = (bth[1] >> 4) & 3;
  const uint32_t headers = kIpv4HeaderBytes + kUdpHeaderBytes + kBthBytes + reth;
  if (ip_length < headers + kPayloadHeaderBytes + pad + kIcrcBytes) return false;
  out.opcode = opcode;
  out.dest_qp = get24(bth + 5);
  out.psn = get24(bth + 9);
  out.payload_bytes = ip_length - headers - pad - kIcrcBytes;
  out.dscp = udp.dscp;
  out.ecn = udp.ecn;
  out.header = read_payload_header(bth + kBthBytes + reth);
  return true;
}

}  // namespace qb::drv::dpdk
