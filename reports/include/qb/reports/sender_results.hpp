// The results JSON of a sender-only run: schema qosbench.results/1 marked "sender_only": true,
// holding what was sent (per flow posted messages and late posts; per scenario the driver's Tx
// frames, bytes and Mpps) and no judgement: its receiver measures and judges the traffic.
// Its fields are described in the one results field table (reports/src/results_fields.cpp):
// the run's fields are the results' own, the starvation object is the results' one.
// docs/results-schema.md describes it; `report` and `compare` refuse it (exit 2).
#pragma once

#include <string>
#include <vector>

#include "qb/engine/run.hpp"
#include "qb/judge/run_metadata.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results.hpp"
#include "qb/reports/sender_summary.hpp"
#include "qb/suite/suite.hpp"

namespace qb::report {

struct SenderResults {
  /// The run's fields (schema, suite, driver, host, date, ...); no scenarios, nothing judged.
  Results run;
  std::vector<SenderScenarioTotals> scenarios;
};

SenderResults sender_results(const suite::Suite& suite, const engine::SuiteRun& run,
                             const RunMetadata& metadata);

std::string sender_results_to_json(const SenderResults& results, int indent = 2);

/// sender_results_to_json(sender_results(suite, run, metadata)).
std::string sender_results_json(const suite::Suite& suite, const engine::SuiteRun& run,
                                const RunMetadata& metadata);

/// Every field of a sender-only results file, parents before their children, in written order.
std::vector<SchemaField> sender_results_schema_fields();

}  // namespace qb::report
