#include "qb/policies/port_arbiter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace qb::policy {
namespace {

constexpr double kLinkBps = 100e9;

PortQos vlarb(std::vector<VlArbEntry> high, std::vector<VlArbEntry> low, uint8_t high_limit) {
  PortQos qos;
  qos.kind = PortQos::Kind::vlarb;
  qos.ib.op_vls = 4;
  qos.ib.tables.vlarb_high = std::move(high);
  qos.ib.tables.vlarb_low = std::move(low);
  qos.ib.tables.high_limit = high_limit;
  return qos;
}

PortQos ets(std::array<TcSelect, 8> tsa, std::array<uint8_t, 8> percent) {
  PortQos qos;
  qos.kind = PortQos::Kind::ets;
  qos.eth = default_eth_port_qos();
  qos.eth.tsa = tsa;
  qos.eth.ets_percent = percent;
  return qos;
}

constexpr auto V = TcSelect::vendor;
constexpr auto S = TcSelect::strict;
constexpr auto E = TcSelect::ets;

// Every class in `mask` always backlogged; returns the classes picked, `count` packets, each of
// packet_bytes[class] wire bytes, back to back on a link of kLinkBps (ps, exact remainder).
std::string sequence(PortArbiter& arbiter, uint32_t mask, const std::array<uint32_t, 16>& bytes,
                     int count) {
  std::string out;
  int64_t now = 0;
  for (int i = 0; i < count; ++i) {
    const int c = arbiter.pick(mask, now);
    if (c == PortArbiter::kNone) return out + "-";
    arbiter.sent(static_cast<uint32_t>(c), bytes[static_cast<size_t>(c)], now);
    now += static_cast<int64_t>(bytes[static_cast<size_t>(c)]) * 80;  // 100 Gbit/s: 80 ps/B
    out += static_cast<char>('0' + c);
  }
  return out;
}

std::array<uint32_t, 16> all(uint32_t bytes) {
  std::array<uint32_t, 16> a{};
  a.fill(bytes);
  return a;
}

TEST(PortArbiter, NoneIsOneClass) {
  PortArbiter arbiter(PortQos{}, kLinkBps);
  EXPECT_EQ(arbiter.class_count(), 1U);
  EXPECT_EQ(arbiter.pick(1, 0), 0);
  EXPECT_EQ(arbiter.pick(0, 0), PortArbiter::kNone);
  EXPECT_EQ(arbiter.next_eligible_ps(1), INT64_MAX);
}

TEST(PortArbiter, VlArb64_128_192With4KiBPackets) {
  // 4096 B = 64 credits: the weights give 1, 2 and 3 packets per turn.
  PortArbiter arbiter(vlarb({}, {{1, 64}, {2, 128}, {3, 192}}, 0), kLinkBps);
  EXPECT_EQ(arbiter.class_count(), 15U);
  EXPECT_EQ(sequence(arbiter, 0b1110, all(4096), 18), "122333122333122333");
}

TEST(PortArbiter, VlArbWeightsCountWholeCredits) {
  // 4122 B (a 4 KiB IB packet on the wire) = ceil(4122/64) = 65 credits. Weight 64 still sends
  // one packet (the packet that overruns completes), weight 65 one packet too, weight 66 two:
  // shares 1:1:2 where the weights say 64:65:66.
  PortArbiter arbiter(vlarb({}, {{1, 64}, {2, 65}, {3, 66}}, 0), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b1110, all(4122), 12), "123312331233");
}

TEST(PortArbiter, VlArbWeightOneGetsAPacketPerTurn) {
  // Weight 1 against 64 with 4 KiB packets: 1:1, not 1:64.
  PortArbiter arbiter(vlarb({}, {{1, 1}, {2, 64}}, 0), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b110, all(4096), 6), "121212");
}

TEST(PortArbiter, VlArbSmallPacketsUseWholeCredits) {
  // 65 B = 2 credits; weight 3: 3 -> 1 -> -1, two packets. 64 B = 1 credit; weight 3: three.
  PortArbiter arbiter(vlarb({}, {{1, 3}, {2, 3}}, 0), kLinkBps);
  std::array<uint32_t, 16> bytes = all(0);
  bytes[1] = 65;
  bytes[2] = 64;
  EXPECT_EQ(sequence(arbiter, 0b110, bytes, 10), "1122211222");
}

TEST(PortArbiter, VlArbSkipsWeightZeroAndEmptyVls) {
  PortArbiter arbiter(vlarb({}, {{1, 0}, {2, 64}, {3, 64}}, 0), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b1110, all(4096), 4), "2323");  // VL1 has weight 0
  EXPECT_EQ(sequence(arbiter, 0b0100, all(4096), 3), "222");   // VL3 empty: VL2 keeps going
}

TEST(PortArbiter, VlNotInAnyTableNeverSends) {
  PortArbiter arbiter(vlarb({{0, 4}}, {{1, 4}}, 0), kLinkBps);
  EXPECT_EQ(arbiter.pick(1U << 5, 0), PortArbiter::kNone);
  EXPECT_EQ(arbiter.pick((1U << 5) | 0b10, 0), 1);
}

TEST(PortArbiter, VlBeyondOperationalVlsNeverSends) {
  PortQos qos = vlarb({}, {{1, 4}, {2, 4}}, 0);
  qos.ib.op_vls = 2;  // VL0-1
  PortArbiter arbiter(qos, kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b110, all(4096), 3), "111");
  EXPECT_EQ(arbiter.pick(0b100, 0), PortArbiter::kNone);
}

TEST(PortArbiter, HighLimitZeroAlternates) {
  PortArbiter arbiter(vlarb({{0, 255}}, {{1, 255}}, 0), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b11, all(4096), 8), "01010101");
}

TEST(PortArbiter, HighLimitSixLetsSixPacketsThrough) {
  // 6 x 4096 B of high data, then one low packet (the low entry has credit for many more).
  PortArbiter arbiter(vlarb({{0, 255}}, {{1, 255}}, 6), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b11, all(4096), 14), "00000010000001");
}

TEST(PortArbiter, HighLimitCrossingPacketCompletes) {
  // 4122 B packets: after 5 the count (20610) is below 24576, so a sixth goes (24732).
  PortArbiter arbiter(vlarb({{0, 255}}, {{1, 255}}, 6), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b11, all(4122), 7), "0000001");
}

TEST(PortArbiter, HighLimit255StarvesLow) {
  PortArbiter arbiter(vlarb({{0, 255}}, {{1, 255}}, 255), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b11, all(4096), 10), "0000000000");
  EXPECT_EQ(sequence(arbiter, 0b10, all(4096), 2), "11");
}

TEST(PortArbiter, HighLimitCountRestartsWhenLowIsIdle) {
  PortArbiter arbiter(vlarb({{0, 255}}, {{1, 255}}, 1), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b01, all(4096), 3), "000");  // low idle: the count restarts
  // The last high packet counted (4096 B = the limit): low goes first.
  EXPECT_EQ(sequence(arbiter, 0b11, all(4096), 4), "1010");
}

TEST(PortArbiter, Ets60_40PacketCounts) {
  PortArbiter arbiter(ets({E, E, V, V, V, V, V, V}, {60, 40, 0, 0, 0, 0, 0, 0}), kLinkBps);
  const std::string seq = sequence(arbiter, 0b11, all(4096), 10000);
  const auto tc0 = std::count(seq.begin(), seq.end(), '0');
  EXPECT_NEAR(static_cast<double>(tc0), 6000.0, 2.0);
  // Quanta 6144 B and 4096 B per round: TC0 sends 2, 1, 2, 1 ... packets, TC1 one.
  PortArbiter fresh(ets({E, E, V, V, V, V, V, V}, {60, 40, 0, 0, 0, 0, 0, 0}), kLinkBps);
  EXPECT_EQ(sequence(fresh, 0b11, all(4096), 10), "0010100101");
}

TEST(PortArbiter, Ets60_40SharesBytesNotPackets) {
  // TC0 with 1000 B packets, TC1 with 4000 B: bytes split 60/40.
  PortArbiter arbiter(ets({E, E, V, V, V, V, V, V}, {60, 40, 0, 0, 0, 0, 0, 0}), kLinkBps);
  std::array<uint32_t, 16> bytes = all(0);
  bytes[0] = 1000;
  bytes[1] = 4000;
  const std::string seq = sequence(arbiter, 0b11, bytes, 20000);
  const double b0 = 1000.0 * static_cast<double>(std::count(seq.begin(), seq.end(), '0'));
  const double b1 = 4000.0 * static_cast<double>(std::count(seq.begin(), seq.end(), '1'));
  EXPECT_NEAR(b0 / (b0 + b1), 0.6, 0.001);
}

TEST(PortArbiter, StrictStarvesLowerGroups) {
  // TC2 strict (group 1) above ETS TC0/TC1 (group 0); TC3 strict is group 2, above TC2.
  PortArbiter arbiter(ets({E, E, S, S, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0}), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b0111, all(1500), 5), "22222");
  EXPECT_EQ(sequence(arbiter, 0b1111, all(1500), 3), "333");
  EXPECT_EQ(sequence(arbiter, 0b0011, all(4096), 4), "0101");
}

TEST(PortArbiter, VendorTcsAreTheTopGroup) {
  PortArbiter arbiter(ets({S, V, E, V, V, V, V, V}, {0, 0, 100, 0, 0, 0, 0, 0}), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b1011, all(4096), 4), "1313");  // vendor TC1/TC3 equal
  EXPECT_EQ(sequence(arbiter, 0b0101, all(4096), 2), "00");    // strict TC0 above ETS TC2
}

TEST(PortArbiter, ZeroPercentEtsSplitsTheLowestGroupEqually) {
  PortArbiter arbiter(ets({E, E, E, V, V, V, V, V}, {0, 100, 0, 0, 0, 0, 0, 0}), kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b111, all(4096), 3), "111");   // TC1 (group 1) first
  EXPECT_EQ(sequence(arbiter, 0b101, all(4096), 4), "0202");  // then TC0/TC2 equally
}

TEST(PortArbiter, CapHoldsATcToItsRate) {
  // TC0 capped at 10 Gbit/s on a 100 Gbit/s link, TC1 takes the rest (work conserving).
  PortQos qos = ets({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  qos.eth.tc_max_rate_bps[0] = 10e9;
  PortArbiter arbiter(qos, kLinkBps);
  // 1250 B: 100 ns on the link, 1 us of TC0's cap. 10000 packets = 1 ms.
  const std::string seq = sequence(arbiter, 0b11, all(1250), 10000);
  const auto tc0 = std::count(seq.begin(), seq.end(), '0');
  // 1 ms at 10 Gbit/s = 1000 packets, plus the 20 us bucket (20) and the overdraft (1).
  EXPECT_GE(tc0, 1000);
  EXPECT_LE(tc0, 1021);
  EXPECT_EQ(seq.size(), 10000U);
}

TEST(PortArbiter, CappedAloneWaitsForItsTokens) {
  PortQos qos = ets({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  qos.eth.tc_max_rate_bps[0] = 1e9;  // 1250 B cost 10 us; the bucket holds 20 us
  PortArbiter arbiter(qos, kLinkBps);
  int64_t now = 0;
  int sent = 0;
  while (arbiter.pick(0b01, now) == 0) {
    arbiter.sent(0, 1250, now);
    ++sent;
  }
  EXPECT_EQ(sent, 3);  // 20 us of credit: two packets, and a third at zero tokens
  const int64_t next = arbiter.next_eligible_ps(0b01);
  EXPECT_EQ(next, 10'000'000);  // debt of 10 us at time 0
  EXPECT_EQ(arbiter.pick(0b01, next - 1), PortArbiter::kNone);
  EXPECT_EQ(arbiter.pick(0b01, next), 0);
  EXPECT_EQ(arbiter.next_eligible_ps(0b10), INT64_MAX);  // TC1 is not capped
}

TEST(PortArbiter, CapAtLineRateIsIgnored) {
  PortQos qos = ets({E, E, V, V, V, V, V, V}, {50, 50, 0, 0, 0, 0, 0, 0});
  qos.eth.tc_max_rate_bps[0] = 100e9;
  PortArbiter arbiter(qos, kLinkBps);
  EXPECT_EQ(sequence(arbiter, 0b01, all(9000), 100).size(), 100U);
  EXPECT_EQ(arbiter.next_eligible_ps(0b01), INT64_MAX);
}

}  // namespace
}  // namespace qb::policy
