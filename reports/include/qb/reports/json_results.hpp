// Results JSON ("schema": "qosbench.results/1", documented in docs/results-schema.md).
#pragma once

#include <string>

#include "qb/common/result.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

std::string results_to_json(const Results& results, int indent = 2);

}  // namespace qb::report
