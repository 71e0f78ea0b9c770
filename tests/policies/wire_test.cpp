#include "qb/policies/wire.hpp"

#include <gtest/gtest.h>

namespace qb::policy {
namespace {

TEST(WireModel, RoceV2PerPacketOverheadIsReference8) {
  WireModel wire{Transport::rocev2, 4096};
  // Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/SFD 8 + IFG 12.
  EXPECT_EQ(wire.per_packet_overhead_bytes(), 82u);
  EXPECT_EQ(wire.packet_wire_bytes(4096, true, RdmaOp::write), 4096u + 82u + 16u);
  EXPECT_EQ(wire.packet_wire_bytes(4096, true, RdmaOp::send), 4096u + 82u);
  EXPECT_EQ(wire.wire_bytes_for_message(4096, RdmaOp::write), 4194u);
  wire.ipv6 = true;
  wire.vlan = true;
  EXPECT_EQ(wire.per_packet_overhead_bytes(), 82u + 20u + 4u);
}

TEST(WireModel, RdmaMessagesSegmentAtMtuWithRethOnFirstPacketOnly) {
  WireModel wire{Transport::rocev2, 1024};
  EXPECT_EQ(wire.packets_for_message(3000), 3u);
  EXPECT_EQ(wire.packet_payload_bytes(3000, 0), 1024u);
  EXPECT_EQ(wire.packet_payload_bytes(3000, 2), 952u);
  const uint64_t expected = (1024 + 82 + 16) + (1024 + 82) + (952 + 82);
  EXPECT_EQ(wire.wire_bytes_for_message(3000, RdmaOp::write), expected);
  EXPECT_EQ(wire.packets_for_message(1024), 1u);
  EXPECT_EQ(wire.packets_for_message(1025), 2u);
}

// READ responses: AETH (4 bytes) on the first and the last packet (Response First/Last), on the
// only one of a one-packet message, none on the middle ones.
TEST(WireModel, ReadResponsesCarryAethOnFirstAndLastPacket) {
  WireModel wire{Transport::rocev2, 1024};
  EXPECT_EQ(wire.wire_bytes_for_message(3000, RdmaOp::read),
            (1024 + 82 + 4) + (1024 + 82) + (952 + 82 + 4));
  EXPECT_EQ(wire.wire_bytes_for_message(1000, RdmaOp::read), 1000u + 82 + 4);
  EXPECT_EQ(wire.packet_wire_bytes(1024, false, RdmaOp::read, true), 1024u + 82 + 4);
  EXPECT_EQ(wire.packet_wire_bytes(1024, false, RdmaOp::read, false), 1024u + 82);
  // The last-packet extra is READ's only.
  EXPECT_EQ(wire.packet_wire_bytes(1024, false, RdmaOp::write, true), 1024u + 82);
  EXPECT_EQ(op_name(RdmaOp::read), "read");
}

TEST(WireModel, PayloadIsPaddedToFourBytesAndFramesToSixtyFour) {
  WireModel roce{Transport::rocev2, 4096};
  // 1 B payload: pad to 4 -> frame 14+20+8+12+4+4+4 = 66 >= 64, + L1 20.
  EXPECT_EQ(roce.packet_wire_bytes(1, false, RdmaOp::send), 86u);
  WireModel ib{Transport::ib, 4096};
  EXPECT_EQ(ib.per_packet_overhead_bytes(), 8u + 12u + 4u + 2u);
  EXPECT_EQ(ib.packet_wire_bytes(5, false, RdmaOp::send), 8u + 26u);
  ib.ib_grh = true;
  EXPECT_EQ(ib.per_packet_overhead_bytes(), 66u);
}

TEST(WireModel, EthernetMessageIsTheFrame) {
  WireModel eth{Transport::eth, 1500};
  EXPECT_EQ(eth.packets_for_message(1518), 1u);
  EXPECT_EQ(eth.wire_bytes_for_message(64, RdmaOp::write), 84u);  // 64 B frame = 84 B on wire
  EXPECT_EQ(eth.wire_bytes_for_message(1518, RdmaOp::send), 1538u);
  EXPECT_EQ(eth.max_message_bytes(), 1518u);
  EXPECT_EQ(eth.min_message_bytes(), 64u);
  eth.vlan = true;
  EXPECT_EQ(eth.max_message_bytes(), 1522u);
}

}  // namespace
}  // namespace qb::policy
