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

/// A paced flow late by more than this (the worker busy elsewhere) catches up at most this much
/// link time in a burst, or one message's link time at its pace when that is longer; the rest
/// of the lateness is lost, as a shaper's bucket depth.
inline constexpr double kPaceSlackNs = 20'000.0;

/// Where a paced flow's next messages start: its next time, moved up to at most the slack ago
/// (kPaceSlackNs, or `message_ns`, the first message's link time at the pace, when longer: at a
/// slow pace a worker late by less than one message's time, a preempted CPU or an emulated
/// guest, loses nothing).
inline double pace_start_ns(double next_ns, double now_ns, double message_ns) noexcept {
  const double slack = message_ns > kPaceSlackNs ? message_ns : kPaceSlackNs;
  return next_ns > now_ns - slack ? next_ns : now_ns - slack;
}

}  // namespace qb::drv::verbs
