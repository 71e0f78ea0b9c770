#include "qb/suite/plan_error_location.hpp"

#include <charconv>
#include <string>
#include <string_view>

namespace qb::suite {
namespace {

bool starts_with_key(std::string_view where, std::string_view key) {
  return where.starts_with(key) &&
         (where.size() == key.size() || where[key.size()] == '.' || where[key.size()] == '[');
}

std::string scenario_key(const Scenario& scenario, std::string_view key) {
  return scenario.where.empty() ? std::string(key) : scenario.where + "." + std::string(key);
}

// "flows[12].op" -> instance 12 and ".op".
bool flow_instance(std::string_view where, size_t& instance, std::string_view& rest) {
  constexpr std::string_view kPrefix = "flows[";
  if (!where.starts_with(kPrefix)) return false;
  const size_t close = where.find(']');
  if (close == std::string_view::npos) return false;
  const auto digits = where.substr(kPrefix.size(), close - kPrefix.size());
  const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), instance);
  if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size()) return false;
  rest = where.substr(close + 1);
  return true;
}

}  // namespace

Error locate_plan_error(Error error, const Suite& suite, const CompiledScenario& compiled) {
  if (compiled.scenario == nullptr || error.loc.line != 0) return error;
  const Scenario& scenario = *compiled.scenario;
  const std::string_view where = error.where;
  size_t instance = 0;
  std::string_view rest;
  if (flow_instance(where, instance, rest) && instance < compiled.flow_spec.size()) {
    const FlowSpec& flow = scenario.flows[compiled.flow_spec[instance]];
    error.loc = flow.loc;
    error.where = flow.where + std::string(rest);
  } else if (starts_with_key(where, "dpa")) {
    error.loc = scenario.dpa.loc;
    error.where = scenario_key(scenario, where);
  } else if (starts_with_key(where, "fabric")) {
    error.loc = scenario.fabric.loc;
    error.where = scenario_key(scenario, where);
  } else if (starts_with_key(where, "port")) {
    error.loc = where == "port.rate" ? scenario.port.rate_loc : scenario.port.transport_loc;
    error.where = scenario_key(scenario, where);
  } else if (starts_with_key(where, "driver")) {
    // "driver.<name>.<key>": the key's value in the suite's table (a key the command line set
    // keeps its flag instead).
    const std::string_view after = where.substr(std::string_view("driver.").size());
    const size_t dot = after.find('.');
    if (where.size() > std::string_view("driver.").size() && dot != std::string_view::npos) {
      const ConfigTable table = driver_table(suite, after.substr(0, dot));
      const Error located = table.error_at(after.substr(dot + 1), error.message);
      error.loc = located.loc;
      error.where = located.where;
      if (located.code == Errc::usage) error.code = Errc::usage;
    }
  } else {
    error.where = error.where.empty() ? error.where : scenario_key(scenario, where);
  }
  if (error.loc.line == 0 && error.loc.file.empty()) error.loc = scenario.loc;
  return error;
}

}  // namespace qb::suite
