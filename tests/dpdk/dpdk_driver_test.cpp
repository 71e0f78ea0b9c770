// The DPDK driver on software ports (--no-huge, no root set-up): EAL arguments and their errors,
// port lookup errors, pool memory errors, the control-path order, Tx-only on net_null, and
// Tx+Rx on net_ring (one loopback port, and two peer ports) with sequence and timestamp checks.
#include "dpdk_driver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "dpdk_test_env.hpp"
#include "eal.hpp"

namespace qb::drv {
namespace {

using test::eth_plan;
using test::eth_topology;
using test::stat;
using test::test_config;

// A started Tx-only driver on net_null, no shaper (the caller closes it).
std::unique_ptr<Driver> started_null_driver(uint32_t flows) {
  auto config = test_config("net_null0", "none");
  config.software_shaper = false;
  auto driver = make_dpdk_driver(config);
  const auto plan = eth_plan(flows);
  EXPECT_TRUE(driver->open(eth_topology(plan)).ok());
  EXPECT_TRUE(driver->apply(plan).ok());
  EXPECT_TRUE(driver->start().ok());
  return driver;
}

// Polls until `want` completions of `kind` arrived (or a generous bound of polls passed).
std::vector<Completion> collect(Driver& driver, Completion::Kind kind, size_t want,
                                std::vector<Completion>* others = nullptr) {
  std::vector<Completion> got;
  std::array<Completion, 64> batch;
  for (int i = 0; i < 2'000'000 && got.size() < want; ++i) {
    const uint32_t n = driver.queue(0).poll(batch);
    for (uint32_t k = 0; k < n; ++k) {
      if (batch[k].kind == kind) {
        got.push_back(batch[k]);
      } else if (others != nullptr) {
        others->push_back(batch[k]);
      }
    }
  }
  return got;
}

TEST(DpdkEal, EffectiveArgumentsAddPrefixAndNoTelemetry) {
  EXPECT_EQ(dpdk::effective_eal_args({"--no-huge"}, 42),
            (std::vector<std::string>{"--no-huge", "--file-prefix=qosbench-42", "--no-telemetry"}));
  EXPECT_EQ(dpdk::effective_eal_args({"--file-prefix=mine", "--telemetry"}, 42),
            (std::vector<std::string>{"--file-prefix=mine", "--telemetry"}));
  EXPECT_EQ(dpdk::effective_eal_args({"--file-prefix", "mine", "--no-telemetry"}, 7),
            (std::vector<std::string>{"--file-prefix", "mine", "--no-telemetry"}));
}

// Child bodies of the death tests below (each runs in a fresh process: one EAL per process).
int bad_arguments_child() {
  const std::vector<std::string> args{"--no-huge", "-m", "64", "--no-such-option"};
  const Status first = dpdk::ensure_eal(args);
  const Status again = dpdk::ensure_eal(args);
  const bool ok = !first.ok() && first.error().code == Errc::runtime &&
                  first.error().message.find("EAL initialisation failed") != std::string::npos &&
                  first.error().message.find("--no-such-option") != std::string::npos &&
                  !again.ok() && again.error().message == first.error().message;
  return ok ? 0 : 1;
}

int no_ports_child() {
  DpdkConfig config;
  config.eal_args = {"--no-huge", "-m", "128", "--no-pci", "-l", "0"};
  auto driver = make_dpdk_driver(config);
  const Status s = driver->open(eth_topology(eth_plan(1)));
  const bool ok = !s.ok() && s.error().code == Errc::unavailable &&
                  s.error().message.find("no Ethernet port") != std::string::npos &&
                  s.error().message.find("--vdev") != std::string::npos;
  return ok ? 0 : 1;
}

int runtime_dir_child(const std::string& marker) {
  if (!dpdk::ensure_eal({"--no-huge", "-m", "64", "--no-pci", "-l", "0"}).ok()) return 1;
  std::ofstream(marker) << dpdk::eal_runtime_dir();
  return std::filesystem::is_directory(dpdk::eal_runtime_dir()) ? 0 : 2;
}

TEST(DpdkEalDeathTest, BadArgumentsAreARuntimeErrorAndStayOne) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(bad_arguments_child()), ::testing::ExitedWithCode(0), "");
}

TEST(DpdkEalDeathTest, NoPortsIsUnavailableAndNamesTheFix) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(no_ports_child()), ::testing::ExitedWithCode(0), "");
}

// The child initialises the EAL and exits; the runtime directory it made must be gone then.
TEST(DpdkEalDeathTest, RuntimeDirectoryIsRemovedAtExit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const std::string marker = std::filesystem::temp_directory_path() / "qb_dpdk_runtime_dir";
  std::filesystem::remove(marker);
  EXPECT_EXIT(std::exit(runtime_dir_child(marker)), ::testing::ExitedWithCode(0), "");
  std::ifstream in(marker);
  std::string dir;
  std::getline(in, dir);
  EXPECT_NE(dir.find("qosbench-"), std::string::npos) << dir;
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir << " is left behind";
  std::filesystem::remove(marker);
}

class DpdkDriverTest : public ::testing::Test {};

TEST_F(DpdkDriverTest, SecondEalWithOtherArgumentsIsRefused) {
  ASSERT_TRUE(dpdk::ensure_eal(test::test_eal_args()).ok());
  ASSERT_TRUE(dpdk::ensure_eal({}).ok());
  ASSERT_TRUE(dpdk::ensure_eal(test::test_eal_args()).ok());
  const Status other = dpdk::ensure_eal({"--no-huge", "-m", "64"});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, Errc::runtime);
  EXPECT_NE(other.error().message.find("one EAL per process"), std::string::npos);
}

TEST_F(DpdkDriverTest, UnknownPortIsUnavailableAndListsThePorts) {
  const auto plan = eth_plan(1);
  for (const char* spec : {"net_nosuchpmd0", "77", "0000:99:00.0"}) {
    auto driver = make_dpdk_driver(test_config(spec, "none"));
    const Status s = driver->open(eth_topology(plan));
    ASSERT_FALSE(s.ok()) << spec;
    EXPECT_EQ(s.error().code, Errc::unavailable) << spec;
    EXPECT_NE(s.error().message.find("net_ring0"), std::string::npos) << s.error().message;
  }
}

TEST_F(DpdkDriverTest, PortsAreFoundByNameNumberAndProbedByDeviceString) {
  ASSERT_TRUE(dpdk::ensure_eal(test::test_eal_args()).ok());
  auto by_name = dpdk::find_port("net_ring0");
  ASSERT_TRUE(by_name.ok());
  auto by_number = dpdk::find_port(std::to_string(*by_name));
  ASSERT_TRUE(by_number.ok());
  EXPECT_EQ(*by_number, *by_name);
  auto probed = dpdk::find_port("net_null7,size=64");  // not in the EAL arguments: hot-plugged
  ASSERT_TRUE(probed.ok()) << probed.error().message;
  EXPECT_NE(dpdk::describe_ports().find("net_null7"), std::string::npos);
  auto again = dpdk::find_port("net_null7");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *probed);
}

TEST_F(DpdkDriverTest, TooLittleMemoryForThePoolIsUnavailable) {
  auto config = test_config("net_null0", "none");
  config.mbufs = 4'000'000;  // ~9 GB of mbufs in a 512 MB EAL
  auto driver = make_dpdk_driver(config);
  const Status s = driver->open(eth_topology(eth_plan(1)));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::unavailable);
  EXPECT_NE(s.error().message.find("-m <MB>"), std::string::npos) << s.error().message;
}

// What only DPDK refuses (order, workers and the plan's shape are the generic contract's, in
// tests/drivers/driver_contract_test.cpp, which runs on this driver too).
TEST_F(DpdkDriverTest, RefusesInfinibandRoceOverIpv6AndMoreFlowsThanTheHeaderCarries) {
  auto driver = make_dpdk_driver(test_config("net_null0", "none"));
  auto topology = eth_topology(eth_plan(2));
  topology.wire.transport = policy::Transport::ib;
  const Status ib = driver->open(topology);
  // The suite's transport is wrong for this driver: a config error at its key (exit 2).
  EXPECT_EQ(ib.error().code, Errc::invalid_config);
  EXPECT_EQ(ib.error().where, "port.transport");
  topology.wire.transport = policy::Transport::rocev2;
  topology.wire.ipv6 = true;
  EXPECT_EQ(driver->open(topology).error().code, Errc::invalid_config);
  topology = eth_topology(eth_plan(2));
  topology.flow_count = 70000;
  EXPECT_EQ(driver->open(topology).error().code, Errc::not_supported);
  driver->close();
}

TEST_F(DpdkDriverTest, RefusesReadFlowsNamingTheFlow) {
  auto driver = make_dpdk_driver(test_config("net_null0", "none"));
  auto plan = eth_plan(2);
  plan.flows[1].op = policy::RdmaOp::read;
  ASSERT_TRUE(driver->open(eth_topology(plan)).ok());
  const Status applied = driver->apply(plan);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().code, Errc::invalid_config);
  EXPECT_NE(applied.error().message.find(plan.flows[1].name), std::string::npos);
  driver->close();
}

TEST_F(DpdkDriverTest, NullPortTxOnly) {
  auto driver = started_null_driver(3);
  Clock& clock = driver->clock(0);
  EXPECT_EQ(clock.name(), "tsc");
  constexpr uint32_t kMessages = 300;
  std::vector<Message> messages;
  for (uint32_t i = 0; i < kMessages; ++i) {
    messages.push_back(Message{i % 3, 64 + (i % 5) * 300, clock.now_ns(), i / 3});
  }
  uint32_t posted = 0;
  uint32_t completed = 0;
  std::vector<Completion> done;
  std::array<Completion, 64> batch;
  for (int i = 0; i < 100000 && completed < kMessages; ++i) {
    posted += driver->queue(0).tx_burst(std::span<const Message>(messages).subspan(posted));
    const uint32_t n = driver->queue(0).poll(batch);
    for (uint32_t k = 0; k < n; ++k) completed += batch[k].messages;
    done.insert(done.end(), batch.begin(), batch.begin() + n);
  }
  ASSERT_EQ(completed, kMessages);
  // A tx_done covers the next `messages` of its flow, in sequence order; it names the last.
  std::array<uint64_t, 3> next_sequence{0, 0, 0};
  for (const Completion& c : done) {
    EXPECT_EQ(c.kind, Completion::Kind::tx_done);
    ASSERT_LT(c.flow, 3u);
    ASSERT_GE(c.messages, 1u);
    next_sequence[c.flow] += c.messages;
    const Message& last = messages[3 * (next_sequence[c.flow] - 1) + c.flow];
    EXPECT_EQ(c.sequence, last.sequence);
    EXPECT_EQ(c.payload_bytes, last.bytes);
    EXPECT_EQ(c.scheduled_ns, last.scheduled_ns);
    EXPECT_EQ(c.wire_bytes, 0u);  // wire bytes are counted on the receive side
    EXPECT_LE(c.scheduled_ns, c.sent_ns);
    EXPECT_LE(c.sent_ns, c.time_ns);
  }
  EXPECT_LT(done.size(), kMessages);  // folded: several of a flow's frames per tx_done
  ASSERT_TRUE(driver->stop().ok());
  const DriverStats stats = driver->stats();
  EXPECT_EQ(stat(stats, "tx_packets"), kMessages);
  EXPECT_EQ(stat(stats, "port_opackets"), kMessages);
  EXPECT_EQ(stat(stats, "rx_packets"), 0);
  driver->close();
}

// The frames of one burst fold into one tx_done per flow; the next burst starts new ones.
TEST_F(DpdkDriverTest, OneTxDonePerFlowPerBurst) {
  auto driver = started_null_driver(2);
  const std::vector<Message> first{{0, 64, 5, 0}, {1, 100, 6, 0}, {0, 200, 7, 1}, {0, 64, 8, 2}};
  const std::vector<Message> second{{0, 64, 9, 3}};
  ASSERT_EQ(driver->queue(0).tx_burst(first), first.size());
  ASSERT_EQ(driver->queue(0).tx_burst(second), second.size());
  const auto done = collect(*driver, Completion::Kind::tx_done, 3);
  ASSERT_EQ(done.size(), 3u);
  EXPECT_EQ(done[0].flow, 0u);
  EXPECT_EQ(done[0].messages, 3u);
  EXPECT_EQ(done[0].sequence, 2u);
  EXPECT_EQ(done[0].scheduled_ns, 8);
  EXPECT_EQ(done[0].payload_bytes, 64u);  // the last message's
  EXPECT_EQ(done[1].flow, 1u);
  EXPECT_EQ(done[1].messages, 1u);
  EXPECT_EQ(done[1].sequence, 0u);
  EXPECT_EQ(done[1].scheduled_ns, 6);
  EXPECT_EQ(done[1].payload_bytes, 100u);
  EXPECT_EQ(done[2].flow, 0u);
  EXPECT_EQ(done[2].messages, 1u);
  EXPECT_EQ(done[2].sequence, 3u);
  EXPECT_LE(done[0].time_ns, done[2].time_ns);
  driver->close();
}

TEST_F(DpdkDriverTest, UnknownFlowStopsTheBurst) {
  auto driver = started_null_driver(2);
  const std::vector<Message> messages{{0, 64, 0, 0}, {1, 64, 0, 0}, {2, 64, 0, 0}, {0, 64, 0, 1}};
  EXPECT_EQ(driver->queue(0).tx_burst(messages), 2u);
  driver->close();
}

struct RingCase {
  const char* name;
  const char* tx;
  const char* rx;
  bool shaper;
  bool vlan;
};

class DpdkRingTest : public ::testing::TestWithParam<RingCase> {};

// Every message comes back as one rx_packet with its flow, sequence, size and timestamps, after
// its tx_done; per flow in sequence order; no gaps.
TEST_P(DpdkRingTest, EveryFrameArrivesInOrderWithItsStamps) {
  const RingCase& rc = GetParam();
  auto config = test_config(rc.tx, rc.rx);
  config.software_shaper = rc.shaper;
  config.marking.dscp = 10;
  auto driver = make_dpdk_driver(config);
  auto plan = eth_plan(4);
  plan.wire.vlan = rc.vlan;
  const Status opened = driver->open(eth_topology(plan));
  ASSERT_TRUE(opened.ok()) << opened.error().to_string();
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  Clock& clock = driver->clock(0);
  constexpr uint32_t kPerFlow = 500;
  const uint32_t max_frame = static_cast<uint32_t>(plan.wire.max_message_bytes());
  std::vector<Message> messages;
  for (uint32_t i = 0; i < kPerFlow; ++i) {
    for (uint32_t f = 0; f < 4; ++f) {
      const uint32_t bytes = std::min(max_frame, 64 + (i * 37 + f * 101) % 1500);
      messages.push_back(Message{f, bytes, clock.now_ns(), i});
    }
  }
  std::map<std::pair<uint32_t, uint64_t>, uint32_t> size_of;
  for (const Message& m : messages) size_of[{m.flow, m.sequence}] = m.bytes;

  uint32_t posted = 0;
  std::vector<Completion> rx;
  size_t tx_messages = 0;
  std::array<Completion, 64> batch;
  int64_t last_now = clock.now_ns();
  // Both kinds: the last tx_done may become visible only after the last frame arrived.
  for (int i = 0; i < 1'000'000 && (rx.size() < messages.size() || tx_messages < messages.size());
       ++i) {
    posted += driver->queue(0).tx_burst(std::span<const Message>(messages).subspan(posted));
    const uint32_t n = driver->queue(0).poll(batch);
    for (uint32_t k = 0; k < n; ++k) {
      if (batch[k].kind == Completion::Kind::rx_packet) {
        rx.push_back(batch[k]);
      } else {
        tx_messages += batch[k].messages;
      }
    }
    if (n == 0) clock.wait_until(clock.now_ns() + 1000);
    EXPECT_GE(clock.now_ns(), last_now);
    last_now = clock.now_ns();
  }
  ASSERT_EQ(rx.size(), messages.size());
  ASSERT_EQ(tx_messages, messages.size());
  std::map<uint32_t, uint64_t> next;
  const int64_t end_ns = clock.now_ns();
  for (const Completion& c : rx) {
    ASSERT_LT(c.flow, 4u);
    EXPECT_EQ(c.sequence, next[c.flow]++);
    EXPECT_TRUE(c.last_of_message);
    const uint32_t bytes = size_of[{c.flow, c.sequence}];
    EXPECT_EQ(c.payload_bytes, bytes);
    EXPECT_EQ(c.wire_bytes, bytes + 20);
    EXPECT_LE(c.scheduled_ns, c.sent_ns);
    EXPECT_LE(c.sent_ns, c.time_ns);
    EXPECT_GE(c.scheduled_ns, -1);  // rounding of the TSC conversion
    EXPECT_LE(c.time_ns, end_ns);
  }
  ASSERT_TRUE(driver->stop().ok());
  const DriverStats stats = driver->stats();
  EXPECT_EQ(stat(stats, "rx_packets"), messages.size());
  EXPECT_EQ(stat(stats, "rx_seq_gaps"), 0);
  EXPECT_EQ(stat(stats, "rx_late"), 0);
  EXPECT_EQ(stat(stats, "rx_foreign"), 0);
  EXPECT_EQ(stat(stats, "mbuf_alloc_failures"), 0);
  driver->close();
}

INSTANTIATE_TEST_SUITE_P(
    Ports, DpdkRingTest,
    ::testing::Values(RingCase{"loopback", "net_ring0", "", false, false},
                      RingCase{"loopback_vlan", "net_ring0", "", false, true},
                      RingCase{"loopback_shaped", "net_ring0", "", true, false},
                      RingCase{"peers", "ring_pair:qbpeer:0", "ring_pair:qbpeer:1", false, false},
                      RingCase{"peers_shaped_vlan", "ring_pair:qbpeer:1", "ring_pair:qbpeer:0",
                               true, true}),
    [](const ::testing::TestParamInfo<RingCase>& param) { return param.param.name; });

TEST_F(DpdkDriverTest, ReceiverCountsGapsAndLateFrames) {
  auto config = test_config("net_ring0", "");
  config.software_shaper = false;
  auto driver = make_dpdk_driver(config);
  const auto plan = eth_plan(2);
  ASSERT_TRUE(driver->open(eth_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  // Flow 0: 0 1 4 (gap of 2) 2 (late) 5; flow 1: 0 1 2 (none).
  const std::vector<Message> messages{{0, 64, 0, 0}, {1, 64, 0, 0}, {0, 64, 0, 1}, {1, 64, 0, 1},
                                      {0, 64, 0, 4}, {0, 64, 0, 2}, {1, 64, 0, 2}, {0, 64, 0, 5}};
  ASSERT_EQ(driver->queue(0).tx_burst(messages), messages.size());
  const auto rx = collect(*driver, Completion::Kind::rx_packet, messages.size());
  ASSERT_EQ(rx.size(), messages.size());
  std::vector<uint64_t> flow0;
  for (const Completion& c : rx) {
    if (c.flow == 0) flow0.push_back(c.sequence);
  }
  EXPECT_EQ(flow0, (std::vector<uint64_t>{0, 1, 4, 2, 5}));
  ASSERT_TRUE(driver->stop().ok());
  const DriverStats stats = driver->stats();
  EXPECT_EQ(stat(stats, "rx_seq_gaps"), 2);
  EXPECT_EQ(stat(stats, "rx_late"), 1);
  driver->close();
}

TEST_F(DpdkDriverTest, ReceivedSchedulingDelayIsTheLateness) {
  auto config = test_config("net_ring0", "");
  config.software_shaper = false;
  auto driver = make_dpdk_driver(config);
  const auto plan = eth_plan(1);
  ASSERT_TRUE(driver->open(eth_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  Clock& clock = driver->clock(0);
  clock.wait_until(2'000'000);  // 2 ms into the run
  // Scheduled at 1 ms, sent now (>= 2 ms): the receiver sees sent - scheduled >= 1 ms.
  const std::vector<Message> messages{{0, 128, 1'000'000, 0}};
  ASSERT_EQ(driver->queue(0).tx_burst(messages), 1u);
  const auto rx = collect(*driver, Completion::Kind::rx_packet, 1);
  ASSERT_EQ(rx.size(), 1u);
  EXPECT_NEAR(static_cast<double>(rx[0].scheduled_ns), 1e6, 2.0);  // TSC rounding
  EXPECT_GE(rx[0].sent_ns, 2'000'000);
  driver->close();
}

}  // namespace
}  // namespace qb::drv
