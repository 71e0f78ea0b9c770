// A driver implements only what it can: the optional ops of DriverBackend answer "not
// supported" (apply) or "none" (its figures), as rdma-core's unset provider ops answer
// EOPNOTSUPP, and the generic Driver passes those answers on.
#include <gtest/gtest.h>

#include <memory>

#include "idle_backend.hpp"
#include "qb/drivers/driver.hpp"

namespace qb::drv {
namespace {

// Only the ops every driver must have (IdleBackend's): no QoS, no figures of its own.
class MinimalBackend final : public IdleBackend {
 public:
  Capabilities capabilities() const override {
    Capabilities caps;
    caps.needs_tree = false;  // it enforces nothing
    return caps;
  }
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
