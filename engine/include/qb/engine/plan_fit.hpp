// Whether a driver can run every compiled scenario of a suite, checked before anything opens
// (`run` before its first repetition, `validate --driver`): what the driver cannot run is known
// from the plan and the driver's options, so it is an exit 2 at the suite's key, not an exit 3
// after DPDK started its EAL or verbs waited for a peer.
#pragma once

#include <vector>

#include "qb/common/result.hpp"
#include "qb/drivers/driver.hpp"
#include "qb/suite/compile.hpp"

namespace qb::engine {

/// A multi-host rank's driver drives one host's NIC: the plan as that host sees it (one host, no
/// switch, no congestion settings: the fabric is real).
policy::QosPlan one_host_view(const policy::QosPlan& plan);

/// The first scenario's error, located in the suite (suite::locate_plan_error). In a job each
/// rank's driver is checked on one_host_view() with the suite's congestion settings kept: a DPA
/// program, ECN marking or a lossy switch the driver cannot model is refused, not dropped.
Status check_plans_fit(const suite::Suite& suite,
                       const std::vector<suite::CompiledScenario>& compiled,
                       const drv::Driver& driver, bool in_job);

}  // namespace qb::engine
