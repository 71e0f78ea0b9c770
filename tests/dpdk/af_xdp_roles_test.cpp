// The two roles the AF_XDP namespace test runs in two processes (send only: rx_port = "none";
// receive only: tx_port = "none"), here as two drivers in one process over a ring pair: what
// the sender sends, the receiver counts per flow; the receiver sends nothing.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "dpdk_test_env.hpp"
#include "dpdk_driver.hpp"

namespace qb::drv {
namespace {

using test::stat;

TEST(DpdkRoles, ReceiveOnlyCountsWhatASendOnlyDriverSends) {
  const auto plan = test::eth_plan(3);
  const Topology topology = test::eth_topology(plan);
  auto sender_config = test::test_config("ring_pair:qbroles:0", "none");
  sender_config.software_shaper = false;
  auto receiver_config = test::test_config("none", "ring_pair:qbroles:1");
  auto sender = make_dpdk_driver(sender_config);
  auto receiver = make_dpdk_driver(receiver_config);
  for (Driver* d : {receiver.get(), sender.get()}) {
    const Status opened = d->open(topology);
    ASSERT_TRUE(opened.ok()) << opened.error().to_string();
    ASSERT_TRUE(d->apply(plan).ok());
    ASSERT_TRUE(d->start().ok());
  }
  EXPECT_EQ(receiver->clock(0).name(), "tsc");

  // The receiver takes messages (the engine posts in every role) and sends none of them.
  const std::array<Message, 2> ignored{Message{0, 128, 0, 0}, Message{1, 128, 0, 0}};
  EXPECT_EQ(receiver->queue(0).tx_burst(ignored), 2u);

  constexpr uint32_t kPerFlow = 200;
  std::vector<Message> messages;
  for (uint32_t i = 0; i < kPerFlow; ++i) {
    for (uint32_t f = 0; f < 3; ++f) messages.push_back(Message{f, 256, 0, i});
  }
  size_t posted = 0;
  std::map<uint32_t, uint64_t> next;
  size_t received = 0;
  std::array<Completion, 64> batch;
  for (int i = 0; i < 1'000'000 && received < messages.size(); ++i) {
    if (posted < messages.size()) {
      posted += sender->queue(0).tx_burst(std::span<const Message>(messages).subspan(posted));
    }
    sender->queue(0).poll(batch);  // tx_done only
    const uint32_t n = receiver->queue(0).poll(batch);
    for (uint32_t k = 0; k < n; ++k) {
      ASSERT_EQ(batch[k].kind, Completion::Kind::rx_packet);  // never a tx_done
      ASSERT_LT(batch[k].flow, 3u);
      EXPECT_EQ(batch[k].sequence, next[batch[k].flow]++);
      ++received;
    }
    if (n == 0) receiver->clock(0).wait_until(receiver->clock(0).now_ns() + 1000);
  }
  ASSERT_EQ(received, messages.size());
  for (uint32_t f = 0; f < 3; ++f) EXPECT_EQ(next[f], kPerFlow) << f;
  ASSERT_TRUE(sender->stop().ok());
  ASSERT_TRUE(receiver->stop().ok());
  const DriverStats rx = receiver->stats();
  EXPECT_EQ(stat(rx, "transmit"), 0.0);
  EXPECT_EQ(stat(rx, "receive"), 1.0);
  EXPECT_EQ(stat(rx, "tx_packets"), 0.0);
  EXPECT_EQ(stat(rx, "rx_packets"), static_cast<double>(messages.size()));
  EXPECT_EQ(stat(rx, "rx_seq_gaps"), 0.0);
  const DriverStats tx = sender->stats();
  EXPECT_EQ(stat(tx, "transmit"), 1.0);
  EXPECT_EQ(stat(tx, "receive"), 0.0);
  EXPECT_EQ(stat(tx, "tx_packets"), static_cast<double>(messages.size()));
  sender->close();
  receiver->close();
}

// Per-flow gaps are named in the stats (only flows that have some).
TEST(DpdkRoles, ReceiverNamesTheFlowsWithGaps) {
  const auto plan = test::eth_plan(2);
  const Topology topology = test::eth_topology(plan);
  auto sender_config = test::test_config("ring_pair:qbgaps:0", "none");
  sender_config.software_shaper = false;
  auto sender = make_dpdk_driver(sender_config);
  auto receiver = make_dpdk_driver(test::test_config("none", "ring_pair:qbgaps:1"));
  for (Driver* d : {receiver.get(), sender.get()}) {
    ASSERT_TRUE(d->open(topology).ok());
    ASSERT_TRUE(d->apply(plan).ok());
    ASSERT_TRUE(d->start().ok());
  }
  // Flow 1 skips sequences 1 and 2.
  const std::array<Message, 4> messages{Message{0, 128, 0, 0}, Message{0, 128, 0, 1},
                                        Message{1, 128, 0, 0}, Message{1, 128, 0, 3}};
  ASSERT_EQ(sender->queue(0).tx_burst(messages), 4u);
  std::array<Completion, 64> batch;
  uint32_t received = 0;
  for (int i = 0; i < 100'000 && received < 4; ++i) received += receiver->queue(0).poll(batch);
  ASSERT_EQ(received, 4u);
  ASSERT_TRUE(sender->stop().ok());
  ASSERT_TRUE(receiver->stop().ok());
  const DriverStats rx = receiver->stats();
  EXPECT_EQ(stat(rx, "rx_seq_gaps"), 2.0);
  EXPECT_EQ(stat(rx, "flow.f#1.rx_seq_gaps"), 2.0);
  for (const auto& entry : rx) EXPECT_NE(entry.first, "flow.f#0.rx_seq_gaps");
  sender->close();
  receiver->close();
}

TEST(DpdkRoles, NeitherSendingNorReceivingIsAConfigError) {
  auto driver = make_dpdk_driver(test::test_config("none", "none"));
  Topology topology;
  topology.port_rate_bps = 1e9;
  topology.wire = policy::WireModel{policy::Transport::eth, 1500};
  topology.flow_count = 1;
  const Status s = driver->open(topology);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::invalid_config);
}

}  // namespace
}  // namespace qb::drv
