// Results JSON ("schema": "qosbench.results/1", documented in docs/results-schema.md).
#pragma once

#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

std::string results_to_json(const Results& results, int indent = 2);

/// One field of the results JSON, as the writer and the reader both know it.
struct SchemaField {
  std::string path;      // "scenarios[].flows[].latency_ns.p50"
  bool required = true;  // wherever its parent is; false: absent in some files (class fields)
};

/// Every field of qosbench.results/1, parents before their children, in the written order.
std::vector<SchemaField> results_schema_fields();

}  // namespace qb::report
