#include "qb/suite/suite.hpp"

#include <fmt/format.h>

#include <cmath>


namespace qb::suite {

ConfigTable driver_table(const Suite& suite, std::string_view driver) {
  const std::string path = "driver." + std::string(driver);
  for (const ConfigTable& table : suite.driver_tables) {
    if (table.path() == path) return table;
  }
  return ConfigTable(path, suite.file);
}

const PortSpec* first_auto_port(const Suite& suite) noexcept {
  for (const Scenario& scenario : suite.scenarios) {
    if (scenario.port.rate_auto) return &scenario.port;
  }
  return nullptr;
}

Status resolve_auto_port_rates(Suite& suite, double rate_bps) {
  const PortSpec* first = first_auto_port(suite);
  if (first == nullptr) return {};
  if (!(rate_bps > 0.0) || !std::isfinite(rate_bps) || rate_bps > kMaxPortRateBps) {
    Error error = make_error(Errc::invalid_config,
                             fmt::format("rate = \"auto\": the driver reported {} bit/s, not a "
                                         "usable port rate: give a rate",
                                         rate_bps),
                             "port.rate");
    error.loc = first->rate_loc;
    return error;
  }
  for (Scenario& scenario : suite.scenarios) {
    if (scenario.port.rate_auto) scenario.port.rate_bps = rate_bps;
  }
  return {};
}

}  // namespace qb::suite
