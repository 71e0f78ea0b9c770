// The driver contract, written once and run against every driver the registry says is
// available and runs without a device environment ("sim"; the DPDK driver needs an EAL and a
// vdev per process and has its own tests in tests/dpdk, where tx_done comes when the PMD takes
// the frame, before it is received):
// - control path order: open -> apply -> start -> (queue/clock) -> stop -> stats -> close;
//   a call out of order is an error (Errc::runtime), not a crash; close() is idempotent and a
//   closed driver can be opened again;
// - open() with more workers than capabilities().max_workers is Errc::not_supported;
// - apply() with a flow on an element that does not exist is Errc::invalid_config;
// - every posted message yields rx_packet completions whose payloads add up to the message,
//   exactly one with last_of_message, then one tx_done, in per-flow sequence order, with
//   sent_ns <= time_ns and the clock never going backwards;
// - a flow's send queue accepts at most max_outstanding_per_flow messages without completions.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <string>
#include <vector>

#include "qb/drivers/registry.hpp"

namespace qb::drv {
namespace {

std::vector<std::string> available_drivers() {
  std::vector<std::string> names;
  for (const DriverInfo& info : driver_registry()) {
    if (info.available && info.name != "dpdk") names.push_back(info.name);
  }
  return names;
}

policy::QosPlan contract_plan(uint32_t flows) {
  policy::QosPlan plan;
  plan.tree.elements.emplace_back();
  plan.tree.elements[0].name = "default";
  plan.tree.elements[0].is_leaf = true;
  plan.wire = policy::WireModel{policy::Transport::rocev2, 1024};
  plan.port_rate_bps = 10e9;
  for (uint32_t f = 0; f < flows; ++f) {
    policy::FlowPlan flow;
    flow.name = "f#" + std::to_string(f);
    flow.group = "f";
    flow.leaf = 0;
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
  return topology;
}

class DriverContract : public ::testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<Driver> make() {
    auto driver = create_driver(GetParam());
    EXPECT_TRUE(driver.ok()) << (driver.ok() ? "" : driver.error().to_string());
    return driver.ok() ? std::move(*driver) : nullptr;
  }
};

TEST_P(DriverContract, NameAndCapabilities) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ(driver->name(), GetParam());
  const Capabilities caps = driver->capabilities();
  EXPECT_GE(caps.max_workers, 1u);
  EXPECT_GE(caps.max_outstanding_per_flow, 1u);
}

TEST_P(DriverContract, ControlPathOrder) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  const auto plan = contract_plan(2);
  const auto topology = contract_topology(plan);
  EXPECT_EQ(driver->apply(plan).error().code, Errc::runtime);
  EXPECT_EQ(driver->start().error().code, Errc::runtime);
  EXPECT_EQ(driver->stop().error().code, Errc::runtime);
  ASSERT_TRUE(driver->open(topology).ok());
  EXPECT_EQ(driver->start().error().code, Errc::runtime);  // apply first
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  EXPECT_EQ(driver->start().error().code, Errc::runtime);
  ASSERT_TRUE(driver->stop().ok());
  EXPECT_FALSE(driver->stats().empty());
  driver->close();
  driver->close();
  ASSERT_TRUE(driver->open(topology).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  driver->close();
}

TEST_P(DriverContract, RejectsWhatItCannotDo) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  auto plan = contract_plan(2);
  auto topology = contract_topology(plan);
  topology.workers = driver->capabilities().max_workers + 1;
  EXPECT_EQ(driver->open(topology).error().code, Errc::not_supported);
  topology.workers = 1;
  ASSERT_TRUE(driver->open(topology).ok());
  plan.flows[1].leaf = 1000;
  EXPECT_EQ(driver->apply(plan).error().code, Errc::invalid_config);
  driver->close();
}

TEST_P(DriverContract, EveryMessageCompletes) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  constexpr uint32_t kFlows = 3;
  constexpr uint32_t kPerFlow = 4;
  const auto plan = contract_plan(kFlows);
  ASSERT_TRUE(driver->open(contract_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  Queue& queue = driver->queue(0);
  Clock& clock = driver->clock(0);

  std::vector<Message> messages;
  const std::array<uint32_t, kPerFlow> sizes{64, 1024, 1500, 3000};  // 1, 1, 2 and 3 packets
  for (uint32_t i = 0; i < kPerFlow; ++i) {
    for (uint32_t f = 0; f < kFlows; ++f) {
      messages.push_back(Message{f, sizes[i], clock.now_ns(), i});
    }
  }
  uint32_t posted = 0;
  std::map<uint32_t, uint64_t> payload;  // per flow, of the current message
  std::map<uint32_t, uint64_t> next_done;
  uint32_t done = 0;
  int64_t last_now = clock.now_ns();
  std::array<Completion, 32> batch;
  for (int iteration = 0; iteration < 100000 && done < messages.size(); ++iteration) {
    posted += queue.tx_burst(std::span<const Message>(messages).subspan(posted));
    const uint32_t n = queue.poll(batch);
    for (uint32_t i = 0; i < n; ++i) {
      const Completion& c = batch[i];
      ASSERT_LT(c.flow, kFlows);
      EXPECT_LE(c.sent_ns, c.time_ns);
      if (c.kind == Completion::Kind::rx_packet) {
        ASSERT_EQ(c.sequence, next_done[c.flow]);
        EXPECT_GE(c.wire_bytes, c.payload_bytes);
        payload[c.flow] += c.payload_bytes;
        if (c.last_of_message) {
          EXPECT_EQ(payload[c.flow], sizes[c.sequence]) << "flow " << c.flow;
        }
      } else {
        ASSERT_EQ(c.sequence, next_done[c.flow]);
        EXPECT_EQ(payload[c.flow], sizes[c.sequence]) << "tx_done before all its packets";
        EXPECT_EQ(c.payload_bytes, sizes[c.sequence]);
        payload[c.flow] = 0;
        ++next_done[c.flow];
        ++done;
      }
    }
    if (n == 0) clock.wait_until(clock.now_ns() + 1'000'000);
    EXPECT_GE(clock.now_ns(), last_now);
    last_now = clock.now_ns();
  }
  EXPECT_EQ(done, messages.size());
  ASSERT_TRUE(driver->stop().ok());
  driver->close();
}

TEST_P(DriverContract, SendQueueHoldsAtMostMaxOutstanding) {
  auto driver = make();
  ASSERT_NE(driver, nullptr);
  const auto plan = contract_plan(1);
  ASSERT_TRUE(driver->open(contract_topology(plan)).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  ASSERT_TRUE(driver->start().ok());
  const uint32_t limit = driver->capabilities().max_outstanding_per_flow;
  std::vector<Message> messages;
  for (uint64_t i = 0; i <= limit; ++i) messages.push_back(Message{0, 64, 0, i});
  EXPECT_LE(driver->queue(0).tx_burst(messages), limit);
  ASSERT_TRUE(driver->stop().ok());
  driver->close();
}

INSTANTIATE_TEST_SUITE_P(AvailableDrivers, DriverContract, ::testing::ValuesIn(available_drivers()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace qb::drv
