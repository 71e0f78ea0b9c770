#include "qb/reports/json_results.hpp"

#include "results_fields.hpp"

namespace qb::report {

std::string results_to_json(const Results& results, int indent) {
  return results_document(results).dump(indent) + "\n";
}

}  // namespace qb::report
