// Two hosts in one process: a receiver driver (listen) and a sender driver (peer) on one fake
// ConnectX, talking over a real TCP connection on the loopback interface: the hello with the
// plan hash, the QP exchange, the start, and the data path (the sender writes into the
// receiver's buffer with the rkey it was given; the receiver counts what arrives, untimed).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "fake_mlx5.hpp"
#include "peer_link.hpp"
#include "qp_exchange.hpp"
#include "two_hosts_fixture.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

// A TCP port nobody listens on right now.
uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  ::close(fd);
  return ntohs(address.sin_port);
}

TEST(VerbsTwoHosts, SenderWritesIntoTheReceiversBufferAndTheReceiverCountsIt) {
  FakeMlx5 fake(instant_device());
  LockedOps ops(fake);
  const uint16_t port = free_port();
  const auto plan = two_group_plan(4);
  constexpr uint64_t kMessages = 300;  // per flow, more than a send queue
  std::array<uint64_t, 4> received{};
  uint64_t untimed = 0;
  std::string receiver_error;

  std::thread receiver_thread([&] {
    VerbsConfig config;
    config.listen = port;
    auto driver = make_verbs_driver(config, &ops);
    if (Status s = bring_up(*driver, topology_for(plan), plan); !s) {
      receiver_error = s.error().to_string();
      driver->close();
      return;
    }
    EXPECT_TRUE(driver->capabilities().receives);
    std::array<Completion, 64> batch;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    uint64_t total = 0;
    while (total < kMessages * plan.flows.size() && std::chrono::steady_clock::now() < deadline) {
      const uint32_t n = driver->queue(0).poll(batch);
      for (uint32_t i = 0; i < n; ++i) {
        EXPECT_EQ(batch[i].kind, Completion::Kind::rx_message);
        untimed += batch[i].sent_ns == Completion::kUntimed ? 1 : 0;
        ++received[batch[i].flow];
        ++total;
      }
    }
    (void)driver->stop();
    driver->close();
  });

  VerbsConfig config;
  config.peer = "127.0.0.1:" + std::to_string(port);
  auto sender = make_verbs_driver(config, &ops);
  ASSERT_TRUE(sender->open(topology_for(plan)).ok());
  EXPECT_FALSE(sender->capabilities().receives);
  const Status applied = sender->apply(plan);
  ASSERT_TRUE(applied.ok()) << applied.error().to_string();
  ASSERT_TRUE(sender->start().ok());
  std::vector<Message> messages;
  for (uint64_t i = 0; i < kMessages; ++i) {
    for (uint32_t f = 0; f < plan.flows.size(); ++f) messages.push_back(Message{f, 1024, 0, i});
  }
  size_t posted = 0;
  uint64_t done = 0;
  std::array<Completion, 64> batch;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (done < messages.size() && std::chrono::steady_clock::now() < deadline) {
    posted += sender->queue(0).tx_burst(std::span<const Message>(messages).subspan(posted));
    const uint32_t n = sender->queue(0).poll(batch);
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(batch[i].kind, Completion::Kind::tx_done) << "a sender receives nothing";
      done += batch[i].messages;
    }
  }
  EXPECT_EQ(done, messages.size());
  receiver_thread.join();
  ASSERT_EQ(receiver_error, "");
  for (uint32_t f = 0; f < plan.flows.size(); ++f) EXPECT_EQ(received[f], kMessages) << f;
  EXPECT_EQ(untimed, kMessages * plan.flows.size());
  ASSERT_TRUE(sender->stop().ok());
  sender->close();
  // The sender programmed the tree and attached its QPs; the receiver did neither.
  size_t attaches = 0;
  for (const auto& call : fake.calls())
    attaches += call.starts_with("modify_qp_sched_elem(") ? 1 : 0;
  EXPECT_EQ(attaches, 2 * plan.flows.size());  // attach and detach, sender only
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  for (const auto& v : fake.violations()) ADD_FAILURE() << v;
}

// The sender's start waits for the receiver's `ready`: the run's zero (the device clock and the
// host clock, read together) is taken after that wait, so NIC-timed completions are not late by
// it. The receiver here is ready 600 ms after the sender starts waiting.
TEST(VerbsTwoHosts, NicTimedLatencyDoesNotCountTheWaitForTheReceiver) {
  FakeMlx5 fake(instant_device());
  LockedOps ops(fake);
  const uint16_t port = free_port();
  const auto plan = two_group_plan(2);
  constexpr uint64_t kMessages = 50;
  std::atomic<bool> sender_done{false};
  std::string receiver_error;
  std::thread receiver_thread([&] {
    VerbsConfig config;
    config.listen = port;
    auto driver = make_verbs_driver(config, &ops);
    Status s = driver->open(topology_for(plan));
    if (s) s = driver->apply(plan);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    if (s) s = driver->start();
    if (!s) receiver_error = s.error().to_string();
    std::array<Completion, 64> batch;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (s && !sender_done && std::chrono::steady_clock::now() < deadline) {
      (void)driver->queue(0).poll(batch);
    }
    (void)driver->stop();
    driver->close();
  });
  VerbsConfig config;
  config.peer = "127.0.0.1:" + std::to_string(port);
  auto sender = make_verbs_driver(config, &ops);
  ASSERT_TRUE(sender->open(topology_for(plan)).ok());
  ASSERT_TRUE(sender->capabilities().hw_timestamps);
  ASSERT_TRUE(sender->apply(plan).ok());
  const auto waited_from = std::chrono::steady_clock::now();
  ASSERT_TRUE(sender->start().ok());
  EXPECT_GE(std::chrono::steady_clock::now() - waited_from, std::chrono::milliseconds(500));
  std::vector<Message> messages;
  for (uint64_t i = 0; i < kMessages; ++i) {
    for (uint32_t f = 0; f < plan.flows.size(); ++f) {
      messages.push_back(Message{f, 1024, sender->clock(0).now_ns(), i});
    }
  }
  size_t posted = 0;
  uint64_t done = 0;
  int64_t worst_ns = 0;
  std::array<Completion, 64> batch;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (done < messages.size() && std::chrono::steady_clock::now() < deadline) {
    posted += sender->queue(0).tx_burst(std::span<const Message>(messages).subspan(posted));
    const uint32_t n = sender->queue(0).poll(batch);
    for (uint32_t i = 0; i < n; ++i) {
      done += batch[i].messages;
      worst_ns = std::max(worst_ns, batch[i].time_ns - batch[i].sent_ns);
      EXPECT_GE(batch[i].time_ns, batch[i].sent_ns);
    }
  }
  sender_done = true;
  EXPECT_EQ(done, messages.size());
  // The wait was 600 ms; the fake completes at once (a loaded machine: well under 300 ms).
  EXPECT_LT(worst_ns, 300'000'000) << "NIC-timed latency includes the wait for the receiver";
  ASSERT_TRUE(sender->stop().ok());
  sender->close();
  receiver_thread.join();
  ASSERT_EQ(receiver_error, "");
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
}

TEST(VerbsTwoHosts, DifferentSuitesAreRefusedOnBothSides) {
  FakeMlx5 fake(instant_device());
  LockedOps ops(fake);
  const uint16_t port = free_port();
  const auto plan = two_group_plan(4);
  auto other = plan;
  other.flows[3].name = "renamed";
  Status receiver_status;
  std::thread receiver_thread([&] {
    VerbsConfig config;
    config.listen = port;
    auto driver = make_verbs_driver(config, &ops);
    receiver_status = driver->open(topology_for(plan));
    if (receiver_status) receiver_status = driver->apply(plan);
    driver->close();
  });
  VerbsConfig config;
  config.peer = "localhost:" + std::to_string(port);
  auto sender = make_verbs_driver(config, &ops);
  ASSERT_TRUE(sender->open(topology_for(other)).ok());
  const Status applied = sender->apply(other);
  sender->close();
  receiver_thread.join();
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().code, Errc::invalid_config);
  EXPECT_EQ(applied.error().where, "driver.verbs.peer");
  EXPECT_NE(applied.error().message.find("different suite"), std::string::npos);
  ASSERT_FALSE(receiver_status.ok());
  EXPECT_EQ(receiver_status.error().code, Errc::invalid_config);
  EXPECT_EQ(receiver_status.error().where, "driver.verbs.listen");
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
}

TEST(VerbsTwoHosts, NoReceiverIsAnErrorThatSaysWhatToStartFirst) {
  const uint16_t port = free_port();
  auto link = PeerLink::connect_to("127.0.0.1:" + std::to_string(port), 300);
  ASSERT_FALSE(link.ok());
  EXPECT_EQ(link.error().code, Errc::unavailable);
  EXPECT_NE(link.error().message.find("start the receiver first"), std::string::npos);
  auto bad = PeerLink::connect_to("no-port-here", 300);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_config);
}

TEST(VerbsTwoHosts, EndpointsRoundTripAndMalformedLinesAreRefused) {
  QpEndpoint e;
  e.flow = 7;
  e.qp_num = 0x1234;
  e.psn = 5;
  e.lid = 9;
  e.gid.raw[0] = 0xfe;
  e.gid.raw[15] = 0x42;
  e.rkey = 0xabcdef;
  e.address = 0x7f0012345678;
  auto parsed = parse_endpoint(format_endpoint(e));
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->qp_num, e.qp_num);
  EXPECT_EQ(parsed->address, e.address);
  EXPECT_EQ(parsed->gid.raw[15], 0x42);
  for (const char* bad : {"", "ep", "ep 1 2 3 4 zz 6 7", "ep 1 2 3 4 00 6 7 8", "hello"}) {
    EXPECT_FALSE(parse_endpoint(bad).ok()) << bad;
  }
  // The same plan hashes the same; any change the peers must agree on changes it.
  const auto plan = two_group_plan(2);
  auto changed = plan;
  changed.flows[1].dscp = 10;
  EXPECT_EQ(plan_hash(plan, topology_for(plan)), plan_hash(plan, topology_for(plan)));
  EXPECT_NE(plan_hash(plan, topology_for(plan)), plan_hash(changed, topology_for(changed)));
}

}  // namespace
}  // namespace qb::drv::verbs
