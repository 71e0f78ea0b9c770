// The first steps of `qosbench run` for tests: compile -> configure the driver (with the suite's
// own [driver.<name>] table) -> run.
#pragma once

#include <string>
#include <vector>

#include "qb/drivers/registry.hpp"
#include "qb/engine/run.hpp"
#include "qb/suite/compile.hpp"

namespace qb::testing_support {

inline Result<engine::SuiteRun> run_suite_on(const suite::Suite& suite, const std::string& driver,
                                             const engine::RunOptions& options,
                                             std::vector<Warning>* warnings = nullptr) {
  std::vector<Warning> compile_warnings;
  auto compiled = suite::compile_suite(suite, compile_warnings);
  if (!compiled) return std::move(compiled).error();
  if (warnings != nullptr) *warnings = compile_warnings;
  auto factory = drv::configure_driver(driver, suite::driver_table(suite, driver));
  if (!factory) return std::move(factory).error();
  return engine::run_suite(suite, std::move(*compiled), *factory, options);
}

}  // namespace qb::testing_support
