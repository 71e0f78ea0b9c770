// FlowWorker against a fake real-time driver that folds completions: each poll() returns one
// tx_done per flow covering every message that flow posted since the last poll (as the DPDK
// driver folds a burst's frames). The worker must keep saturating windows full, never exceed a
// window, and post CBR messages on their schedule.
#include "flow_worker.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::engine {
namespace {

class FoldingDriver final : public drv::Queue, public drv::Clock {
 public:
  FoldingDriver(uint32_t flows, uint32_t window, int64_t step_ns)
      : window_(window),
        step_ns_(step_ns),
        in_flight_(flows, 0),
        pending_(flows, 0),
        next_sequence_(flows, 0),
        posted_(flows, 0) {}

  uint32_t tx_burst(std::span<const drv::Message> messages) noexcept override {
    for (const drv::Message& m : messages) {
      if (m.sequence != next_sequence_[m.flow]) ++sequence_errors_;
      ++next_sequence_[m.flow];
      ++posted_[m.flow];
      ++pending_[m.flow];
      if (++in_flight_[m.flow] > window_) ++window_overruns_;
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
      in_flight_[f] -= pending_[f];
      pending_[f] = 0;
      ++folded_completions_;
    }
    return n;
  }

  int64_t now_ns() noexcept override { return now_; }
  // Time moves on a grid of step_ns, like a loop that wakes every step: a deadline between
  // two steps is met late, at the next one. A completion to poll ends the wait at the next step.
  void wait_until(int64_t deadline_ns) noexcept override {
    const bool completions =
        std::any_of(pending_.begin(), pending_.end(), [](uint32_t n) { return n != 0; });
    const int64_t target = completions ? now_ + 1 : std::max(now_ + 1, deadline_ns);
    now_ = (target + step_ns_ - 1) / step_ns_ * step_ns_;
  }
  std::string_view name() const noexcept override { return "fake-tsc"; }

  uint32_t window_;
  int64_t step_ns_;
  int64_t now_ = 0;
  std::vector<uint32_t> in_flight_;
  std::vector<uint32_t> pending_;
  std::vector<uint64_t> next_sequence_;
  std::vector<uint64_t> posted_;
  uint64_t sequence_errors_ = 0;
  uint64_t window_overruns_ = 0;
  uint64_t folded_completions_ = 0;
};

suite::CompiledScenario compile(const std::string& flows_toml, suite::Suite& suite_out) {
  const std::string text =
      "[suite]\nname = \"fold\"\nwarmup = \"0s\"\nduration = \"1ms\"\nbin = \"1ms\"\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"eth\"\nmtu = 1500\n" +
      flows_toml;
  auto suite = suite::load_suite_string(text, "fold.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  suite_out = std::move(*suite);
  std::vector<Warning> warnings;
  auto compiled = suite::compile_scenario(suite_out.scenarios[0], warnings);
  EXPECT_TRUE(compiled.ok()) << compiled.error().to_string();
  return std::move(*compiled);
}

// Runs one FlowWorker over 1 ms on the fake driver (the driver's window: max_outstanding);
// returns its counters, or none when the run did not complete.
std::vector<FlowCounters> run_folded(const suite::CompiledScenario& compiled, FoldingDriver& driver,
                                     uint32_t max_outstanding) {
  WorkerWindow window;
  window.duration_ns = 1'000'000;
  window.bin_ns = 1'000'000;
  window.max_outstanding = max_outstanding;
  FlowWorker worker(compiled, 1, window);
  std::vector<FlowCounters> counters(compiled.plan.flows.size());
  std::vector<FlowLatency> latency(compiled.plan.flows.size());
  if (!worker.run(driver, driver, nullptr, counters, latency).complete) return {};
  return counters;
}

TEST(FlowWorkerFolded, SaturatingWindowsStayFullWithMultiMessageCompletions) {
  suite::Suite suite;
  const suite::CompiledScenario compiled = compile(
      "[[flow]]\nname = \"bulk\"\ncount = 3\nsize = 64\nrate = \"saturate\"\noutstanding = 8\n",
      suite);
  FoldingDriver driver(3, 8, 1000);
  const auto counters = run_folded(compiled, driver, 64);
  ASSERT_EQ(counters.size(), 3u);
  EXPECT_EQ(driver.sequence_errors_, 0u);
  EXPECT_EQ(driver.window_overruns_, 0u);
  for (uint32_t f = 0; f < 3; ++f) {
    // Each poll folds a whole window into one completion, and the worker refills all of it:
    // 8 messages per loop turn (1000 turns of 1 us), not 1.
    EXPECT_GE(driver.posted_[f], 8u * 900) << "flow " << f;
    EXPECT_EQ(counters[f].counts.posted_messages, driver.posted_[f]) << "flow " << f;
  }
  EXPECT_LT(driver.folded_completions_, driver.posted_[0] + driver.posted_[1] + driver.posted_[2]);
}

TEST(FlowWorkerFolded, CbrFlowsKeepTheirScheduleBehindASmallWindow) {
  suite::Suite suite;
  const suite::CompiledScenario compiled =
      compile("[[flow]]\nname = \"cbr\"\ncount = 2\nsize = 64\nrate = \"4Mpps\"\n", suite);
  FoldingDriver driver(2, 2,
                       1000);  // 4 messages are due per 1 us step: the window blocks each turn
  const auto counters = run_folded(compiled, driver, 2);
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(driver.sequence_errors_, 0u);
  EXPECT_EQ(driver.window_overruns_, 0u);
  for (uint32_t f = 0; f < 2; ++f) {
    // A blocked flow comes back when a folded completion frees its window: it posts a full
    // window (2) every 1 us turn, late but in sequence. Lost re-queues would stop it early.
    EXPECT_GE(counters[f].counts.posted_messages, 1990u) << "flow " << f;
    EXPECT_LE(counters[f].counts.posted_messages, 2002u) << "flow " << f;
    EXPECT_GT(counters[f].counts.late_posts, 1900u) << "flow " << f;
  }
}

TEST(FlowWorkerFolded, CbrFlowsPostExactlyTheirScheduleWhenNeverBlocked) {
  suite::Suite suite;
  const suite::CompiledScenario compiled =
      compile("[[flow]]\nname = \"cbr\"\ncount = 2\nsize = 64\nrate = \"1Mpps\"\n", suite);
  FoldingDriver driver(2, 64, 250);
  const auto counters = run_folded(compiled, driver, 64);
  ASSERT_EQ(counters.size(), 2u);
  for (uint32_t f = 0; f < 2; ++f) {
    // Departures at 0, 1 us, ..., 999 us: 1000 of them, each posted at its time.
    EXPECT_EQ(counters[f].counts.posted_messages, 1000u) << "flow " << f;
    EXPECT_EQ(counters[f].counts.late_posts, 0u) << "flow " << f;
  }
}

// A driver whose clock never moves while full batches of completions keep coming (a flooded
// port): the worker must still return, on the stop flag, and on a real-time driver by the wall
// clock (warmup + duration + drain bound), marked incomplete.
class StalledFloodingDriver final : public drv::Queue, public drv::Clock {
 public:
  uint32_t tx_burst(std::span<const drv::Message> messages) noexcept override {
    return static_cast<uint32_t>(messages.size());
  }
  uint32_t poll(std::span<drv::Completion> out) noexcept override {
    for (drv::Completion& c : out) {
      c = drv::Completion{};
      c.kind = drv::Completion::Kind::rx_packet;
      c.flow = 0;
      c.time_ns = 0;  // before the window: counted nowhere
    }
    if (++polls_ == stop_after_polls_ && stop_ != nullptr) stop_->store(true);
    return static_cast<uint32_t>(out.size());
  }
  int64_t now_ns() noexcept override { return 0; }
  void wait_until(int64_t /*deadline_ns*/) noexcept override {}
  std::string_view name() const noexcept override { return "stalled"; }

  uint64_t polls_ = 0;
  uint64_t stop_after_polls_ = 0;
  std::atomic<bool>* stop_ = nullptr;
};

TEST(FlowWorker, AStalledClockWithEndlessCompletionsStillEnds) {
  suite::Suite suite;
  const auto compiled = compile("[[flow]]\nname = \"a\"\nsize = 64\nrate = \"saturate\"\n", suite);
  std::vector<FlowCounters> counters(compiled.plan.flows.size());
  std::vector<FlowLatency> latency(compiled.plan.flows.size());
  for (const bool virtual_time : {false, true}) {
    WorkerWindow window;
    window.warmup_ns = 1'000'000;
    window.duration_ns = 1'000'000;
    window.drain_bound_ns = 10'000'000;
    window.virtual_time = virtual_time;
    std::atomic<bool> stop{false};
    StalledFloodingDriver driver;
    if (virtual_time) {  // no wall deadline: the stop flag (a signal) ends it
      driver.stop_ = &stop;
      driver.stop_after_polls_ = 1000;
    }
    FlowWorker worker(compiled, 1, window);
    const auto start = std::chrono::steady_clock::now();
    const WorkerOutcome outcome = worker.run(driver, driver, &stop, counters, latency);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(outcome.complete) << virtual_time;
    EXPECT_EQ(outcome.measured_ns, 0) << virtual_time;
    EXPECT_LT(seconds, 5.0) << virtual_time;
  }
}

}  // namespace
}  // namespace qb::engine
