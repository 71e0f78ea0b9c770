// The memory check before a run: the estimate grows with flow instances, repetitions and
// bins; a bound it exceeds is a config error naming the key that drives it, with its location.
#include "qb/engine/run_memory.hpp"

#include <gtest/gtest.h>

#include "qb/engine/run.hpp"

namespace qb::engine {
namespace {

suite::Suite suite_of(std::vector<uint32_t> counts, uint32_t repetitions) {
  suite::Suite s;
  s.file = "mem.toml";
  suite::Scenario scenario;
  scenario.repetitions = repetitions;
  scenario.repetitions_where = "suite.repetitions";
  scenario.repetitions_loc = SourceLoc{"mem.toml", 3, 15};
  scenario.duration_ns = 1'000'000'000;
  scenario.bin_ns = 1'000;  // coarsened to 1 ms (1000 bins)
  for (size_t i = 0; i < counts.size(); ++i) {
    suite::FlowSpec flow;
    flow.name = "f" + std::to_string(i);
    flow.count = counts[i];
    flow.where = "flow[" + std::to_string(i) + "]";
    flow.count_loc = SourceLoc{"mem.toml", static_cast<uint32_t>(20 + i), 9};
    scenario.flows.push_back(flow);
  }
  s.scenarios.push_back(scenario);
  return s;
}

drv::Capabilities sim_caps() {
  drv::Capabilities caps;
  caps.max_workers = 1;
  caps.virtual_time = true;
  return caps;
}

TEST(RunMemory, ExpectationEpochsAreCounted) {
  // 2000 instances joining 1 us apart after a zero warm-up: 2000 epochs x 2000 shares of 8 bytes
  // (32 MB) on top of the same flows starting at once.
  RunOptions one_job;
  one_job.jobs = 1;
  suite::Suite at_once = suite_of({2000}, 1);
  at_once.scenarios[0].warmup_ns = 0;
  suite::Suite joining = at_once;
  joining.scenarios[0].flows[0].start_step_ns = 1'000;
  EXPECT_GE(estimate_run_bytes(joining, one_job, sim_caps()),
            estimate_run_bytes(at_once, one_job, sim_caps()) + 2000u * 2000 * 8);
}

TEST(RunMemory, TheDpaEmulatorsQueuesAreCountedAndNamed) {
  // 256 threads x 2^20 queue_events x 8 B = 2 GiB per emulator, the receiver's program a second:
  // 4 GiB per repetition in flight, on the driver that runs the emulator.
  suite::Suite s = suite_of({4}, 4);
  suite::Scenario& scenario = s.scenarios[0];
  scenario.dpa.present = true;
  scenario.dpa.where = "dpa";
  scenario.dpa.loc = SourceLoc{"mem.toml", 9, 1};
  scenario.dpa.plan.program = "pcc_rtt";
  scenario.dpa.plan.receiver_program = "reflector";
  scenario.dpa.plan.threads = 256;
  scenario.dpa.plan.queue_events = 1u << 20;
  drv::Capabilities emulating = sim_caps();
  emulating.congestion_model = true;
  RunOptions two_jobs;
  two_jobs.jobs = 2;
  const uint64_t needed = estimate_run_bytes(s, two_jobs, emulating);
  EXPECT_GE(needed, 2 * (4ull << 30));
  // A driver without the emulator refuses the program anyway (its plan check): not counted.
  EXPECT_LT(estimate_run_bytes(s, two_jobs, sim_caps()), 1ull << 30);
  const Status refused = check_run_memory(s, two_jobs, emulating, 4ull << 30);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().where, "dpa.queue_events");
  EXPECT_EQ(refused.error().loc.line, 9u);
  EXPECT_NE(refused.error().message.find("queue_events"), std::string::npos)
      << refused.error().to_string();
}

TEST(RunMemory, ADriversPerWorkerMessageBuffersAreCountedAndNamed) {
  // verbs: a source and a target buffer of the largest message per worker; 2 GiB messages on 8
  // workers are 32 GiB.
  suite::Suite s = suite_of({1, 8}, 1);
  s.scenarios[0].flows[1].size = gen::SizeSpec::fixed(1u << 31);
  s.scenarios[0].flows[1].loc = SourceLoc{"mem.toml", 30, 1};
  drv::Capabilities verbs;
  verbs.max_workers = 8;
  verbs.message_buffers_per_worker = 2;
  EXPECT_GE(estimate_run_bytes(s, {}, verbs), 32ull << 30);
  const Status refused = check_run_memory(s, {}, verbs, 16ull << 30);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().where, "flow[1].size");
  EXPECT_EQ(refused.error().loc.line, 30u);
}

TEST(RunMemory, SeriesBinIsCoarsenedToAThousandBins) {
  EXPECT_EQ(series_bin_ns(1, 1'000'000'000), 1'000'000);
  EXPECT_EQ(series_bin_ns(5'000'000, 1'000'000'000), 5'000'000);
  EXPECT_EQ(series_bin_ns(2'000'000'000, 1'000'000'000), 1'000'000'000);
}

TEST(RunMemory, EstimateGrowsWithFlowsRepetitionsAndJobs) {
  RunOptions one_job;
  one_job.jobs = 1;
  const uint64_t base = estimate_run_bytes(suite_of({1000}, 1), one_job, sim_caps());
  EXPECT_GT(base, 1000u * 64 * 1024);  // at least the histograms of 1000 flows
  EXPECT_LT(base, 1000u * 1024 * 1024);
  EXPECT_GT(estimate_run_bytes(suite_of({2000}, 1), one_job, sim_caps()), base * 19 / 10);
  // 100 repetitions keep 100 series of 1000 bins per flow.
  EXPECT_GT(estimate_run_bytes(suite_of({1000}, 100), one_job, sim_caps()),
            base + 1000u * 99 * 8000);
  RunOptions four_jobs;
  four_jobs.jobs = 4;
  EXPECT_GT(estimate_run_bytes(suite_of({1000}, 4), four_jobs, sim_caps()),
            estimate_run_bytes(suite_of({1000}, 4), one_job, sim_caps()));
  // A real-time driver runs one repetition at a time whatever --jobs says.
  drv::Capabilities real = sim_caps();
  real.virtual_time = false;
  EXPECT_EQ(estimate_run_bytes(suite_of({1000}, 4), four_jobs, real),
            estimate_run_bytes(suite_of({1000}, 4), one_job, real));
}

// 100000 entries of 65536 instances, 1000 repetitions kept: tens of PB, refused on any machine.
TEST(RunMemory, AnAbsurdSuiteIsRefusedHere) {
  const suite::Suite absurd = suite_of(std::vector<uint32_t>(100000, 65536), 1000);
  EXPECT_GT(estimate_run_bytes(absurd, {}, sim_caps()), 1ull << 55);
  EXPECT_FALSE(check_run_memory(absurd, {}, sim_caps(), run_memory_bound_bytes()));
}

TEST(RunMemory, TooManyFlowsNamesTheLargestCount) {
  const suite::Suite s = suite_of({1, 65536, 70000, 2}, 1);
  const uint64_t needed = estimate_run_bytes(s, {}, sim_caps());
  EXPECT_TRUE(check_run_memory(s, {}, sim_caps(), needed));
  const Status refused = check_run_memory(s, {}, sim_caps(), needed - 1);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, Errc::invalid_config);
  EXPECT_EQ(refused.error().where, "flow[2].count");
  EXPECT_EQ(refused.error().loc.line, 22u);
  EXPECT_EQ(refused.error().loc.column, 9u);
  EXPECT_NE(refused.error().message.find("135539 flow instances"), std::string::npos)
      << refused.error().message;
}

TEST(RunMemory, RepetitionsKeptNameRepetitions) {
  const suite::Suite s = suite_of({1000}, 1000);
  const Status refused = check_run_memory(s, {}, sim_caps(), 1024ull * 1024 * 1024);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().where, "suite.repetitions");
  EXPECT_EQ(refused.error().loc.line, 3u);
  RunOptions flag;
  flag.repetitions = 1000;
  const Status from_flag = check_run_memory(suite_of({1000}, 1), flag, sim_caps(), 1u << 30);
  ASSERT_FALSE(from_flag);
  EXPECT_EQ(from_flag.error().code, Errc::usage);
  EXPECT_EQ(from_flag.error().where, "--repetitions");
}

TEST(RunMemory, TheBoundIsHalfThePhysicalMemory) {
  const uint64_t bound = run_memory_bound_bytes();
  EXPECT_GT(bound, 64ull * 1024 * 1024);
  EXPECT_LT(bound, 1ull << 50);
}

}  // namespace
}  // namespace qb::engine
