// The port's counters: names read from a sysfs tree shaped like a ConnectX's (under a root
// override), `ethtool -S` output, deltas, and the reconciliation checks failing when a counter
// disagrees with the run.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "qb/nic/counter_checks.hpp"
#include "qb/nic/port_counters.hpp"
#include "qb/nic/recorded.hpp"

namespace qb::nic {
namespace {

namespace fs = std::filesystem;
const std::string kFixtures = std::string(QB_SOURCE_DIR) + "/tests/nic/fixtures";

uint64_t value_of(const CounterSet& set, const std::string& name) {
  for (const auto& [n, v] : set.values) {
    if (n == name) return v;
  }
  ADD_FAILURE() << name << " not read";
  return 0;
}

TEST(PortCounters, HwCounterNamesComeFromTheDevice) {
  const CounterSet hw = read_rdma_hw_counters(kFixtures + "/roce_ets", "mlx5_0", 1);
  EXPECT_TRUE(hw.note.empty()) << hw.note;
  EXPECT_EQ(hw.source, "rdma");
  // Every file of the directory but the `lifespan` setting, in name order.
  ASSERT_EQ(hw.values.size(), 14U);
  EXPECT_EQ(hw.values.front().first, "duplicate_request");
  for (const auto& [name, value] : hw.values) EXPECT_NE(name, "lifespan");
  EXPECT_EQ(value_of(hw, "np_cnp_sent"), 28U);
  const CounterSet port = read_rdma_port_counters(kFixtures + "/roce_ets", "mlx5_0", 1);
  EXPECT_EQ(value_of(port, "port_xmit_data"), 1000U);
}

TEST(PortCounters, AnotherFirmwaresNamesAreReadAsTheyAre) {
  const fs::path root = fs::temp_directory_path() /
                        (std::string("qb_nic_other_fw") + "." + std::to_string(::getpid()));
  const fs::path dir = root / "sys/class/infiniband/rxe0/ports/1/hw_counters";
  fs::create_directories(dir);
  std::ofstream(dir / "rcvd_pkts") << "17\n";
  std::ofstream(dir / "sent_pkts") << "19\n";
  std::ofstream(dir / "broken") << "n/a\n";
  const CounterSet hw = read_rdma_hw_counters(root.string(), "rxe0", 1);
  EXPECT_EQ(value_of(hw, "rcvd_pkts"), 17U);
  EXPECT_EQ(value_of(hw, "sent_pkts"), 19U);
  EXPECT_NE(hw.note.find("broken"), std::string::npos);  // said, not a crash
  fs::remove_all(root);
}

TEST(PortCounters, AMissingTreeIsANoteNotACrash) {
  // A VF or a container without sysfs: no directory.
  const CounterSet hw = read_rdma_hw_counters("/nonexistent", "mlx5_3", 1);
  EXPECT_TRUE(hw.values.empty());
  EXPECT_NE(hw.note.find("/nonexistent/sys/class/infiniband/mlx5_3/ports/1/hw_counters"),
            std::string::npos);
  EXPECT_NE(hw.note.find("a VF, a container without sysfs"), std::string::npos);
  const CounterSet eth = make_recorded_ethtool_stats("/nonexistent")->read("eth7");
  EXPECT_TRUE(eth.values.empty());
  EXPECT_NE(eth.note.find("eth7"), std::string::npos);
  // The kernel's answer for an interface that is not there.
  const CounterSet real = make_ethtool_ioctl_stats()->read("qbnosuchif0");
  EXPECT_TRUE(real.values.empty());
  EXPECT_NE(real.note.find("qbnosuchif0"), std::string::npos);
}

TEST(PortCounters, EthtoolOutputAndDeltas) {
  const CounterSet before = parse_ethtool_s(
      "NIC statistics:\n     rx_prio3_bytes: 100\n     tx_prio3_pause: 4\n"
      "     tx_pause_storm_warning_events: 0\n     rx_vport_rdma_unicast_bytes: 9\n");
  const CounterSet after = parse_ethtool_s(
      "NIC statistics:\n     rx_prio3_bytes: 1100\n     tx_prio3_pause: 10\n"
      "     tx_pause_storm_warning_events: 0\n     rx_vport_rdma_unicast_bytes: 2\n");
  ASSERT_EQ(before.values.size(), 4U);
  std::vector<std::string> notes;
  const auto d = counter_deltas(before, after, notes);
  ASSERT_EQ(d.size(), 3U);
  EXPECT_EQ(d[0], (std::pair<std::string, double>{"rx_prio3_bytes", 1000.0}));
  EXPECT_EQ(d[1], (std::pair<std::string, double>{"tx_prio3_pause", 6.0}));
  ASSERT_EQ(notes.size(), 1U);  // the one that went down
  EXPECT_NE(notes[0].find("rx_vport_rdma_unicast_bytes"), std::string::npos);
  EXPECT_TRUE(counter_is_checked("ethtool", "tx_prio5_pause_duration"));
  EXPECT_TRUE(counter_is_checked("rdma", "rp_cnp_handled"));
  EXPECT_FALSE(counter_is_checked("ethtool", "tx_prio9_bytes"));
}

CounterCheckInput sender(std::array<double, 8> flow_bytes) {
  CounterCheckInput in;
  in.direction = CounterDirection::tx;
  in.flow_frame_bytes = flow_bytes;
  for (int p = 0; p < 8; ++p) in.deltas[fmt::format("ethtool.tx_prio{}_bytes", p)] = 0.0;
  return in;
}

CounterCheck find(const std::vector<CounterCheck>& checks, const std::string& name) {
  for (const auto& c : checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error(name);
}

TEST(CounterChecks, BytesOnTheFlowsPriorityAgree) {
  CounterCheckInput in = sender({300, 0, 0, 700, 0, 0, 0, 0});
  in.deltas["ethtool.tx_prio0_bytes"] = 3100;  // another 100 bytes of someone's traffic
  in.deltas["ethtool.tx_prio3_bytes"] = 7000;
  const CounterCheck c = find(check_counters(in), "priority_bytes");
  EXPECT_TRUE(c.checked && c.passed) << c.detail;
}

TEST(CounterChecks, MarkingThatLandedInAnotherPriorityFails) {
  // The suite's flows of priority 3 sent 70 %: the NIC counted everything on priority 0 (the
  // QP's traffic class ignored, or the port in PCP trust).
  CounterCheckInput in = sender({300, 0, 0, 700, 0, 0, 0, 0});
  in.deltas["ethtool.tx_prio0_bytes"] = 10'000;
  const CounterCheck c = find(check_counters(in), "priority_bytes");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("priority 3: the suite's flows of it sent 70% of the bytes, the NIC "
                          "counted 0% there (tx_prio3_bytes)"),
            std::string::npos)
      << c.detail;
  EXPECT_NE(c.detail.find("priority 0 counted 100% (30% expected)"), std::string::npos);
  // Loopback: not on the wire, not checked.
  in.direction = CounterDirection::loopback;
  EXPECT_FALSE(find(check_counters(in), "priority_bytes").checked);
}

TEST(CounterChecks, EcnMarksWithoutCnpsAndIgnoredCnpsFail) {
  CounterCheckInput in;
  in.suite_ecn = true;
  in.netdev = "ens1f0np0";
  in.deltas = {{"rdma.np_ecn_marked_roce_packets", 500},
               {"rdma.np_cnp_sent", 0},
               {"rdma.rp_cnp_handled", 0}};
  CounterCheck c = find(check_counters(in), "cnp_vs_ecn");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("500 ECN-marked RoCE packets arrived and no CNP was sent"),
            std::string::npos);
  EXPECT_NE(c.detail.find("/sys/class/net/ens1f0np0/ecn/roce_np/enable"), std::string::npos);
  in.deltas = {{"rdma.np_ecn_marked_roce_packets", 500},
               {"rdma.np_cnp_sent", 120},
               {"rdma.rp_cnp_handled", 120},
               {"rdma.rp_cnp_ignored", 0}};
  EXPECT_TRUE(find(check_counters(in), "cnp_vs_ecn").passed);
  in.deltas["rdma.rp_cnp_ignored"] = 7;
  EXPECT_FALSE(find(check_counters(in), "cnp_vs_ecn").passed);
  // Marks on a suite without ECN: DCQCN slowed what the expectations do not slow.
  in.suite_ecn = false;
  in.deltas["rdma.rp_cnp_ignored"] = 0;
  c = find(check_counters(in), "cnp_vs_ecn");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("models no ECN"), std::string::npos);
}

TEST(CounterChecks, PausesOnALossyPriorityFail) {
  CounterCheckInput in;
  in.lossless_known = true;
  in.lossless = 1 << 3;
  in.deltas = {{"ethtool.tx_prio3_pause", 40}, {"ethtool.rx_prio0_pause", 0}};
  EXPECT_TRUE(find(check_counters(in), "pause_on_lossy").passed);
  in.deltas["ethtool.rx_prio0_pause"] = 12;
  const CounterCheck c = find(check_counters(in), "pause_on_lossy");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("priority 0 (rx_prio0_pause 12)"), std::string::npos);
  in.lossless_known = false;  // the suite does not say
  EXPECT_FALSE(find(check_counters(in), "pause_on_lossy").checked);
}

TEST(CounterChecks, RetransmissionsOnALosslessFabricFail) {
  CounterCheckInput in;
  in.deltas = {{"rdma.out_of_sequence", 0}, {"rdma.local_ack_timeout_err", 0}};
  EXPECT_TRUE(find(check_counters(in), "retransmissions").passed);
  in.deltas["rdma.packet_seq_err"] = 3;
  EXPECT_FALSE(find(check_counters(in), "retransmissions").passed);
  in.suite_lossy = true;  // expected there
  EXPECT_TRUE(find(check_counters(in), "retransmissions").passed);
  CounterCheckInput none;  // a device without them
  EXPECT_FALSE(find(check_counters(none), "retransmissions").checked);
}

// The mlx5 PMD's xstats as DPDK 22.11 names them (drivers/net/mlx5/linux/mlx5_ethdev_os.c,
// mlx5_counters_init: the kernel's ethtool counters renamed, a subset) after the ethdev's own
// (rte_ethdev.c: rx_good_packets, per-queue rx_q0_*) and mlx5's packet pacing (tx_pp_*), as
// deltas of a receiving repetition. No per-priority bytes or pause counters among them.
CounterCheckInput mlx5_xstats_receiver() {
  CounterCheckInput in;
  in.direction = CounterDirection::rx;
  in.flow_frame_bytes = {0, 0, 0, 1'000'000, 0, 0, 0, 0};
  in.lossless_known = true;
  in.lossless = 1 << 3;
  for (const char* name :
       {"rx_good_packets", "rx_good_bytes", "rx_q0_packets", "rx_q0_bytes", "rx_unicast_bytes",
        "rx_unicast_packets", "rx_wqe_errors", "rx_phy_crc_errors", "rx_out_of_buffer",
        "rx_phy_packets", "rx_phy_bytes", "rx_phy_discard_packets",
        "tx_pp_missed_interrupt_errors"}) {
    in.deltas[fmt::format("dpdk.{}", name)] = 0.0;
  }
  in.deltas["dpdk.rx_phy_bytes"] = 1'000'000;
  for (int p = 0; p < 8; ++p) {
    in.deltas[fmt::format("dpdk.rx_prio{}_buf_discard_packets", p)] = 0.0;
    in.deltas[fmt::format("dpdk.rx_prio{}_cong_discard_packets", p)] = 0.0;
  }
  return in;
}

TEST(CounterChecks, Mlx5XstatsDiscardsOnALosslessPriorityFail) {
  CounterCheckInput in = mlx5_xstats_receiver();
  in.deltas["dpdk.rx_prio0_cong_discard_packets"] = 25;  // priority 0 is lossy: expected
  CounterCheck c = find(check_counters(in), "discards_on_lossless");
  EXPECT_TRUE(c.checked && c.passed) << c.detail;
  EXPECT_NE(c.detail.find("priority 0 (xstat rx_prio0_cong_discard_packets 25)"), std::string::npos)
      << c.detail;
  in.deltas["dpdk.rx_prio3_buf_discard_packets"] = 7;
  c = find(check_counters(in), "discards_on_lossless");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("lossless: priority 3 (xstat rx_prio3_buf_discard_packets 7)"),
            std::string::npos)
      << c.detail;
  EXPECT_TRUE(counter_is_checked("dpdk", "rx_prio3_buf_discard_packets"));
  EXPECT_FALSE(counter_is_checked("dpdk", "rx_phy_bytes"));
  // Bytes and pauses per priority: not among the mlx5 PMD's xstats, so not checked (said).
  c = find(check_counters(in), "priority_bytes");
  EXPECT_FALSE(c.checked);
  EXPECT_NE(c.detail.find("the mlx5 PMD's have none"), std::string::npos) << c.detail;
  EXPECT_FALSE(find(check_counters(in), "pause_on_lossy").checked);
  // The suite does not say which priorities are lossless: not judged.
  in.lossless_known = false;
  EXPECT_FALSE(find(check_counters(in), "discards_on_lossless").checked);
}

TEST(CounterChecks, APmdThatNamesPriorityBytesIsReconciledByName) {
  // Names read from the device: a PMD (or a later mlx5) with per-priority bytes and pauses in
  // its xstats goes through the same checks as ethtool's.
  CounterCheckInput in = mlx5_xstats_receiver();
  in.deltas["dpdk.rx_prio0_bytes"] = 1'000'000;  // everything landed in priority 0
  in.deltas["dpdk.rx_prio3_bytes"] = 0;
  CounterCheck c = find(check_counters(in), "priority_bytes");
  EXPECT_TRUE(c.checked);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("the NIC counted 0% there (xstat rx_prio3_bytes)"), std::string::npos)
      << c.detail;
  in.deltas["dpdk.rx_prio1_pause"] = 3;  // priority 1 is lossy
  c = find(check_counters(in), "pause_on_lossy");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("priority 1 (xstat rx_prio1_pause 3)"), std::string::npos) << c.detail;
  // A bifurcated mlx5 port has both: the kernel's ethtool statistics are read, not summed.
  in.deltas["ethtool.rx_prio3_bytes"] = 1'000'100;
  in.deltas["ethtool.rx_prio0_bytes"] = 0;
  c = find(check_counters(in), "priority_bytes");
  EXPECT_TRUE(c.passed) << c.detail;
  EXPECT_NE(c.detail.find("ethtool statistics"), std::string::npos) << c.detail;
  // The kernel's own discard names (no "_packets") are the same counters.
  in.deltas["ethtool.rx_prio3_buf_discard"] = 2;
  c = find(check_counters(in), "discards_on_lossless");
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.detail.find("priority 3 (rx_prio3_buf_discard 2)"), std::string::npos) << c.detail;
}

}  // namespace
}  // namespace qb::nic
