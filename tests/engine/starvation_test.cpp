// The worker loop's starvation watch on a fake real-time driver: a clock that jumps (the
// thread was off its CPU, or one of its own iterations was slow) is counted as a stall, the
// run-queue delay the thread reader reports is the loss (a stall alone is not: the loop's own
// slow iterations are no time lost to other processes), waits the loop asks for are not stalls,
// and nothing is watched in virtual time.
#include "qb/engine/starvation.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "flow_worker.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::engine {
namespace {

// Takes every message at once and completes it at the next poll; time moves only in waits,
// by 1 us a call, and jumps by `gap_ns` once when it first passes `gap_at_ns`.
class JumpingDriver final : public drv::Queue, public drv::Clock {
 public:
  JumpingDriver(int64_t gap_at_ns, int64_t gap_ns) : gap_at_ns_(gap_at_ns), gap_ns_(gap_ns) {}

  uint32_t tx_burst(std::span<const drv::Message> messages) noexcept override {
    for (const drv::Message& m : messages) pending_.push_back(m);
    return static_cast<uint32_t>(messages.size());
  }
  uint32_t poll(std::span<drv::Completion> out) noexcept override {
    const auto n = static_cast<uint32_t>(std::min(out.size(), pending_.size()));
    for (uint32_t i = 0; i < n; ++i) {
      drv::Completion& c = out[i];
      c = drv::Completion{};
      c.kind = drv::Completion::Kind::tx_done;
      c.flow = pending_[i].flow;
      c.sequence = pending_[i].sequence;
      c.time_ns = now_;
    }
    pending_.erase(pending_.begin(), pending_.begin() + n);
    return n;
  }
  int64_t now_ns() noexcept override {
    if (!jumped_ && now_ >= gap_at_ns_) {
      jumped_ = true;
      now_ += gap_ns_;  // the thread was off its CPU for gap_ns
    }
    return now_;
  }
  void wait_until(int64_t deadline_ns) noexcept override {
    now_ = pending_.empty() ? std::max(now_ + 1000, deadline_ns) : now_ + 1000;
  }
  std::string_view name() const noexcept override { return "fake-tsc"; }

 private:
  int64_t gap_at_ns_;
  int64_t gap_ns_;
  bool jumped_ = false;
  int64_t now_ = 0;
  std::vector<drv::Message> pending_;
};

// The thread reader's answers: the first call (loop start) and every later one (loop end).
ThreadSched g_sched_start;
ThreadSched g_sched_end;
int g_sched_reads = 0;
ThreadSched fake_sched() noexcept {
  return g_sched_reads++ == 0 ? g_sched_start : g_sched_end;
}

struct Watched {
  WorkerOutcome outcome;
  int reads = 0;
};

// One CBR flow (a message every `interval`) for 100 ms on the jumping driver.
Watched run_watched(const std::string& rate, int64_t gap_at_ns, int64_t gap_ns,
                    bool virtual_time = false) {
  const std::string text =
      "[suite]\nname = \"starve\"\nwarmup = \"0s\"\nduration = \"100ms\"\nbin = \"1ms\"\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"eth\"\nmtu = 1500\n"
      "[[flow]]\nname = \"f\"\nsize = 64\nrate = \"" +
      rate + "\"\n";
  auto suite = suite::load_suite_string(text, "starve.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto compiled = suite::compile_scenario(suite->scenarios[0], warnings);
  EXPECT_TRUE(compiled.ok()) << compiled.error().to_string();
  WorkerWindow window;
  window.duration_ns = 100'000'000;
  window.bin_ns = 1'000'000;
  window.virtual_time = virtual_time;
  window.read_sched = fake_sched;
  g_sched_reads = 0;
  FlowWorker worker(*compiled, 1, window);
  JumpingDriver driver(gap_at_ns, gap_ns);
  std::vector<FlowCounters> counters(1);
  std::vector<FlowLatency> latency(1);
  Watched out;
  out.outcome = worker.run(driver, driver, nullptr, counters, latency);
  out.reads = g_sched_reads;
  return out;
}

class StarvationWatch : public ::testing::Test {
 protected:
  void SetUp() override {
    g_sched_start = ThreadSched{true, 1'000'000, 10};
    g_sched_end = g_sched_start;
  }
};

TEST_F(StarvationWatch, AnUnstarvedLoopIsNotFlagged) {
  const Watched w = run_watched("1Mpps", INT64_MAX, 0);
  ASSERT_TRUE(w.outcome.complete);
  const WorkerStarvation& s = w.outcome.starvation;
  EXPECT_TRUE(s.measured);
  EXPECT_EQ(w.reads, 2);
  EXPECT_EQ(s.stalls, 0u);
  EXPECT_EQ(s.lost_ns, 0);
  EXPECT_EQ(s.involuntary_switches, 0);
  EXPECT_GE(s.run_ns, 100'000'000);
  EXPECT_LE(s.lost_fraction(), kStarvationWarnFraction);
}

TEST_F(StarvationWatch, AJumpInTheLoopIsAStallButNoLossWithoutRunQueueDelay) {
  // 20 ms half-way through a 100 ms run of a message every microsecond, while the kernel says
  // the thread never waited for its CPU: the loop's own slow iteration (imix_256_flows on an
  // idle machine had 83 of them, 42 ms in all, and 18 us of run-queue delay).
  const Watched w = run_watched("1Mpps", 50'000'000, 20'000'000);
  const WorkerStarvation& s = w.outcome.starvation;
  EXPECT_EQ(s.stalls, 1u);
  EXPECT_GE(s.stalled_ns, 20'000'000);
  EXPECT_LT(s.stalled_ns, 20'000'000 + kStallThresholdNs);
  EXPECT_EQ(s.longest_stall_ns, s.stalled_ns);
  EXPECT_EQ(s.lost_ns, 0);  // kept as information, not counted
  EXPECT_LE(s.lost_fraction(), kStarvationWarnFraction);
}

TEST_F(StarvationWatch, AShortJumpIsNoStall) {
  const Watched w = run_watched("1Mpps", 50'000'000, kStallThresholdNs / 2);
  EXPECT_EQ(w.outcome.starvation.stalls, 0u);
  EXPECT_EQ(w.outcome.starvation.lost_ns, 0);
}

TEST_F(StarvationWatch, WaitsTheLoopAsksForAreNotStalls) {
  // One message every 5 ms: the loop waits 5 ms between them, far above the stall threshold.
  const Watched w = run_watched("200pps", INT64_MAX, 0);
  ASSERT_TRUE(w.outcome.complete);
  EXPECT_EQ(w.outcome.starvation.stalls, 0u);
  EXPECT_EQ(w.outcome.starvation.lost_ns, 0);
}

TEST_F(StarvationWatch, RunQueueDelayIsTheLoss) {
  // The thread waited 30 ms for its CPU in small pieces, none a stall by itself.
  g_sched_end = ThreadSched{true, 31'000'000, 250};
  const Watched w = run_watched("1Mpps", INT64_MAX, 0);
  const WorkerStarvation& s = w.outcome.starvation;
  EXPECT_EQ(s.stalls, 0u);
  EXPECT_EQ(s.run_delay_ns, 30'000'000);
  EXPECT_EQ(s.lost_ns, 30'000'000);
  EXPECT_EQ(s.involuntary_switches, 240);
  EXPECT_GT(s.lost_fraction(), kStarvationInvalidFraction);
}

TEST_F(StarvationWatch, WithSchedstatTheRunQueueDelayIsTheLossWhateverTheStalls) {
  g_sched_end = ThreadSched{true, 6'000'000, 12};  // 5 ms waiting, 20 ms stalled
  const Watched w = run_watched("1Mpps", 50'000'000, 20'000'000);
  EXPECT_GE(w.outcome.starvation.stalled_ns, 20'000'000);
  EXPECT_EQ(w.outcome.starvation.lost_ns, 5'000'000);
  EXPECT_EQ(w.outcome.starvation.involuntary_switches, 2);
}

TEST_F(StarvationWatch, NoSchedstatCountsStallsWithAnInvoluntarySwitch) {
  g_sched_start.available = false;
  g_sched_end = ThreadSched{false, 0, 11};  // one involuntary switch
  const Watched w = run_watched("1Mpps", 50'000'000, 20'000'000);
  EXPECT_EQ(w.outcome.starvation.run_delay_ns, 0);
  EXPECT_GE(w.outcome.starvation.lost_ns, 20'000'000);
  EXPECT_EQ(w.outcome.starvation.lost_ns, w.outcome.starvation.stalled_ns);
}

TEST_F(StarvationWatch, NoSchedstatAndNoInvoluntarySwitchIsNoLoss) {
  g_sched_start.available = false;
  g_sched_end = ThreadSched{false, 0, 10};  // the thread was never switched out
  const Watched w = run_watched("1Mpps", 50'000'000, 20'000'000);
  EXPECT_EQ(w.outcome.starvation.stalls, 1u);
  EXPECT_EQ(w.outcome.starvation.lost_ns, 0);
}

TEST(StarvationLost, WithoutSchedstatNoMoreStallsThanInvoluntarySwitches) {
  WorkerStarvation s;
  s.stalls = 83;
  s.stalled_ns = 42'000'000;
  s.longest_stall_ns = 1'000'000;
  s.run_delay_ns = 18'000;
  s.involuntary_switches = 2;
  EXPECT_EQ(lost_to_others(true, s), 18'000);
  EXPECT_EQ(lost_to_others(false, s), 2'000'000);  // two stalls at most, each <= the longest
  s.involuntary_switches = 500;
  EXPECT_EQ(lost_to_others(false, s), 42'000'000);  // every stall, never more than their sum
  s.involuntary_switches = 0;
  EXPECT_EQ(lost_to_others(false, s), 0);
}

TEST_F(StarvationWatch, VirtualTimeIsNotWatched) {
  const Watched w = run_watched("1Mpps", 50'000'000, 20'000'000, /*virtual_time=*/true);
  EXPECT_FALSE(w.outcome.starvation.measured);
  EXPECT_EQ(w.reads, 0);
  EXPECT_EQ(w.outcome.starvation.stalls, 0u);
}

TEST(StarvationKeepWorse, TheLargerFractionWins) {
  WorkerStarvation a;
  a.measured = true;
  a.run_ns = 100;
  a.lost_ns = 5;
  WorkerStarvation b = a;
  b.run_ns = 10;
  b.lost_ns = 2;
  WorkerStarvation worst;
  worst.keep_worse(WorkerStarvation{});  // not measured: ignored
  EXPECT_FALSE(worst.measured);
  worst.keep_worse(a);
  worst.keep_worse(b);
  EXPECT_EQ(worst.lost_ns, 2);
  worst.keep_worse(a);
  EXPECT_EQ(worst.lost_ns, 2);
}

// Spins on this thread for `ns` of wall time.
void spin_for(std::chrono::nanoseconds ns) {
  const auto end = std::chrono::steady_clock::now() + ns;
  while (std::chrono::steady_clock::now() < end) {
  }
}

// What the reader promises: this thread's time runnable but off its CPU, and its involuntary
// switches. Two threads spinning on one CPU take it from each other: both figures grow, the
// delay by about half the time spun (the rest is CPU time, not a loss), and a thread that
// sleeps meanwhile does not lose that much.
TEST(ThreadSchedReader, CountsTheTimeAnotherThreadOnTheCpuTookFromThisOne) {
  if (!read_thread_sched().available) {
    GTEST_SKIP() << "/proc/thread-self/schedstat is not readable here";
  }
  cpu_set_t one_cpu;
  CPU_ZERO(&one_cpu);
  if (sched_getaffinity(0, sizeof(one_cpu), &one_cpu) != 0) GTEST_SKIP() << "no affinity";
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &one_cpu)) ++cpu;
  CPU_ZERO(&one_cpu);
  CPU_SET(cpu, &one_cpu);
  constexpr auto kSpin = std::chrono::milliseconds(200);
  std::atomic<bool> pinned{false};
  ThreadSched sleeper_before, sleeper_after;
  std::thread competitor([&] {
    if (pthread_setaffinity_np(pthread_self(), sizeof(one_cpu), &one_cpu) == 0) pinned = true;
    spin_for(kSpin);
  });
  std::thread sleeper([&] {
    sleeper_before = read_thread_sched();
    std::this_thread::sleep_for(kSpin);
    sleeper_after = read_thread_sched();
  });
  cpu_set_t before_affinity;
  pthread_getaffinity_np(pthread_self(), sizeof(before_affinity), &before_affinity);
  const bool pinned_here = pthread_setaffinity_np(pthread_self(), sizeof(one_cpu), &one_cpu) == 0;
  const ThreadSched before = read_thread_sched();
  spin_for(kSpin);
  const ThreadSched after = read_thread_sched();
  competitor.join();
  sleeper.join();
  pthread_setaffinity_np(pthread_self(), sizeof(before_affinity), &before_affinity);
  if (!pinned_here || !pinned) GTEST_SKIP() << "threads cannot be pinned to one CPU here";
  const int64_t waited_ns = after.run_delay_ns - before.run_delay_ns;
  // Each spinner runs about half of the 200 ms: at least 20 ms waited, at most all of it.
  EXPECT_GT(waited_ns, 20'000'000) << "run-queue delay while sharing a CPU";
  EXPECT_LT(waited_ns, 1'000'000'000);
  EXPECT_GT(after.involuntary_switches, before.involuntary_switches);
  // The figures are this thread's: the sleeper was not runnable, it lost (almost) nothing.
  EXPECT_LT(sleeper_after.run_delay_ns - sleeper_before.run_delay_ns, waited_ns);
}

}  // namespace
}  // namespace qb::engine
