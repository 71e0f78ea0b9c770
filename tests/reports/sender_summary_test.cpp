// A Tx-only run (DPDK with rx_port = "none") says at what rates it sent: per flow the goodput,
// wire rate and packets of what it posted, and the driver's Tx counters as goodput and wire
// rate, each column headed with its basis.
#include "qb/reports/sender_summary.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "sender_fixture.hpp"

namespace qb::report {
namespace {

std::string summary_of(uint64_t posted, double tx_frames, double tx_bytes) {
  const suite::Suite suite = testing::sender_only_suite();
  const engine::SuiteRun run =
      testing::sender_only_run(suite, testing::SenderCounts{posted, tx_frames, tx_bytes});
  std::ostringstream out;
  print_sender_summary(run, out);
  return out.str();
}

TEST(SenderSummary, TxOnlyTableGivesGoodputWireAndPacketRates) {
  // One second (warm-up included) of 1e6 frames of 1000 bytes: 8 Gbit/s of frames, 8.16 Gbit/s
  // on the wire (20 bytes of preamble, SFD and inter-frame gap each), 1 Mpps.
  const std::string out = summary_of(1'000'000, 1e6, 1e9);
  for (const char* label : {"payload Gbit/s", "wire Gbit/s", "Mpps", "goodput", "posted"}) {
    EXPECT_NE(out.find(label), std::string::npos) << label << "\n" << out;
  }
  std::istringstream lines(out);
  std::string line;
  bool row = false;
  while (std::getline(lines, line)) {
    std::istringstream cells(line);
    std::string name, posted, late, goodput, wire, mpps;
    cells >> name >> posted >> late >> goodput >> wire >> mpps;
    if (name != "f") continue;
    row = true;
    EXPECT_EQ(posted, "1000000") << out;
    EXPECT_EQ(goodput, "8.000") << out;
    EXPECT_EQ(wire, "8.160") << out;
    EXPECT_EQ(mpps, "1.0000") << out;
  }
  EXPECT_TRUE(row) << out;
  EXPECT_NE(out.find("1.0000 Mpps"), std::string::npos) << out;
  EXPECT_NE(out.find("goodput 8.000 Gbit/s"), std::string::npos) << out;
  EXPECT_NE(out.find("wire 8.160 Gbit/s"), std::string::npos) << out;
}

TEST(SenderSummary, TotalsKeepTheRatesForTheJson) {
  const suite::Suite suite = testing::sender_only_suite();
  const engine::SuiteRun run =
      testing::sender_only_run(suite, testing::SenderCounts{500, 500.0, 500000.0});
  const auto totals = sender_totals(run);
  ASSERT_EQ(totals.size(), 1u);
  ASSERT_EQ(totals[0].flows.size(), 1u);
  EXPECT_DOUBLE_EQ(totals[0].flows[0].posted_payload_bytes, 500.0 * 1000.0);
  EXPECT_DOUBLE_EQ(totals[0].flows[0].posted_wire_bytes, 500.0 * 1020.0);
  EXPECT_DOUBLE_EQ(totals[0].flows[0].posted_packets, 500.0);
  EXPECT_DOUBLE_EQ(totals[0].tx_goodput_bps(), 500000.0 * 8.0);
  ASSERT_TRUE(totals[0].tx_wire_bps().has_value());
  EXPECT_DOUBLE_EQ(*totals[0].tx_wire_bps(), 510000.0 * 8.0);
}

}  // namespace
}  // namespace qb::report
