// tree = "software": the suite's scheduling tree without mlx5dv_sched. Each flow's QP is paced
// at the rate the oracle gives it (its share of the tree, caps and port classes included, with
// every flow active), as the DPDK driver's software shaper holds each flow to the tree; the
// NIC then only has to carry the paced QPs. Not work-conserving beyond the oracle: a flow that
// joins late or stops early leaves its share unused, which the NIC tree would redistribute.
#pragma once

#include <vector>

#include "qb/policies/qos_plan.hpp"

namespace qb::drv::verbs {

/// Per plan flow: the wire bit/s its QP is paced at, or 0 for a flow whose own offered load is
/// within its share (its generator paces it already; pacing it again would only add delay).
/// VLArb's credit rule is evaluated with MTU-sized packets (the plan has no message sizes).
std::vector<double> software_pace_bps(const policy::QosPlan& plan);

}  // namespace qb::drv::verbs
