// The live view on every shipped suite (simulator): each repetition's intervals cover its
// measured window without gap or overlap, add up to exactly what the repetition measured,
// show the run's progress reaching its plan, and change nothing in the results.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "../support/run_and_judge.hpp"
#include "qb/engine/live.hpp"
#include "qb/reports/json_results.hpp"
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

using RepetitionKey = std::pair<uint32_t, uint32_t>;  // scenario, repetition

engine::RunOptions short_run() {
  engine::RunOptions options;
  options.repetitions = 2;
  options.jobs = 2;  // repetitions side by side: the sink must still see each one whole
  options.duration_ns = 10'000'000;
  return options;
}

class LiveIntervals : public ::testing::TestWithParam<std::string> {};

TEST_P(LiveIntervals, PartitionTheWindowAndAddUpToTheRepetition) {
  auto suite = suite::load_suite_file(GetParam());
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options = short_run();
  options.live_interval_ns = 1'000'000;
  std::map<RepetitionKey, std::vector<engine::LiveInterval>> seen;
  options.on_interval = [&](const engine::LiveInterval& interval) {
    seen[{interval.scenario, interval.repetition}].push_back(interval);  // serialised
  };
  engine::RunProgress progress;
  options.progress = &progress;
  auto run = testing_support::run_suite_on(*suite, "sim", options);
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  EXPECT_GT(progress.planned_ns(), 0);
  EXPECT_EQ(progress.covered_ns(), progress.planned_ns());

  for (uint32_t s = 0; s < run->scenarios.size(); ++s) {
    const engine::ScenarioRun& scenario = run->scenarios[s];
    const size_t groups = scenario.compiled.scenario->flows.size();
    for (uint32_t r = 0; r < scenario.reps.size(); ++r) {
      SCOPED_TRACE(testing::Message() << "scenario " << s << " repetition " << r);
      const auto& intervals = seen[{s, r}];
      ASSERT_FALSE(intervals.empty());
      // Gap-free, in order, from the window's start to its end; only the last one is last.
      int64_t expected_start_ns = 0;
      std::vector<engine::LiveGroupCounters> sums(groups);
      for (size_t i = 0; i < intervals.size(); ++i) {
        const engine::LiveInterval& interval = intervals[i];
        EXPECT_EQ(interval.index, i);
        EXPECT_EQ(interval.start_ns, expected_start_ns);
        EXPECT_GE(interval.end_ns, interval.start_ns);
        EXPECT_EQ(interval.last, i + 1 == intervals.size());
        EXPECT_TRUE(interval.complete);
        ASSERT_EQ(interval.groups.size(), groups);
        expected_start_ns = interval.end_ns;
        for (size_t g = 0; g < groups; ++g) {
          sums[g].messages += interval.groups[g].messages;
          sums[g].packets += interval.groups[g].packets;
          sums[g].payload_bytes += interval.groups[g].payload_bytes;
          sums[g].wire_bytes += interval.groups[g].wire_bytes;
        }
      }
      EXPECT_EQ(expected_start_ns, scenario.duration_ns);
      // A 10 ms window in 1 ms intervals: ten of them, unless a virtual clock jumped over a
      // boundary while nothing happened (then fewer, longer ones).
      EXPECT_LE(intervals.size(), 10u);
      EXPECT_GE(intervals.size(), 2u);
      // Exactly the repetition's counters, [[flow]] entry by entry.
      std::vector<engine::LiveGroupCounters> measured(groups);
      const auto& flows = scenario.reps[r].flows;
      for (size_t f = 0; f < flows.size(); ++f) {
        engine::LiveGroupCounters& group = measured[scenario.compiled.flow_spec[f]];
        group.messages += flows[f].counts.messages;
        group.packets += flows[f].counts.packets;
        group.payload_bytes += flows[f].counts.payload_bytes;
        group.wire_bytes += flows[f].counts.wire_bytes;
      }
      uint64_t total_payload = 0;
      for (size_t g = 0; g < groups; ++g) {
        EXPECT_EQ(sums[g].messages, measured[g].messages) << "group " << g;
        EXPECT_EQ(sums[g].packets, measured[g].packets) << "group " << g;
        EXPECT_EQ(sums[g].payload_bytes, measured[g].payload_bytes) << "group " << g;
        EXPECT_EQ(sums[g].wire_bytes, measured[g].wire_bytes) << "group " << g;
        total_payload += sums[g].payload_bytes;
      }
      EXPECT_GT(total_payload, 0u);
    }
  }
}

// Results JSON minus the wall-clock, host and date fields.
std::string figures_json(const suite::Suite& suite, const engine::RunOptions& options) {
  auto results = testing_support::run_and_judge(suite, "sim", options);
  EXPECT_TRUE(results.ok());
  if (!results.ok()) return {};
  results->wall_seconds = 0;
  results->date_utc.clear();
  for (auto& scenario : results->scenarios) {
    scenario.wall_seconds = 0;
    for (auto& [name, value] : scenario.driver_stats) {
      if (name.find("wall") != std::string::npos) value = 0;
    }
  }
  return report::results_to_json(*results);
}

TEST_P(LiveIntervals, WatchingARunChangesNothingInItsResults) {
  auto suite = suite::load_suite_file(GetParam());
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const std::string unwatched = figures_json(*suite, short_run());
  engine::RunOptions watched = short_run();
  watched.live_interval_ns = 100'000;
  size_t intervals = 0;
  watched.on_interval = [&](const engine::LiveInterval&) { ++intervals; };
  engine::RunProgress progress;
  watched.progress = &progress;
  EXPECT_EQ(figures_json(*suite, watched), unwatched);
  EXPECT_GT(intervals, 0u);
}

INSTANTIATE_TEST_SUITE_P(Configs, LiveIntervals, ::testing::ValuesIn(config_files()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           std::string name =
                               std::filesystem::path(param_info.param).stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(LiveIntervalsInterrupted, TheCutRepetitionEndsWithAnIncompleteLastInterval) {
  auto suite = suite::load_suite_file(QB_SOURCE_DIR "/configs/mlx5_two_groups.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  engine::RunOptions options;
  options.repetitions = 1;
  options.jobs = 1;
  options.live_interval_ns = 1'000'000;
  std::atomic<bool> interrupted{false};
  options.interrupted = &interrupted;
  std::vector<engine::LiveInterval> seen;
  options.on_interval = [&](const engine::LiveInterval& interval) {
    seen.push_back(interval);
    if (interval.index == 2) interrupted = true;  // as a signal would, on the worker's thread
  };
  auto run = testing_support::run_suite_on(*suite, "sim", options);
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  ASSERT_EQ(seen.size(), 4u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(seen[i].complete);
    EXPECT_FALSE(seen[i].last);
  }
  EXPECT_FALSE(seen[3].complete);
  EXPECT_TRUE(seen[3].last);
  EXPECT_EQ(seen[3].start_ns, seen[2].end_ns);
  EXPECT_EQ(seen[3].end_ns, run->scenarios[0].reps[0].measured_ns);
  EXPECT_FALSE(run->scenarios[0].reps[0].complete);
}

}  // namespace
}  // namespace qb
