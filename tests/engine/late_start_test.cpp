// Flows that join later (a flow's `start`, FlowPlan::start_ns): FlowWorker posts nothing of a
// flow before its start, then drives it as usual. Saturating flows with a start wait in
// late_starts_; scheduled flows are first due at start + their arrival offset. A fake driver
// records the time of every post.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flow_worker.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::engine {
namespace {

// Completes every message at the next poll (one tx_done per flow, folding its posts); time moves
// on a grid of step_ns, straight to the deadline when nothing is pending.
class RecordingDriver final : public drv::Queue, public drv::Clock {
 public:
  RecordingDriver(uint32_t flows, int64_t step_ns)
      : step_ns_(step_ns), pending_(flows, 0), next_sequence_(flows, 0), posts_(flows) {}

  uint32_t tx_burst(std::span<const drv::Message> messages) noexcept override {
    for (const drv::Message& m : messages) {
      if (m.sequence != next_sequence_[m.flow]) ++sequence_errors_;
      ++next_sequence_[m.flow];
      ++pending_[m.flow];
      posts_[m.flow].push_back(now_);
    }
    return static_cast<uint32_t>(messages.size());
  }

  uint32_t poll(std::span<drv::Completion> out) noexcept override {
    uint32_t n = 0;
    for (uint32_t f = 0; f < pending_.size() && n < out.size(); ++f) {
      if (pending_[f] == 0) continue;
      drv::Completion& c = out[n++];
      c = drv::Completion{};
      c.kind = drv::Completion::Kind::tx_done;
      c.messages = static_cast<uint16_t>(pending_[f]);
      c.flow = f;
      c.sequence = next_sequence_[f] - 1;
      c.time_ns = now_;
      pending_[f] = 0;
    }
    return n;
  }

  int64_t now_ns() noexcept override { return now_; }
  void wait_until(int64_t deadline_ns) noexcept override {
    const bool completions =
        std::any_of(pending_.begin(), pending_.end(), [](uint32_t n) { return n != 0; });
    const int64_t target = completions ? now_ + 1 : std::max(now_ + 1, deadline_ns);
    now_ = (target + step_ns_ - 1) / step_ns_ * step_ns_;
  }
  std::string_view name() const noexcept override { return "recording"; }

  int64_t first_post(uint32_t flow) const {
    return posts_[flow].empty() ? -1 : posts_[flow].front();
  }

  int64_t step_ns_;
  int64_t now_ = 0;
  std::vector<uint32_t> pending_;
  std::vector<uint64_t> next_sequence_;
  std::vector<std::vector<int64_t>> posts_;  // per flow: the time of every post
  uint64_t sequence_errors_ = 0;
};

struct Compiled {
  suite::Suite suite;
  suite::CompiledScenario scenario;
};

std::unique_ptr<Compiled> compile(const std::string& flows_toml) {
  const std::string text =
      "[suite]\nname = \"late\"\nwarmup = \"0s\"\nduration = \"2ms\"\nbin = \"1ms\"\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"eth\"\nmtu = 1500\n" +
      flows_toml;
  auto suite = suite::load_suite_string(text, "late.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  if (!suite.ok()) return nullptr;
  auto out = std::make_unique<Compiled>();
  out->suite = std::move(*suite);
  std::vector<Warning> warnings;
  auto compiled = suite::compile_scenario(out->suite.scenarios[0], warnings);
  EXPECT_TRUE(compiled.ok()) << compiled.error().to_string();
  if (!compiled.ok()) return nullptr;
  out->scenario = std::move(*compiled);
  return out;
}

// Runs one FlowWorker over [0, warmup + duration) on the driver.
std::vector<FlowCounters> run(const suite::CompiledScenario& compiled, RecordingDriver& driver,
                              int64_t warmup_ns = 0, int64_t duration_ns = 2'000'000) {
  WorkerWindow window;
  window.warmup_ns = warmup_ns;
  window.duration_ns = duration_ns;
  window.bin_ns = 1'000'000;
  window.max_outstanding = 64;
  window.virtual_time = true;
  FlowWorker worker(compiled, 1, window);
  std::vector<FlowCounters> counters(compiled.plan.flows.size());
  std::vector<FlowLatency> latency(compiled.plan.flows.size());
  EXPECT_TRUE(worker.run(driver, driver, nullptr, counters, latency).complete);
  return counters;
}

TEST(LateStart, ASaturatingFlowPostsNothingBeforeItsStart) {
  auto c = compile(
      "[[flow]]\nname = \"early\"\nsize = 64\nrate = \"saturate\"\noutstanding = 4\n"
      "[[flow]]\nname = \"late\"\nsize = 64\nrate = \"saturate\"\noutstanding = 4\n"
      "start = \"1ms\"\n");
  ASSERT_TRUE(c);
  RecordingDriver driver(2, 1000);
  const auto counters = run(c->scenario, driver);
  EXPECT_EQ(driver.sequence_errors_, 0u);
  EXPECT_EQ(driver.first_post(0), 0);
  EXPECT_EQ(driver.first_post(1), 1'000'000);
  // Then saturated like the other: a full window per 1 us turn, from 1 ms to 2 ms.
  EXPECT_EQ(driver.posts_[1].size(), counters[1].counts.posted_messages);
  EXPECT_GE(counters[1].counts.posted_messages, 4u * 990);
  EXPECT_LE(counters[1].counts.posted_messages, 4u * 1001);
  EXPECT_GE(counters[0].counts.posted_messages, 4u * 1990);
}

TEST(LateStart, OnlyLateFlowsTheWorkerWaitsForTheStart) {
  // Nothing at all to do before 700 us: the clock must be told to wait until then, not past it.
  auto c = compile(
      "[[flow]]\nname = \"late\"\nsize = 64\nrate = \"saturate\"\n"
      "start = \"700us\"\n");
  ASSERT_TRUE(c);
  RecordingDriver driver(1, 1000);
  const auto counters = run(c->scenario, driver);
  EXPECT_EQ(driver.first_post(0), 700'000);
  EXPECT_GT(counters[0].counts.posted_messages, 0u);
}

TEST(LateStart, StartStepStaggersTheInstances) {
  auto c = compile(
      "[[flow]]\nname = \"f\"\ncount = 3\nsize = 64\nrate = \"saturate\"\n"
      "start = \"100us\"\nstart_step = \"250us\"\n");
  ASSERT_TRUE(c);
  RecordingDriver driver(3, 1000);
  run(c->scenario, driver);
  EXPECT_EQ(driver.first_post(0), 100'000);
  EXPECT_EQ(driver.first_post(1), 350'000);
  EXPECT_EQ(driver.first_post(2), 600'000);
}

TEST(LateStart, TheStartCountsFromTimeZeroNotFromTheWarmupsEnd) {
  auto c = compile(
      "[[flow]]\nname = \"a\"\nsize = 64\nrate = \"saturate\"\n"
      "[[flow]]\nname = \"b\"\nsize = 64\nrate = \"saturate\"\nstart = \"300us\"\n");
  ASSERT_TRUE(c);
  RecordingDriver driver(2, 1000);
  run(c->scenario, driver, 500'000, 1'000'000);
  EXPECT_EQ(driver.first_post(1), 300'000);
}

TEST(LateStart, AFlowStartingAfterTheRunPostsNothing) {
  auto c = compile(
      "[[flow]]\nname = \"a\"\nsize = 64\nrate = \"saturate\"\n"
      "[[flow]]\nname = \"never\"\nsize = 64\nrate = \"saturate\"\nstart = \"5ms\"\n"
      "[[flow]]\nname = \"never_cbr\"\nsize = 64\nrate = \"1Mpps\"\nstart = \"5ms\"\n");
  ASSERT_TRUE(c);
  RecordingDriver driver(3, 1000);
  const auto counters = run(c->scenario, driver);
  EXPECT_GT(counters[0].counts.posted_messages, 0u);
  EXPECT_EQ(counters[1].counts.posted_messages, 0u);
  EXPECT_EQ(counters[2].counts.posted_messages, 0u);
  EXPECT_TRUE(driver.posts_[1].empty());
  EXPECT_TRUE(driver.posts_[2].empty());
}

TEST(LateStart, ACbrFlowKeepsItsScheduleFromItsStart) {
  auto c = compile(
      "[[flow]]\nname = \"cbr\"\nsize = 64\nrate = \"1Mpps\"\nstart = \"1ms\"\n"
      "[[flow]]\nname = \"now\"\nsize = 64\nrate = \"1Mpps\"\n");
  ASSERT_TRUE(c);
  RecordingDriver driver(2, 250);
  const auto counters = run(c->scenario, driver);
  // Departures at 1 ms, 1.001 ms, ..., 1.999 ms: 1000 of them, each at its time.
  EXPECT_EQ(driver.first_post(0), 1'000'000);
  EXPECT_EQ(counters[0].counts.posted_messages, 1000u);
  EXPECT_EQ(counters[0].counts.late_posts, 0u);
  ASSERT_EQ(driver.posts_[0].size(), 1000u);
  for (size_t i = 0; i < driver.posts_[0].size(); ++i) {
    EXPECT_EQ(driver.posts_[0][i], 1'000'000 + static_cast<int64_t>(i) * 1000) << i;
  }
  // The flow without a start: 2000 from time zero.
  EXPECT_EQ(driver.first_post(1), 0);
  EXPECT_EQ(counters[1].counts.posted_messages, 2000u);
}

}  // namespace
}  // namespace qb::engine
