// Compile and Expect: a Scenario becomes a QosPlan (the tree, every flow instance on its leaf)
// and the oracle's expected rate for every flow. Pure functions, no I/O.
#pragma once

#include <vector>

#include "qb/common/result.hpp"
#include "qb/engine/suite.hpp"
#include "qb/policies/oracle.hpp"
#include "qb/policies/qos_plan.hpp"

namespace qb::engine {

struct CompiledScenario {
  const Scenario* scenario = nullptr;  // owned by the Suite, which outlives every run
  policy::QosPlan plan;
  std::vector<uint32_t> flow_spec;      // per flow instance: index into scenario->flows
  std::vector<uint32_t> flow_instance;  // per flow instance: its index within its group
  std::vector<double> offered_bps;      // per flow instance: wire bit/s offered; +inf = saturate
  std::vector<double> mean_wire_bytes;  // per flow instance: mean wire bytes per message
  std::vector<double> mean_message_bytes;
  policy::OracleResult expected;  // wire bit/s per flow and per tree element
};

/// Errors (Errc::invalid_config, with the key path and location): everything
/// compile_sched_tree rejects, flows naming unknown leaves or nodes, latency gates naming no flow.
Result<CompiledScenario> compile_scenario(const Scenario& scenario,
                                          std::vector<policy::Warning>& warnings);

/// Mean wire bytes per message of a size distribution under a wire model (exact for tables and
/// fixed sizes; exact by enumeration for uniform ranges).
double mean_wire_bytes(const gen::SizeSpec& size, const policy::WireModel& wire, policy::RdmaOp op);

}  // namespace qb::engine
