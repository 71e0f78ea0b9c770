// What a send-only run (a driver with no receiver, e.g. DPDK with rx_port = "none") can say:
// per flow the messages posted and how many were posted late, and the driver's Tx counters.
// Its receiver, in another process or host, measures and judges the traffic.
#pragma once

#include <ostream>

#include "qb/engine/run.hpp"

namespace qb::report {

void print_sender_summary(const engine::SuiteRun& run, std::ostream& out);

}  // namespace qb::report
