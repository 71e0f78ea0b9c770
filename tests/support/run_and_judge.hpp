// The run pipeline of `qosbench run` for tests: compile -> configure the driver -> run -> measure
// -> judge, with the suite's own [driver.<name>] table.
#pragma once

#include <string>
#include <vector>

#include "qb/engine/measure.hpp"
#include "qb/judge/judge.hpp"
#include "qb/reports/results.hpp"  // report::Results, which the tests name
#include "run_suite_on.hpp"

namespace qb::testing_support {

inline Result<judge::Results> run_and_judge(const suite::Suite& suite, const std::string& driver,
                                             const engine::RunOptions& options) {
  std::vector<Warning> warnings;
  auto run = run_suite_on(suite, driver, options, &warnings);
  if (!run) return std::move(run).error();
  return judge::judge_run(suite, *run, engine::measure(*run), judge::current_run_metadata(warnings));
}

}  // namespace qb::testing_support
