// The driver contract, written once and run against every available driver of the registry with
// each option set its entry gives (DriverEntry::contract_options: the simulator; DPDK on a
// net_ring loopback port and a send-only net_null port, without hugepages; verbs on the fake
// ConnectX, on simulated timing and completing at once with two workers):
// - control path order: open -> apply -> start -> (queue/clock) -> stop -> stats -> close;
//   a call out of order is an error (Errc::runtime), not a crash; close() is idempotent and a
//   closed driver can be opened again;
// - open() with more workers than capabilities().max_workers is Errc::not_supported;
// - apply() with a flow on an element that does not exist is Errc::invalid_config (for a
//   driver that enforces the tree), and so is a plan that does not match the opened topology;
// - every posted message completes: per flow, tx_done in sequence order (a driver may fold
//   several into one, Completion::messages); a driver that receives delivers rx_packet
//   (or rx_message) completions in sequence order whose payloads add up to each message, one
//   with last_of_message; in virtual time all of a message's packets arrive before its tx_done;
//   sent_ns <= time_ns and the clock never goes backwards;
// - flow control: a flow never has more than max_outstanding_per_flow messages accepted and not
//   completed, and once completions are polled the rest is accepted (a driver that accepts
//   nothing fails).
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "idle_backend.hpp"
#include "qb/drivers/registry.hpp"

namespace qb::drv {
namespace {

struct ContractCase {
  std::string driver;
  std::string options;  // the [driver.<name>] table's body
  size_t index = 0;     // of the entry's option sets
};

std::vector<ContractCase> contract_cases() {
  std::vector<ContractCase> cases;
  for (const DriverEntry& entry : driver_registry()) {
    if (!entry.available) continue;
    for (size_t i = 0; i < entry.contract_options.size(); ++i) {
      cases.push_back(ContractCase{entry.name, entry.contract_options[i], i});
    }
  }
  return cases;
}

policy::QosPlan contract_plan(uint32_t flows, policy::WireModel wire) {
  policy::QosPlan plan;
  // The implicit tree of a suite without one (compile_sched_tree): a root and the default leaf.
  plan.tree = policy::SchedTree::with_root();
  const uint32_t leaf = plan.tree.add_child(0, std::string(policy::kDefaultLeafName), true, 0);
  plan.wire = wire;
  plan.port_rate_bps = 10e9;
  for (uint32_t f = 0; f < flows; ++f) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    flow.group = "f";
    flow.leaf = leaf;
    flow.op = f % 2 == 0 ? policy::RdmaOp::write : policy::RdmaOp::send;
    plan.flows.push_back(flow);
  }
  return plan;
}

Topology contract_topology(const policy::QosPlan& plan) {
  Topology topology;
  topology.port_rate_bps = plan.port_rate_bps;
  topology.wire = plan.wire;
  topology.propagation_delay_ns = 500;
  topology.flow_count = static_cast<uint32_t>(plan.flows.size());
  topology.workers = 1;
  topology.max_message_bytes = 4096;
  return topology;
}

class DriverContract : public ::testing::TestWithParam<ContractCase> {
 protected:
  void SetUp() override {
    // RDMA over RoCEv2 with multi-packet messages where the driver carries it; Ethernet frames
    // (one packet per message) for a driver that sends only Ethernet.
    auto probe = make();
    ASSERT_NE(probe, nullptr);
    const auto rdma = contract_plan(1, policy::WireModel{policy::Transport::rocev2, 1024});
    const Status opened = probe->open(contract_topology(rdma));
    if (!opened && opened.error().code == Errc::not_supported) {
      wire_ = policy::WireModel{policy::Transport::eth, 1500};
      sizes_ = {64, 256, 1024, 1518};
    }
  }

  std::unique_ptr<Driver> make() const {
    auto driver = create_driver(GetParam().driver, GetParam().options);
    EXPECT_TRUE(driver.ok()) << (driver.ok() ? "" : driver.error().to_string());
    return driver.ok() ? std::move(*driver) : nullptr;
  }
  policy::QosPlan plan(uint32_t flows) const { return contract_plan(flows, wire_); }

  policy::WireModel wire_{policy::Transport::rocev2, 1024};
  std::array<uint32_t, 4> sizes_{64, 1024, 1500, 3000};  // rocev2: 1, 1, 2 and 3 packets
};

TEST_P(DriverContract, NameAndCapabilities) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ(driver->name(), GetParam().driver);
  const Capabilities caps = driver->capabilities();
  EXPECT_GE(caps.max_workers, 1u);
  EXPECT_GE(caps.max_outstanding_per_flow, 1u);
  EXPECT_GE(caps.max_flows, 1u);
}

TEST_P(DriverContract, ControlPathOrder) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  const auto p = plan(2);
  const auto topology = contract_topology(p);
  EXPECT_EQ(driver->apply(p).error().code, Errc::runtime);
  EXPECT_EQ(driver->start().error().code, Errc::runtime);
  EXPECT_EQ(driver->stop().error().code, Errc::runtime);
  ASSERT_TRUE(driver->open(topology).ok());
  EXPECT_EQ(driver->open(topology).error().code, Errc::runtime);
  EXPECT_EQ(driver->start().error().code, Errc::runtime);  // apply first
  ASSERT_TRUE(driver->apply(p).ok());
  ASSERT_TRUE(driver->start().ok());
  EXPECT_EQ(driver->start().error().code, Errc::runtime);
  EXPECT_EQ(driver->apply(p).error().code, Errc::runtime);
  ASSERT_TRUE(driver->stop().ok());
  EXPECT_FALSE(driver->stats().empty());
  driver->close();
  driver->close();
  ASSERT_TRUE(driver->open(topology).ok());
  ASSERT_TRUE(driver->apply(p).ok());
  driver->close();
}

TEST_P(DriverContract, RejectsWhatItCannotDo) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  auto p = plan(2);
  auto topology = contract_topology(p);
  topology.workers = driver->capabilities().max_workers + 1;
  EXPECT_EQ(driver->open(topology).error().code, Errc::not_supported);
  topology.workers = 1;
  topology.port_rate_bps = 0;
  EXPECT_EQ(driver->open(topology).error().code, Errc::invalid_config);
  topology = contract_topology(p);
  ASSERT_TRUE(driver->open(topology).ok());
  if (driver->capabilities().needs_tree) {
    p.flows[1].leaf = 1000;
    EXPECT_EQ(driver->apply(p).error().code, Errc::invalid_config);
  }
  p = plan(3);  // the topology was opened for 2
  EXPECT_EQ(driver->apply(p).error().code, Errc::invalid_config);
  driver->close();
}

TEST_P(DriverContract, EveryMessageCompletes) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  constexpr uint32_t kFlows = 3;
  const auto p = plan(kFlows);
  ASSERT_TRUE(driver->open(contract_topology(p)).ok());
  ASSERT_TRUE(driver->apply(p).ok());
  ASSERT_TRUE(driver->start().ok());
  const Capabilities caps = driver->capabilities();
  Queue& queue = driver->queue(0);
  Clock& clock = driver->clock(0);

  std::vector<Message> messages;
  for (uint32_t i = 0; i < sizes_.size(); ++i) {
    for (uint32_t f = 0; f < kFlows; ++f) {
      messages.push_back(Message{f, sizes_[i], clock.now_ns(), i});
    }
  }
  uint32_t posted = 0;
  std::map<uint32_t, uint64_t> payload;        // per flow, of the message being received
  std::map<uint32_t, uint64_t> next_received;  // per flow
  std::map<uint32_t, uint64_t> next_done;      // per flow
  uint32_t done = 0;
  uint32_t received = 0;
  const uint32_t expected_received = caps.receives ? static_cast<uint32_t>(messages.size()) : 0;
  int64_t last_now = clock.now_ns();
  std::array<Completion, 32> batch;
  for (int iteration = 0;
       iteration < 100000 && (done < messages.size() || received < expected_received);
       ++iteration) {
    posted += queue.tx_burst(std::span<const Message>(messages).subspan(posted));
    const uint32_t n = queue.poll(batch);
    for (uint32_t i = 0; i < n; ++i) {
      const Completion& c = batch[i];
      ASSERT_LT(c.flow, kFlows);
      EXPECT_LE(c.sent_ns, c.time_ns);
      if (c.kind == Completion::Kind::rx_packet || c.kind == Completion::Kind::rx_message) {
        ASSERT_TRUE(caps.receives) << "a send-only driver delivered a packet";
        if (c.kind == Completion::Kind::rx_message) {
          ASSERT_TRUE(c.last_of_message) << "a whole message is its own last packet";
        }
        ASSERT_EQ(c.sequence, next_received[c.flow]);
        EXPECT_GE(c.wire_bytes, c.payload_bytes);
        payload[c.flow] += c.payload_bytes;
        if (c.last_of_message) {
          EXPECT_EQ(payload[c.flow], sizes_[c.sequence]) << "flow " << c.flow;
          payload[c.flow] = 0;
          ++next_received[c.flow];
          ++received;
        }
      } else {
        ASSERT_GE(c.messages, 1u);
        ASSERT_EQ(c.sequence + 1 - c.messages, next_done[c.flow]) << "flow " << c.flow;
        EXPECT_EQ(c.payload_bytes, sizes_[c.sequence]);
        if (caps.virtual_time && caps.receives) {
          EXPECT_GE(next_received[c.flow], c.sequence + 1) << "tx_done before all its packets";
        }
        next_done[c.flow] = c.sequence + 1;
        done += c.messages;
      }
    }
    if (n == 0) clock.wait_until(clock.now_ns() + (caps.virtual_time ? 1'000'000 : 1'000));
    EXPECT_GE(clock.now_ns(), last_now);
    last_now = clock.now_ns();
  }
  EXPECT_EQ(done, messages.size());
  EXPECT_EQ(received, expected_received);
  ASSERT_TRUE(driver->stop().ok());
  driver->close();
}

// The flow-control clause on a started driver with one flow; returns what broke it (empty: held).
std::string flow_control_violation(Driver& driver) {
  const uint32_t limit = driver.capabilities().max_outstanding_per_flow;
  Queue& queue = driver.queue(0);
  Clock& clock = driver.clock(0);
  std::vector<Message> messages;
  for (uint64_t i = 0; i < 2ULL * limit + 1; ++i) messages.push_back(Message{0, 64, 0, i});
  uint64_t posted = 0;
  uint64_t done = 0;
  std::array<Completion, 64> batch;
  // Every completion the driver has made so far (a driver may complete messages inside
  // tx_burst, as DPDK does when the PMD takes a frame).
  auto drain = [&] {
    for (uint32_t n = queue.poll(batch); n != 0; n = queue.poll(batch)) {
      for (uint32_t i = 0; i < n; ++i) {
        if (batch[i].kind == Completion::Kind::tx_done) done += batch[i].messages;
      }
    }
  };
  // One burst of more than the limit: accepted minus completed stays within it.
  posted += queue.tx_burst(messages);
  drain();
  if (posted == 0) return "the driver accepted nothing";
  if (posted - done > limit) return "outstanding beyond the limit after one burst";
  // Completions free the window: everything is accepted and completes.
  for (int iteration = 0; iteration < 200000 && done < messages.size(); ++iteration) {
    posted += queue.tx_burst(std::span<const Message>(messages).subspan(posted));
    drain();
    if (posted - done > limit) return "outstanding beyond the limit";
    clock.wait_until(clock.now_ns() + 1'000);
  }
  if (posted != messages.size()) return "not every message was accepted";
  if (done != messages.size()) return "not every message completed";
  return {};
}

TEST_P(DriverContract, FlowControlHoldsAtMaxOutstandingThenAcceptsTheRest) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  const auto p = plan(1);
  ASSERT_TRUE(driver->open(contract_topology(p)).ok());
  ASSERT_TRUE(driver->apply(p).ok());
  ASSERT_TRUE(driver->start().ok());
  EXPECT_EQ(flow_control_violation(*driver), "");
  ASSERT_TRUE(driver->stop().ok());
  driver->close();
}

// The clause can fail: a backend that accepts nothing, and one that accepts everything and
// completes nothing, both break it.
class BrokenBackend final : public IdleBackend {
 public:
  explicit BrokenBackend(bool accept_all) : accept_all_(accept_all) {}
  Status apply(const policy::QosPlan&) override { return {}; }
  uint32_t tx_burst(std::span<const Message> messages) noexcept override {
    return accept_all_ ? static_cast<uint32_t>(messages.size()) : 0;
  }
  int64_t now_ns() noexcept override { return now_ns_; }
  void wait_until(int64_t deadline_ns) noexcept override { now_ns_ = deadline_ns; }

 private:
  bool accept_all_;
  int64_t now_ns_ = 0;
};

TEST(DriverContractCheck, FlowControlFailsForBrokenDrivers) {
  for (const bool accept_all : {false, true}) {
    Driver driver("broken", std::make_unique<BrokenBackend>(accept_all));
    const auto p = contract_plan(1, policy::WireModel{policy::Transport::rocev2, 1024});
    ASSERT_TRUE(driver.open(contract_topology(p)).ok());
    ASSERT_TRUE(driver.apply(p).ok());
    ASSERT_TRUE(driver.start().ok());
    EXPECT_NE(flow_control_violation(driver), "") << "accept_all " << accept_all;
  }
}

INSTANTIATE_TEST_SUITE_P(AvailableDrivers, DriverContract, ::testing::ValuesIn(contract_cases()),
                         [](const ::testing::TestParamInfo<ContractCase>& param) {
                           return param.param.driver + "_" + std::to_string(param.param.index);
                         });

}  // namespace
}  // namespace qb::drv
