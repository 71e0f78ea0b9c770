// Frames byte by byte: headers, lengths, the IPv4 checksum, the payload header; parsing them
// back; sequence and TSC extension across 32-bit wrap.
#include "packet_template.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace qb::drv::dpdk {
namespace {

FrameSpec example_spec(bool vlan) {
  FrameSpec spec;
  spec.dst_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  spec.src_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  spec.vlan = vlan;
  spec.vlan_id = 100;
  spec.pcp = 5;
  spec.dscp = 46;  // EF
  spec.ecn = 2;    // ECT(0)
  spec.ttl = 64;
  spec.src_ip = 0xc0a80001;  // 192.168.0.1
  spec.dst_ip = 0xc0a800c7;  // 192.168.0.199
  spec.src_port = 49152;
  spec.dst_port = 5142;
  return spec;
}

PayloadHeader example_payload() {
  PayloadHeader payload;
  payload.flow = 0x0102;
  payload.sequence = 0x03040506;
  payload.tx_tsc = 0x0708090a;
  payload.lateness_ns = 0x0b0c0d0e;
  return payload;
}

// RFC 1071 over the IPv4 header as written: a valid header sums to 0xffff.
uint16_t ones_complement_sum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i < n; i += 2) sum += static_cast<uint32_t>((p[i] << 8) | p[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(sum);
}

TEST(PacketTemplate, SixtyFourByteFrameWithoutVlan) {
  const PacketTemplate t(example_spec(false));
  EXPECT_EQ(t.header_bytes(), 42u);
  EXPECT_EQ(t.min_length(), 56u);
  std::vector<uint8_t> frame(60, 0xee);
  t.write(frame.data(), 60, example_payload());
  const std::vector<uint8_t> expected = {
      // Ethernet: dst, src, IPv4
      0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
      // IPv4: 45, TOS = 46<<2|2 = 0xba, total length 46, id 0, DF, TTL 64, UDP, checksum
      0x45, 0xba, 0x00, 0x2e, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb7, 0xec, 0xc0, 0xa8, 0x00,
      0x01, 0xc0, 0xa8, 0x00, 0xc7,
      // UDP: 49152 -> 5142, length 26, no checksum
      0xc0, 0x00, 0x14, 0x16, 0x00, 0x1a, 0x00, 0x00,
      // payload header
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
      // the rest of the frame is untouched
      0xee, 0xee, 0xee, 0xee};
  EXPECT_EQ(frame, expected);
  EXPECT_EQ(ones_complement_sum(frame.data() + 14, 20), 0xffff);
}

TEST(PacketTemplate, VlanTagCarriesPcpAndVid) {
  const PacketTemplate t(example_spec(true));
  EXPECT_EQ(t.header_bytes(), 46u);
  EXPECT_EQ(t.min_length(), 60u);  // a 64-byte frame with FCS still holds the payload header
  std::array<uint8_t, 60> frame{};
  t.write(frame.data(), 60, example_payload());
  // 0x8100, TCI = 5 << 13 | 100 = 0xa064, then IPv4.
  EXPECT_EQ(frame[12], 0x81);
  EXPECT_EQ(frame[13], 0x00);
  EXPECT_EQ(frame[14], 0xa0);
  EXPECT_EQ(frame[15], 0x64);
  EXPECT_EQ(frame[16], 0x08);
  EXPECT_EQ(frame[17], 0x00);
  EXPECT_EQ(frame[18], 0x45);
  EXPECT_EQ(frame[20], 0x00);  // IP total length 60 - 18 = 42
  EXPECT_EQ(frame[21], 42);
  EXPECT_EQ(ones_complement_sum(frame.data() + 18, 20), 0xffff);
  EXPECT_EQ(frame[18 + 24], 0x00);  // UDP length 22
  EXPECT_EQ(frame[18 + 25], 22);
  EXPECT_EQ(frame[46], 0x01);  // payload header right after UDP
  EXPECT_EQ(frame[59], 0x0e);
}

TEST(PacketTemplate, ChecksumFollowsTheLength) {
  const PacketTemplate t(example_spec(false));
  for (uint32_t length : {56u, 60u, 61u, 1000u, 1514u, 9014u}) {
    std::vector<uint8_t> frame(length);
    t.write(frame.data(), length, example_payload());
    EXPECT_EQ(ones_complement_sum(frame.data() + 14, 20), 0xffff) << length;
    EXPECT_EQ(static_cast<uint32_t>((frame[16] << 8) | frame[17]), length - 14) << length;
    EXPECT_EQ(static_cast<uint32_t>((frame[38] << 8) | frame[39]), length - 34) << length;
  }
}

// The fast path writes the same frame bytes as write(), and re-preparing for another length
// changes the lengths and the checksum with it.
TEST(PacketTemplate, PreparedWriteMatchesWrite) {
  const PayloadHeader payload = example_payload();
  for (bool vlan : {false, true}) {
    PacketTemplate t(example_spec(vlan));
    EXPECT_EQ(t.prepared_length(), 0u);
    for (uint32_t length : {t.min_length(), 64u, 100u, 1514u}) {
      std::vector<uint8_t> slow(std::max(length, kPrefixBytes), 0xee);
      std::vector<uint8_t> fast(std::max(length, kPrefixBytes), 0x55);
      t.write(slow.data(), length, payload);
      t.prepare(length, payload.flow);
      EXPECT_EQ(t.prepared_length(), length);
      t.write_prepared(fast.data(), payload.sequence, payload.tx_tsc, payload.lateness_ns);
      const uint32_t written = t.min_length();
      EXPECT_TRUE(std::equal(slow.begin(), slow.begin() + written, fast.begin()))
          << "vlan " << vlan << " length " << length;
      ParsedFrame parsed;
      ASSERT_TRUE(parse_frame(fast.data(), length, 5142, parsed)) << length;
      EXPECT_EQ(parsed.payload.flow, payload.flow);
      EXPECT_EQ(parsed.payload.sequence, payload.sequence);
      EXPECT_EQ(parsed.payload.tx_tsc, payload.tx_tsc);
      EXPECT_EQ(parsed.payload.lateness_ns, payload.lateness_ns);
    }
  }
}

TEST(PacketTemplate, ParsesWhatItWrites) {
  for (bool vlan : {false, true}) {
    const PacketTemplate t(example_spec(vlan));
    std::vector<uint8_t> frame(128);
    t.write(frame.data(), 128, example_payload());
    ParsedFrame parsed;
    ASSERT_TRUE(parse_frame(frame.data(), 128, 5142, parsed)) << vlan;
    EXPECT_EQ(parsed.vlan, vlan);
    EXPECT_EQ(parsed.pcp, vlan ? 5 : 0);
    EXPECT_EQ(parsed.dscp, 46);
    EXPECT_EQ(parsed.ecn, 2);
    EXPECT_EQ(parsed.src_port, 49152);
    EXPECT_EQ(parsed.payload.flow, 0x0102);
    EXPECT_EQ(parsed.payload.sequence, 0x03040506u);
    EXPECT_EQ(parsed.payload.tx_tsc, 0x0708090au);
    EXPECT_EQ(parsed.payload.lateness_ns, 0x0b0c0d0eu);
  }
}

TEST(PacketTemplate, RejectsForeignAndDamagedFrames) {
  const PacketTemplate t(example_spec(false));
  std::vector<uint8_t> frame(100);
  t.write(frame.data(), 100, example_payload());
  ParsedFrame parsed;
  EXPECT_FALSE(parse_frame(frame.data(), 100, 5143, parsed));  // another UDP port
  EXPECT_FALSE(parse_frame(frame.data(), 99, 5142, parsed));   // IP length beyond the frame
  EXPECT_TRUE(parse_frame(frame.data(), 100, 5142, parsed));
  auto damaged = frame;
  damaged[12] = 0x86;  // IPv6 EtherType
  damaged[13] = 0xdd;
  EXPECT_FALSE(parse_frame(damaged.data(), 100, 5142, parsed));
  damaged = frame;
  damaged[23] = 6;  // TCP
  EXPECT_FALSE(parse_frame(damaged.data(), 100, 5142, parsed));
  damaged = frame;
  damaged[39] ^= 1;  // UDP length disagrees with IP length
  EXPECT_FALSE(parse_frame(damaged.data(), 100, 5142, parsed));
  EXPECT_FALSE(parse_frame(frame.data(), 40, 5142, parsed));  // truncated
  // Padding beyond the IP length (a short frame padded to 60 bytes) is fine.
  std::vector<uint8_t> padded(120, 0);
  t.write(padded.data(), 100, example_payload());
  EXPECT_TRUE(parse_frame(padded.data(), 120, 5142, parsed));
}

TEST(PacketTemplate, SequenceExtension) {
  EXPECT_EQ(extend_sequence(0, 0), 0u);
  EXPECT_EQ(extend_sequence(5, 3), 5u);                          // a gap
  EXPECT_EQ(extend_sequence(2, 3), 2u);                          // late
  EXPECT_EQ(extend_sequence(0xffffffffu, 0), 0xffffffffu);       // cannot go below 0: first epoch
  EXPECT_EQ(extend_sequence(1, 0xffffffffull), 0x100000001ull);  // across the wrap
  EXPECT_EQ(extend_sequence(0xfffffffeu, 0x100000001ull), 0xfffffffeull);  // late, before it
  EXPECT_EQ(extend_sequence(7, 0x500000000ull), 0x500000007ull);
}

TEST(PacketTemplate, TscExtension) {
  EXPECT_EQ(extend_tsc(100, 1000), 100u);
  EXPECT_EQ(extend_tsc(1000, 1000), 1000u);
  // Sent just before the low 32 bits wrapped, received just after.
  EXPECT_EQ(extend_tsc(0xfffffff0u, 0x700000010ull), 0x6fffffff0ull);
  EXPECT_EQ(extend_tsc(0x10, 0x700000020ull), 0x700000010ull);
}

}  // namespace
}  // namespace qb::drv::dpdk
