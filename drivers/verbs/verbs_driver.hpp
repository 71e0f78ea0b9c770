// The verbs driver: RC QPs through rdma-core, one requester and one responder per flow
// instance (loopback on one port), the suite's scheduling tree built in the NIC with
// mlx5dv_sched_*, each requester attached to its leaf, SL and traffic class from the plan,
// completion timestamps when the device has them. docs/verbs.md.
#pragma once

#include <memory>

#include "qb/drivers/driver.hpp"
#include "verbs_config.hpp"
#include "verbs_ops.hpp"

namespace qb::drv::verbs {

/// Send queue depth per requester QP (Capabilities::max_outstanding_per_flow); perftest's
/// default tx-depth is 128.
inline constexpr uint32_t kSendQueueDepth = 256;

/// A verbs driver whose calls go through `ops` (tests: a FakeMlx5 they keep to inspect).
/// nullptr: the driver makes its own from `config` when it opens (rdma-core, or a fake that
/// mirrors the suite's port).
std::unique_ptr<Driver> make_verbs_driver(VerbsConfig config, VerbsOps* ops = nullptr);
/// The active speed of the configured device's port (for a suite whose rate is "auto"), read
/// through `ops` (nullptr: rdma-core, or the default fake ConnectX with provider = "fake").
/// Errc::unavailable as open() would say it (no device, port down, ...).
Result<double> read_port_speed_bps(const VerbsConfig& config, VerbsOps* ops = nullptr);
/// The same driver's backend alone (for a registry entry of a test).
std::unique_ptr<DriverBackend> make_verbs_backend(VerbsConfig config, VerbsOps* ops = nullptr);

}  // namespace qb::drv::verbs
