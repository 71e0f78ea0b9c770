// The simulator driver: a discrete-event model of one mlx5 port (per-QP send queues, the
// scheduling tree as a DWRR scheduler with token-bucket caps, link serialisation with real
// per-packet overheads, propagation, a receiver). Virtual time; deterministic.
#pragma once

#include <cstdint>
#include <memory>

#include "qb/drivers/driver.hpp"

namespace qb::drv {

/// Messages a flow may have posted and not yet seen tx_done for (the per-QP send queue depth);
/// reported as Capabilities::max_outstanding_per_flow. A power of two.
inline constexpr uint32_t kSimSendQueueDepth = 512;

/// The simulator behind the generic Driver (tests and benchmarks; the registry is the usual way).
std::unique_ptr<Driver> make_sim_driver();

}  // namespace qb::drv
