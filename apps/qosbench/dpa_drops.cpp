#include "dpa_drops.hpp"

#include "qb/dpa/overload.hpp"

namespace qb::cli {

bool warn_dpa_drops(const engine::SuiteRun& run, std::vector<Warning>& warnings) {
  bool invalid = false;
  for (const engine::ScenarioRun& scenario : run.scenarios) {
    dpa::DpaDrops worst;
    for (const auto& rep : scenario.reps) {
      if (rep.ran) worst.keep_worse(dpa::dpa_drops_of(rep.driver_stats));
    }
    if (!worst.unreliable()) continue;
    const suite::Scenario& spec = *scenario.compiled.scenario;
    warnings.push_back(
        Warning{dpa::dpa_drops_message(spec.name, worst), spec.dpa.where, spec.dpa.loc});
    invalid = invalid || worst.invalid();
  }
  return invalid;
}

}  // namespace qb::cli
