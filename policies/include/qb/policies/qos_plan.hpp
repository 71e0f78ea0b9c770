// The compiled QoS plan: what `policies` hands to the oracle and the drivers.
// Pure data; built by compile_plan() from the suite's QoS sections.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/policies/sched_tree.hpp"
#include "qb/policies/wire.hpp"

namespace qb::policy {

/// One flow instance (a QP): a `[[flow]]` with count = 4 gives four of these.
struct FlowPlan {
  std::string name;   // "g1-qp#2" (or "g1-qp" when count = 1)
  std::string group;  // the [[flow]] entry's name: "g1-qp"
  uint32_t leaf = 0;  // SchedTree element index
  RdmaOp op = RdmaOp::write;
};

struct QosPlan {
  SchedTree tree;
  WireModel wire;
  double port_rate_bps = 0.0;  // line rate: the capacity, in wire bit/s
  std::vector<FlowPlan> flows;
};

}  // namespace qb::policy
