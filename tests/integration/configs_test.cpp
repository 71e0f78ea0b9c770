// Every suite in configs/ runs on the simulator and passes its own gates; the simulator agrees
// with the oracle; results do not depend on the job count.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../support/run_and_judge.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/results_reader.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb {
namespace {

std::vector<std::string> config_files() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(QB_SOURCE_DIR "/configs")) {
    if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A parameterised test's name: the suite file's stem, with '_' for what gtest does not take.
std::string config_test_name(const ::testing::TestParamInfo<std::string>& param_info) {
  std::string name = std::filesystem::path(param_info.param).stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

class ConfigSuite : public ::testing::TestWithParam<std::string> {};

TEST_P(ConfigSuite, RunsOnTheSimulatorAndPassesItsGates) {
  auto suite = suite::load_suite_file(GetParam());
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  auto results = testing_support::run_and_judge(*suite, "sim", engine::RunOptions{});
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  EXPECT_TRUE(results->complete);
  for (const auto& scenario : results->scenarios) {
    size_t judged = 0;
    for (const auto& gate : scenario.gates) judged += gate.judged ? 1 : 0;
    EXPECT_GT(judged, 0u) << scenario.name << ": a suite that judges nothing tests nothing";
    for (const auto& gate : scenario.gates) {
      EXPECT_TRUE(gate.passed) << scenario.name << ": " << gate.name << " = " << gate.value
                               << " (threshold " << gate.threshold << ") " << gate.detail;
    }
    if (scenario.convergence.present) {
      // Congestion control: flows join later and rates move, so the whole window's means are
      // not the oracle's steady shares (the suite's own gates judge the settled ones). The port
      // is never over-used.
      double total_bps = 0.0;
      for (const auto& flow : scenario.flows) total_bps += flow.measured_bps;
      EXPECT_LE(total_bps, scenario.capacity_bps * 1.0005);
      continue;
    }
    // The simulator against the oracle, independently of the suite's own gates: every flow
    // within 2% of its expectation (a flow the policy starves: nothing at all), every port class
    // within 1%, and the port neither over- nor (when saturated) under-used.
    double total_measured_bps = 0.0, total_expected_bps = 0.0;
    for (const auto& flow : scenario.flows) {
      if (flow.expected_bps == 0.0) {
        EXPECT_EQ(flow.measured_bps, 0.0) << flow.name << " should starve";
        EXPECT_EQ(flow.counts.packets, 0u) << flow.name << " should starve";
        continue;
      }
      EXPECT_NEAR(flow.measured_bps / flow.expected_bps, 1.0, 0.02) << flow.name;
      EXPECT_GT(flow.counts.messages, 0u) << flow.name;
      total_measured_bps += flow.measured_bps;
      total_expected_bps += flow.expected_bps;
    }
    for (const auto& port_class : scenario.classes) {
      if (port_class.expected_bps == 0.0) {
        EXPECT_EQ(port_class.measured_bps, 0.0) << port_class.name;
      } else {
        EXPECT_NEAR(port_class.measured_bps / port_class.expected_bps, 1.0, 0.01)
            << port_class.name;
      }
    }
    EXPECT_LE(total_measured_bps, scenario.capacity_bps * 1.0005);
    EXPECT_NEAR(total_measured_bps / total_expected_bps, 1.0, 0.005);
    for (const auto& element : scenario.tree) {
      if (element.cap_bps) {
        EXPECT_LE(element.measured_bps, *element.cap_bps * 1.005) << element.name;
      }
    }
  }
  EXPECT_TRUE(results->passed);

  // The JSON names gates but does not carry their kind and bound: reading the file back must
  // give every gate the kind and bound judge gave it.
  auto read = report::results_from_json(report::results_to_json(*results), "results.json");
  ASSERT_TRUE(read.ok()) << read.error().to_string();
  for (size_t s = 0; s < results->scenarios.size(); ++s) {
    const auto& judged = results->scenarios[s].gates;
    const auto& reread = read->scenarios.at(s).gates;
    ASSERT_EQ(judged.size(), reread.size());
    for (size_t g = 0; g < judged.size(); ++g) {
      EXPECT_EQ(judged[g].kind, reread[g].kind) << judged[g].name;
      EXPECT_EQ(judged[g].bound, reread[g].bound) << judged[g].name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ConfigSuite, ::testing::ValuesIn(config_files()),
                         config_test_name);

// Sampling noise must not fail a shipped suite (issue 25, item 4): at 50 ms and other seeds
// (cbr_redistribution's Poisson flow alone is off its mean by ~1.4 % there) every suite still
// passes what it judges. scripts/seed_sweep.sh runs seeds 1-10 at both durations.
class ConfigSuiteShortWindow : public ::testing::TestWithParam<std::string> {};

TEST_P(ConfigSuiteShortWindow, PassesAt50msWithOtherSeeds) {
  auto suite = suite::load_suite_file(GetParam());
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  for (const uint64_t seed : {2u, 5u}) {
    engine::RunOptions options;
    options.seed = seed;
    options.duration_ns = 50'000'000;
    options.repetitions = 1;
    auto results = testing_support::run_and_judge(*suite, "sim", options);
    ASSERT_TRUE(results.ok()) << results.error().to_string();
    EXPECT_TRUE(results->passed) << "seed " << seed << ": " << results->verdict.summary;
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, ConfigSuiteShortWindow, ::testing::ValuesIn(config_files()),
                         config_test_name);

// The figures, not only the verdict: results JSON minus the wall-clock, host and date fields.
std::string figures_json(const suite::Suite& suite, uint32_t jobs) {
  engine::RunOptions options;
  options.jobs = jobs;
  options.repetitions = 3;
  options.duration_ns = 20'000'000;
  auto results = testing_support::run_and_judge(suite, "sim", options);
  EXPECT_TRUE(results.ok());
  results->wall_seconds = 0;
  results->date_utc.clear();
  results->jobs = 0;
  for (auto& scenario : results->scenarios) {
    scenario.wall_seconds = 0;
    for (auto& [name, value] : scenario.driver_stats) {
      if (name.find("wall") != std::string::npos) value = 0;
    }
  }
  return report::results_to_json(*results);
}

TEST(Determinism, SameSeedSameFiguresWhateverTheJobCount) {
  auto suite = suite::load_suite_file(QB_SOURCE_DIR "/configs/cbr_redistribution.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const std::string one_job = figures_json(*suite, 1);
  EXPECT_EQ(one_job, figures_json(*suite, 2));
  EXPECT_EQ(one_job, figures_json(*suite, 3));
}

TEST(Determinism, AnotherSeedGivesOtherFigures) {
  auto suite = suite::load_suite_file(QB_SOURCE_DIR "/configs/cbr_redistribution.toml");
  ASSERT_TRUE(suite.ok());
  const std::string first = figures_json(*suite, 2);
  for (auto& scenario : suite->scenarios) scenario.seed += 1;
  EXPECT_NE(first, figures_json(*suite, 2));
}

}  // namespace
}  // namespace qb
