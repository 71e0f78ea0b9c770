// RoCEv2 frames: opcodes per packet of a message, the ICRC (the fast zero-run path against a
// CRC over every byte, and the CRC-32 check value), lengths matching the rocev2 wire model,
// parsing back; and a pcap of them dissected by tshark (skipped when tshark is missing), whose
// ICRCs an independent Python implementation (tests/dpdk/roce_icrc_check.py) checks.
#include "roce_frame.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "qb/policies/wire.hpp"

namespace qb::drv::dpdk {
namespace {

RoceSpec example_spec(bool write, bool vlan) {
  RoceSpec spec;
  spec.frame.dst_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  spec.frame.src_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  spec.frame.vlan = vlan;
  spec.frame.vlan_id = 100;
  spec.frame.pcp = 3;
  spec.frame.dscp = 26;
  spec.frame.ecn = 2;  // ECT(0)
  spec.frame.src_ip = 0xc0a80001;
  spec.frame.dst_ip = 0xc0a800c7;
  spec.frame.src_port = 49152;
  spec.frame.dst_port = kRoceUdpPort;
  spec.write = write;
  spec.dest_qp = 0x000123;
  spec.rkey = 0x1234;
  spec.remote_va = 0x7f0000001000;
  return spec;
}

// The packets of one message of `bytes` over `mtu`, PSNs from `psn`.
std::vector<std::vector<uint8_t>> message_frames(RoceTemplate& t, uint32_t bytes, uint32_t mtu,
                                                 uint32_t& psn, uint32_t sequence) {
  const policy::WireModel wire{policy::Transport::rocev2, mtu};
  const uint32_t count = wire.packets_for_message(bytes);
  std::vector<std::vector<uint8_t>> frames;
  for (uint32_t i = 0; i < count; ++i) {
    RocePacket p;
    p.payload_bytes = wire.packet_payload_bytes(bytes, i);
    p.index = i;
    p.count = count;
    p.psn = psn++;
    p.message_bytes = bytes;
    p.header = PayloadHeader{7, sequence, 0x11223344, 5};
    std::vector<uint8_t> frame(t.frame_length(p.payload_bytes, true) + 64, 0xaa);
    frame.resize(t.write(frame.data(), p));
    frames.push_back(std::move(frame));
  }
  return frames;
}

TEST(RoceFrame, Crc32CheckValue) {
  const std::string check = "123456789";
  EXPECT_EQ(~crc32_update(0xffffffff, reinterpret_cast<const uint8_t*>(check.data()), 9),
            0xcbf43926u);
}

// Linux rxe (drivers/infiniband/sw/rxe/rxe_icrc.c) seeds its ICRC with this: the CRC state
// after 8 bytes of 1s (the masked LRH) from 0xffffffff.
TEST(RoceFrame, MaskedLrhSeedIsTheOneRxeUses) {
  const uint8_t ones[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(crc32_update(0xffffffff, ones, 8), 0xdebb20e3u);
}

TEST(RoceFrame, ZeroRunMapEqualsBytewiseCrc) {
  const std::vector<uint8_t> zeros(5000, 0);
  for (uint32_t n : {0u, 1u, 3u, 64u, 4082u, 4999u}) {
    EXPECT_EQ(Crc32Zeros(n).apply(0x89abcdef), crc32_update(0x89abcdef, zeros.data(), n)) << n;
  }
}

TEST(RoceFrame, OpcodesPerPacket) {
  EXPECT_EQ(bth_opcode(true, 0, 1), BthOpcode::write_only);
  EXPECT_EQ(bth_opcode(true, 0, 3), BthOpcode::write_first);
  EXPECT_EQ(bth_opcode(true, 1, 3), BthOpcode::write_middle);
  EXPECT_EQ(bth_opcode(true, 2, 3), BthOpcode::write_last);
  EXPECT_EQ(bth_opcode(false, 0, 1), BthOpcode::send_only);
  EXPECT_EQ(bth_opcode(false, 0, 2), BthOpcode::send_first);
  EXPECT_EQ(bth_opcode(false, 1, 2), BthOpcode::send_last);
}

TEST(RoceFrame, LengthsIcrcAndParseMatchTheWireModel) {
  for (bool write : {true, false}) {
    for (bool vlan : {false, true}) {
      RoceTemplate t(example_spec(write, vlan));
      policy::WireModel wire{policy::Transport::rocev2, 1024};
      wire.vlan = vlan;
      const auto op = write ? policy::RdmaOp::write : policy::RdmaOp::send;
      uint32_t psn = 0xfffffe;  // wraps at 2^24
      for (uint32_t bytes : {14u, 15u, 1024u, 3000u}) {
        const auto frames = message_frames(t, bytes, 1024, psn, 9);
        uint64_t wire_bytes = 0;
        for (size_t i = 0; i < frames.size(); ++i) {
          const auto& f = frames[i];
          const uint32_t ip_offset = vlan ? 18 : 14;
          const uint32_t icrc = f[f.size() - 4] | (f[f.size() - 3] << 8) | (f[f.size() - 2] << 16) |
                                (uint32_t{f[f.size() - 1]} << 24);
          EXPECT_EQ(icrc, roce_icrc(f.data(), static_cast<uint32_t>(f.size()), ip_offset));
          ParsedRoce parsed;
          ASSERT_TRUE(parse_roce_frame(f.data(), static_cast<uint32_t>(f.size()), parsed));
          EXPECT_EQ(parsed.opcode,
                    static_cast<uint8_t>(bth_opcode(write, static_cast<uint32_t>(i),
                                                    static_cast<uint32_t>(frames.size()))));
          EXPECT_EQ(parsed.dest_qp, 0x123u);
          EXPECT_EQ(parsed.payload_bytes,
                    wire.packet_payload_bytes(bytes, static_cast<uint32_t>(i)));
          EXPECT_EQ(parsed.header.flow, 7);
          EXPECT_EQ(parsed.header.sequence, 9u);
          EXPECT_EQ(parsed.dscp, 26);
          EXPECT_EQ(parsed.ecn, 2);
          // Ethernet pads short frames to 60 bytes; then FCS and L1 (20).
          wire_bytes += std::max<uint64_t>(f.size(), 60) + 4 + 20;
        }
        EXPECT_EQ(wire_bytes, wire.wire_bytes_for_message(bytes, op)) << bytes;
      }
    }
  }
}

void put_le32(std::ofstream& out, uint32_t v) {
  const uint8_t b[4] = {static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8),
                        static_cast<uint8_t>(v >> 16), static_cast<uint8_t>(v >> 24)};
  out.write(reinterpret_cast<const char*>(b), 4);
}

void write_pcap(const std::string& path, const std::vector<std::vector<uint8_t>>& frames) {
  std::ofstream out(path, std::ios::binary);
  put_le32(out, 0xa1b2c3d4);  // magic, microsecond timestamps
  put_le32(out, 0x00040002);  // version 2.4
  put_le32(out, 0);           // thiszone
  put_le32(out, 0);           // sigfigs
  put_le32(out, 65535);       // snaplen
  put_le32(out, 1);           // LINKTYPE_ETHERNET
  for (const auto& f : frames) {
    put_le32(out, 0);
    put_le32(out, 0);
    put_le32(out, static_cast<uint32_t>(f.size()));
    put_le32(out, static_cast<uint32_t>(f.size()));
    out.write(reinterpret_cast<const char*>(f.data()), static_cast<std::streamsize>(f.size()));
  }
}

std::string run(const std::string& command) {
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return output;
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  pclose(pipe);
  return output;
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(RoceFrame, TsharkDissectsBthPsnAndCorrectIcrc) {
  if (std::system("command -v tshark >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "tshark is not installed (scripts/setup.sh installs it with the DPDK packages)";
  }
  std::vector<std::vector<uint8_t>> frames;
  uint32_t psn = 100;
  RoceTemplate writes(example_spec(true, false));
  for (auto& f : message_frames(writes, 2500, 1024, psn, 1)) frames.push_back(std::move(f));
  RoceTemplate sends(example_spec(false, true));
  for (auto& f : message_frames(sends, 1500, 1024, psn, 2)) frames.push_back(std::move(f));
  const std::string path =
      (std::filesystem::temp_directory_path() / ("qb_roce_" + std::to_string(getpid()) + ".pcap"))
          .string();
  write_pcap(path, frames);
  // -r reads the file itself: no dumpcap, no capture privileges.
  const std::string out = run("tshark -n -r " + path + " -V 2>&1");
  // Wireshark 4.0 does not check the ICRC: an independent implementation of Annex A17's rules
  // (Python's zlib.crc32 over the masked headers) checks every frame, and must refuse a copy
  // with one payload bit flipped (the check can fail).
  const std::string checker = std::string(QB_SOURCE_DIR) + "/tests/dpdk/roce_icrc_check.py";
  const std::string icrc = run("python3 " + checker + " " + path + " 2>&1; echo exit=$?");
  std::vector<std::vector<uint8_t>> corrupted = frames;
  corrupted[1][corrupted[1].size() - 10] ^= 0x01;
  const std::string bad_path = path + ".bad.pcap";
  write_pcap(bad_path, corrupted);
  const std::string bad_icrc = run("python3 " + checker + " " + bad_path + " 2>&1; echo exit=$?");
  std::filesystem::remove(path);
  std::filesystem::remove(bad_path);
  EXPECT_NE(icrc.find("checked 5, bad 0"), std::string::npos) << icrc;
  EXPECT_NE(icrc.find("exit=0"), std::string::npos) << icrc;
  EXPECT_NE(bad_icrc.find("frame 2: ICRC"), std::string::npos) << bad_icrc;
  EXPECT_NE(bad_icrc.find("checked 5, bad 1"), std::string::npos) << bad_icrc;
  EXPECT_NE(bad_icrc.find("exit=1"), std::string::npos) << bad_icrc;
  SCOPED_TRACE(out);
  EXPECT_EQ(count_of(out, "Base Transport Header"), 5);
  EXPECT_EQ(count_of(out, "RETH - RDMA Extended Transport Header"), 1);
  EXPECT_NE(out.find("Opcode: Reliable Connection (RC) - RDMA WRITE First (6)"), std::string::npos);
  EXPECT_NE(out.find("RDMA WRITE Middle (7)"), std::string::npos);
  EXPECT_NE(out.find("RDMA WRITE Last (8)"), std::string::npos);
  EXPECT_NE(out.find("SEND First (0)"), std::string::npos);
  EXPECT_NE(out.find("SEND Last (2)"), std::string::npos);
  EXPECT_EQ(count_of(out, "Destination Queue Pair: 0x000123"), 5);
  for (int p = 100; p < 105; ++p) {
    EXPECT_NE(out.find("Packet Sequence Number: " + std::to_string(p)), std::string::npos) << p;
  }
  // Wireshark 4.0 (Debian 12) shows the ICRC without checking it; later ones say "[correct]".
  EXPECT_EQ(count_of(out, "Invariant CRC: 0x"), 5);
  EXPECT_EQ(out.find("incorrect"), std::string::npos);
  EXPECT_EQ(out.find("Bad"), std::string::npos);
  EXPECT_EQ(out.find("Malformed"), std::string::npos);
}

}  // namespace
}  // namespace qb::drv::dpdk
