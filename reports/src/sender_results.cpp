#include "qb/reports/sender_results.hpp"

#include <nlohmann/json.hpp>

#include "qb/reports/results.hpp"
#include "qb/reports/sender_summary.hpp"

namespace qb::report {

std::string sender_results_json(const suite::Suite& suite, const engine::SuiteRun& run,
                                const RunMetadata& metadata) {
  using Json = nlohmann::ordered_json;
  Json root;
  root["schema"] = kResultsSchema;
  root["sender_only"] = true;
  root["complete"] = run.complete;
  root["suite"] = suite.name;
  root["suite_file"] = suite.file;
  root["config_hash"] = suite.config_hash;
  root["tool_version"] = metadata.tool_version;
  root["driver"] = run.driver;
  root["clock"] = run.clock;
  root["host"] = metadata.host;
  root["date"] = metadata.date_utc;
  root["wall_seconds"] = run.wall_seconds;
  Json scenarios = Json::array();
  for (const SenderScenarioTotals& totals : sender_totals(run)) {
    Json scenario;
    scenario["name"] = totals.name;
    scenario["repetitions_completed"] = totals.repetitions_ran;
    scenario["repetition_ns"] = totals.repetition_ns;
    scenario["sent_seconds"] = totals.sent_seconds;
    scenario["tx_frames"] = totals.tx_frames;
    scenario["tx_bytes"] = totals.tx_bytes;
    scenario["tx_mpps"] = totals.tx_mpps();
    Json flows = Json::array();
    for (const SenderFlowTotals& flow : totals.flows) {
      flows.push_back({{"name", flow.name},
                       {"posted_messages", flow.posted_messages},
                       {"late_posts", flow.late_posts}});
    }
    scenario["flows"] = std::move(flows);
    if (const Starvation& starved = totals.starvation; starved.present) {
      scenario["starvation"] = {{"lost_ns", starved.lost_ns},
                                {"run_ns", starved.run_ns},
                                {"lost_fraction", starved.lost_fraction},
                                {"run_delay_ns", starved.run_delay_ns},
                                {"stalled_ns", starved.stalled_ns},
                                {"longest_stall_ns", starved.longest_stall_ns},
                                {"stalls", starved.stalls},
                                {"involuntary_switches", starved.involuntary_switches},
                                {"unreliable", starved.unreliable},
                                {"invalid", starved.invalid}};
    }
    scenarios.push_back(std::move(scenario));
  }
  root["scenarios"] = std::move(scenarios);
  return root.dump(2) + "\n";
}

}  // namespace qb::report
