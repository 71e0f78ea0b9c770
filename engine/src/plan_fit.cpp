#include "qb/engine/plan_fit.hpp"

#include <optional>

#include "qb/suite/plan_error_location.hpp"

namespace qb::engine {

policy::QosPlan one_host_view(const policy::QosPlan& plan) {
  policy::QosPlan view = plan;
  view.hosts = 1;
  view.switched = false;
  view.switch_qos = {};
  view.congestion = {};
  view.graph = nullptr;  // a [topology]'s fabric is real too: the rank drives its NIC only
  for (policy::FlowPlan& flow : view.flows) flow.host = 0;
  return view;
}

Status check_plans_fit(const suite::Suite& suite,
                       const std::vector<suite::CompiledScenario>& compiled,
                       const drv::Driver& driver, bool in_job) {
  for (const suite::CompiledScenario& scenario : compiled) {
    std::optional<policy::QosPlan> view;
    if (in_job) {
      view = one_host_view(scenario.plan);
      view->congestion = scenario.plan.congestion;
    }
    Status fits = driver.check_plan(view ? *view : scenario.plan, drv::PlanContext{in_job});
    if (fits) continue;
    // Known before anything runs, what the driver cannot do is the suite's error for this
    // driver (exit 2), not trouble at run time (exit 3).
    Error error = std::move(fits).error();
    if (error.code == Errc::not_supported) error.code = Errc::invalid_config;
    return suite::locate_plan_error(std::move(error), suite, scenario);
  }
  return {};
}

}  // namespace qb::engine
