// Why a class or a flow is expected far below what it offers: a strict or vendor class served
// before it, a per-TC cap, a VL no VLArb entry serves, or a cap in the scheduling tree. One
// sentence each, naming the suite key, for validate, explain and the console.
#pragma once

#include <string>
#include <vector>

#include "qb/common/warning.hpp"
#include "qb/suite/compile.hpp"

namespace qb::suite {

struct Shortfall {
  std::string subject;   // "TC0", "VL4", a flow group
  std::string cause;     // the sentence, key included
  bool starved = false;  // expected (nearly) nothing
  SourceLoc loc;         // the [[flow]] entry of the flows it concerns (the first)
  std::string where;     // its key path
};

/// The shortfalls of the expectation `flow_bps` (per flow instance, e.g. compiled.expected).
/// A class is short when it is expected less than half of what it offers or of its ETS share;
/// a flow group when a cap in the tree holds it below what it offers.
std::vector<Shortfall> shortfall_causes(const CompiledScenario& compiled,
                                        const std::vector<double>& flow_bps);

/// validate's warnings: each starved class or group, at its first [[flow]] entry.
std::vector<Warning> starvation_warnings(const CompiledScenario& compiled);

}  // namespace qb::suite
