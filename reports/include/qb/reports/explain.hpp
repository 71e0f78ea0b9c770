// `qosbench explain`: the compiled plan and every flow's expected rate, without running.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "qb/engine/compile.hpp"
#include "qb/engine/suite.hpp"

namespace qb::report {

/// {"schema":"qosbench.explain/1","suite",...,"scenarios":[{"name","capacity_bps","rate_basis",
///   "wire":{...},"model_choices":[...],"tree":[...],"flows":[{"name","group","leaf",
///   "offered_bps","expected_bps"}]}]}
std::string explain_json(const engine::Suite& suite,
                         const std::vector<engine::CompiledScenario>& compiled);

void print_explain(const engine::Suite& suite,
                   const std::vector<engine::CompiledScenario>& compiled, std::ostream& out);

/// The model choices behind the expectations, named as reference/qos-semantics.md asks.
std::vector<std::string> model_choices(const engine::CompiledScenario& compiled);

}  // namespace qb::report
