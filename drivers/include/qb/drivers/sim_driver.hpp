// The simulator driver: a discrete-event model of one mlx5 port (per-QP send queues, the
// scheduling tree as a DWRR scheduler with token-bucket caps, link serialisation with real
// per-packet overheads, propagation, a receiver). Virtual time; deterministic.
#pragma once

#include <memory>

#include "qb/drivers/driver.hpp"

namespace qb::drv {

std::unique_ptr<Driver> make_sim_driver();

}  // namespace qb::drv
