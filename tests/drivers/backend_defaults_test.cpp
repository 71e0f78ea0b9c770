// A driver implements only what it can: the optional ops of DriverBackend answer "not
// supported" (apply) or "none" (its figures), as rdma-core's unset provider ops answer
// EOPNOTSUPP, and the generic Driver passes those answers on.
#include <gtest/gtest.h>

#include <memory>

#include "qb/drivers/driver.hpp"

namespace qb::drv {
namespace {

// Only the ops every driver must have: no QoS, no figures of its own.
class MinimalBackend final : public DriverBackend, public Queue, public Clock {
 public:
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.needs_tree = false;  // it enforces nothing
    return caps;
  }
  Status open(const Topology&) override { return {}; }
  Status start() override { return {}; }
  Queue& queue(uint32_t) override { return *this; }
  Clock& clock(uint32_t) override { return *this; }
  Status stop() override { return {}; }
  void close() noexcept override {}
  uint32_t tx_burst(std::span<const Message>) noexcept override { return 0; }
  uint32_t poll(std::span<Completion>) noexcept override { return 0; }
  int64_t now_ns() noexcept override { return 0; }
  void wait_until(int64_t) noexcept override {}
  std::string_view name() const noexcept override { return "virtual"; }
};

TEST(DriverBackendDefaults, OptionalOpsAnswerNotSupportedOrNone) {
  MinimalBackend backend;
  const policy::QosPlan plan;
  const Status applied = backend.apply(plan);
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, Errc::not_supported);
  EXPECT_TRUE(backend.stats().empty());
  EXPECT_TRUE(backend.queue_depth_series().empty());
  EXPECT_TRUE(backend.backpressure_series().empty());
  EXPECT_TRUE(backend.flow_drops().empty());
}

TEST(DriverBackendDefaults, TheDriverPassesNotSupportedOn) {
  Driver driver("minimal", std::make_unique<MinimalBackend>());
  Topology topology;
  topology.port_rate_bps = 100e9;
  topology.workers = 1;
  const Status opened = driver.open(topology);
  ASSERT_TRUE(opened) << opened.error().to_string();
  const Status applied = driver.apply(policy::QosPlan{});
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().code, Errc::not_supported) << applied.error().to_string();
  driver.close();
}

}  // namespace
}  // namespace qb::drv
