#include "qb/reports/json_results.hpp"

#include "qb/judge/verdict.hpp"
#include "results_fields.hpp"

namespace qb::report {

std::string results_to_json(const Results& results, int indent) {
  // Results put together by hand (tests, tools) may lack their verdict: written as judged.
  if (results.verdict.summary.empty()) {
    Results judged = results;
    judged.verdict = judge::verdict_of(judged);
    return results_document(judged).dump(indent) + "\n";
  }
  return results_document(results).dump(indent) + "\n";
}

}  // namespace qb::report
