// Compile and Expect: a Scenario becomes a QosPlan (the tree, every flow instance on its leaf)
// and the oracle's expected rate for every flow. Pure functions, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/policies/oracle.hpp"
#include "qb/policies/qos_plan.hpp"
#include "qb/suite/suite.hpp"

namespace qb::suite {

/// What the oracle expects while a set of flows is running: flows that join later (a flow's
/// `start`) change every active flow's share from their start on.
struct ExpectationEpoch {
  int64_t start_ns = 0;          // from time zero (the warm-up's start)
  std::vector<double> flow_bps;  // per flow instance, wire bit/s (0 before the flow starts)
};

struct CompiledScenario {
  const Scenario* scenario = nullptr;  // owned by the Suite, which outlives every run
  policy::QosPlan plan;
  std::vector<uint32_t> flow_spec;      // per flow instance: index into scenario->flows
  std::vector<uint32_t> flow_instance;  // per flow instance: its index within its group
  std::vector<double> offered_bps;      // per flow instance: wire bit/s offered; +inf = saturate
  std::vector<double> mean_wire_bytes;  // per flow instance: mean wire bytes per message
  std::vector<double> mean_message_bytes;
  std::vector<double> mean_packet_wire_bytes;  // per flow instance: mean wire bytes per packet
  std::vector<double> wire_bytes_cv;           // per flow instance: coefficient of variation of the
                                               // wire bytes per message (0 for one size)
  policy::OracleResult expected;               // wire bit/s per flow and per tree element
  std::vector<double> expected_class_bps;      // per arb class at the bottleneck port (NIC/switch)
  std::vector<std::string> oracle_notes;       // e.g. the VLArb credit rule vs the weight ratio
  /// One per distinct flow start time, in time order, when flows start at different times
  /// (empty otherwise: `expected` holds all along). The last epoch's shares are `expected`.
  /// Starts within the warm-up fold into one epoch: the flows the measurement opens with.
  std::vector<ExpectationEpoch> epochs;
  /// Why no flow's share can be judged (empty: they can): a [topology] whose expectation did not
  /// settle on the definition's fixed point (docs/semantics.md): its flows are not judged.
  std::string unjudgeable;
};

/// The most epochs x flow instances a scenario may ask for: each epoch runs the oracle over
/// every flow and keeps every flow's share (8 bytes each), and judging walks them again per
/// series bin. 2^23 is about 2 s of compile and judging and 64 MiB (docs/suite-format.md,
/// "Flows that join later").
inline constexpr uint64_t kMaxEpochFlowProducts = uint64_t{1} << 23;

/// How many expectation epochs compile_scenario makes for a scenario (0: one set of shares all
/// along), counted from the flows' starts without running the oracle: one per distinct start
/// after the warm-up, plus the one the measurement opens with (a lower bound when more than 2^22
/// instances start after the warm-up: over the budget whatever the exact figure).
uint64_t expectation_epoch_count(const Scenario& scenario);

/// Errors (Errc::invalid_config, with the key path and location): everything
/// compile_sched_tree rejects, more epochs x flows than kMaxEpochFlowProducts (at the `start` of
/// the entry with the most distinct starts), flows naming unknown leaves or nodes, latency gates naming no flow,
/// a traffic class the chosen provider rejects. Every flow gets its class (tclass, DSCP,
/// priority, SL, TC/VL) and the plan its port QoS and fabric; expectations come from the class
/// oracle (policy::expected_rates_with_classes).
Result<CompiledScenario> compile_scenario(const Scenario& scenario, std::vector<Warning>& warnings);

/// Compiles every scenario of a suite (config errors: Errc::invalid_config, nothing compiled).
Result<std::vector<CompiledScenario>> compile_suite(const Suite& suite,
                                                    std::vector<Warning>& warnings);

/// Mean wire bytes per message of a size distribution under a wire model (exact for tables and
/// fixed sizes; exact by enumeration for uniform ranges).
double mean_wire_bytes(const gen::SizeSpec& size, const policy::WireModel& wire, policy::RdmaOp op);
/// Coefficient of variation (standard deviation over mean) of the wire bytes per message.
double wire_bytes_cv(const gen::SizeSpec& size, const policy::WireModel& wire, policy::RdmaOp op);
/// Mean wire bytes per packet: mean wire bytes per message over mean packets per message.
double mean_packet_wire_bytes(const gen::SizeSpec& size, const policy::WireModel& wire,
                              policy::RdmaOp op);

}  // namespace qb::suite
