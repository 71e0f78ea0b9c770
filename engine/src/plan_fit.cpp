#include "qb/engine/plan_fit.hpp"

#include "qb/suite/plan_error_location.hpp"

namespace qb::engine {

Status check_plans_fit(const suite::Suite& suite,
                       const std::vector<suite::CompiledScenario>& compiled,
                       const drv::Driver& driver, bool in_job) {
  for (const suite::CompiledScenario& scenario : compiled) {
    Status fits = driver.check_plan(scenario.plan, drv::PlanContext{in_job});
    if (!fits) return suite::locate_plan_error(std::move(fits).error(), suite, scenario);
  }
  return {};
}

}  // namespace qb::engine
