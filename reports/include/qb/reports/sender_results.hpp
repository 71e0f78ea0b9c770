// The results JSON of a sender-only run: schema qosbench.results/1 marked "sender_only": true,
// holding what was sent (per flow posted messages and late posts; per scenario the driver's Tx
// frames, bytes and Mpps) and no judgement: its receiver measures and judges the traffic.
// docs/results-schema.md describes it; `report` and `compare` refuse it (exit 2).
#pragma once

#include <string>

#include "qb/engine/run.hpp"
#include "qb/reports/run_metadata.hpp"
#include "qb/suite/suite.hpp"

namespace qb::report {

std::string sender_results_json(const suite::Suite& suite, const engine::SuiteRun& run,
                                const RunMetadata& metadata);

}  // namespace qb::report
