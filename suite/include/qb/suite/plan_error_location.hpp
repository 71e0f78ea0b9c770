// An error about a compiled plan (a driver's plan check names plan keys: "fabric.hosts",
// "dpa.program", "flows[3].op", "driver.verbs.hw_pacing") pointed at the suite: the key path the
// user wrote and its file:line:col.
#pragma once

#include "qb/common/result.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite.hpp"

namespace qb::suite {

/// "flows[i]..." becomes the [[flow]] entry of instance i ("flow[1].op", or
/// "scenario[0].flow[1].op"); "dpa", "fabric", "port" and "sched" keys gain the scenario's
/// prefix; "driver.<name>.<key>" is located in the suite's [driver.<name>] table. An error that
/// already has a location keeps it.
Error locate_plan_error(Error error, const Suite& suite, const CompiledScenario& compiled);

}  // namespace qb::suite
