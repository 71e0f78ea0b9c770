#include "qb/reports/sender_results.hpp"

#include "results_fields.hpp"

namespace qb::report {

SenderResults sender_results(const suite::Suite& suite, const engine::SuiteRun& run,
                             const RunMetadata& metadata) {
  SenderResults out;
  out.run.complete = run.complete;
  out.run.suite = suite.name;
  out.run.suite_file = suite.file;
  out.run.config_hash = suite.config_hash;
  out.run.tool_version = metadata.tool_version;
  out.run.driver = run.driver;
  out.run.clock = run.clock;
  out.run.host = metadata.host;
  out.run.date_utc = metadata.date_utc;
  out.run.wall_seconds = run.wall_seconds;
  out.scenarios = sender_totals(run);
  return out;
}

std::string sender_results_to_json(const SenderResults& results, int indent) {
  return sender_results_document(results).dump(indent) + "\n";
}

std::string sender_results_json(const suite::Suite& suite, const engine::SuiteRun& run,
                                const RunMetadata& metadata) {
  return sender_results_to_json(sender_results(suite, run, metadata));
}

}  // namespace qb::report
