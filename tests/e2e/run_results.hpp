// The results of one `qosbench run` for the fabric tests: run a suite with --json and read the
// file back; read a driver statistic of a scenario (a test failure when it is missing).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "process.hpp"

namespace qb::e2e {

/// Runs `suite` with `--json` (a file named after `tag` and this process) and `--quiet`, expects
/// `expected_exit`, and returns the results.
inline nlohmann::json run_results(const std::string& suite, int expected_exit,
                                  const std::string& tag) {
  const std::string json =
      ::testing::TempDir() + "/" + tag + "_" + std::to_string(::getpid()) + ".json";
  const Outcome outcome = run_qosbench({"run", suite, "--json", json, "--quiet"});
  EXPECT_EQ(outcome.exit_code, expected_exit) << outcome.out << outcome.err;
  return nlohmann::json::parse(read_file(json));
}

/// The scenario's driver statistic `name` (NaN, and a failure, when the driver gave none).
inline double driver_stat(const nlohmann::json& scenario, const std::string& name) {
  const nlohmann::json& stats = scenario["driver_stats"];
  EXPECT_TRUE(stats.contains(name)) << name;
  return stats.contains(name) ? stats[name].get<double>() : NAN;
}

}  // namespace qb::e2e
