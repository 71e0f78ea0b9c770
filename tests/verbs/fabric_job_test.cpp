// Verbs ranks of a fabric job (issue 29 part 7): a suite's [topology] of three hosts, each rank
// sending its host's flows and receiving those destined to it — requesters for its own flows,
// responders for the others' flows to it, connected through the job's exchange
// (format_fabric_record / match_fabric_records) — on one fake ConnectX shared by three threads
// (the fake lives in one process). Each thread runs the engine as a rank (cluster's HostRole
// and role_spread over a Communicator of threads); rank 0 merges each flow from its receiving
// and sending ranks and judges the run against the fabric's expectation.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "fake_mlx5.hpp"
#include "job_exchange.hpp"
#include "loaded_suite.hpp"
#include "qb/cluster/host_roles.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/judge/run_metadata.hpp"
#include "two_hosts_fixture.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

// The ranks' collectives as MPI matches them: the n-th collective of every rank meets the n-th
// of the others.
class Board {
 public:
  explicit Board(uint32_t ranks) : ranks_(ranks) {}
  Result<std::vector<std::string>> meet(uint64_t round, uint32_t rank, std::string mine) {
    std::unique_lock lock(mutex_);
    auto& slots = rounds_[round];
    slots.resize(ranks_);
    slots[rank] = std::move(mine);
    changed_.notify_all();
    const bool all = changed_.wait_for(lock, std::chrono::seconds(60), [&] {
      for (const auto& slot : slots) {
        if (!slot) return false;
      }
      return true;
    });
    if (!all) return make_error(Errc::runtime, "a rank never reached the collective");
    std::vector<std::string> out;
    for (const auto& slot : slots) out.push_back(*slot);
    return out;
  }

 private:
  uint32_t ranks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, std::vector<std::optional<std::string>>> rounds_;
};

class ThreadRank final : public cluster::Communicator {
 public:
  ThreadRank(Board& board, uint32_t rank, uint32_t size) : board_(board), rank_(rank), size_(size) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }
  const std::string& host_name() const override { return host_; }
  Result<std::vector<std::string>> gather(const std::string& mine, uint32_t root,
                                          const cluster::Wait&) override {
    auto all = board_.meet(round_++, rank_, mine);
    if (!all || rank_ == root) return all;
    return std::vector<std::string>{};
  }
  Result<std::string> broadcast(const std::string& value, uint32_t root,
                                const cluster::Wait&) override {
    auto all = board_.meet(round_++, rank_, value);
    if (!all) return std::move(all).error();
    return (*all)[root];
  }
  Status barrier(const cluster::Wait&) override {
    auto all = board_.meet(round_++, rank_, "");
    return all ? Status{} : Status(std::move(all).error());
  }
  Result<PingPong> ping_pong(uint32_t, int64_t (*)(), const cluster::Wait&) override {
    return make_error(Errc::runtime, "no ping-pong between threads");
  }
  [[noreturn]] void abort(int) override { std::abort(); }

 private:
  Board& board_;
  uint32_t rank_;
  uint32_t size_;
  uint64_t round_ = 0;
  std::string host_ = "threads";
};

// The verbs driver, whose stop() notes how many ranks had ended their flows by then: a rank that
// tears its responders down while another still posts RDMA WRITEs to them breaks that rank's
// flows (on the fake: a violation; on a ConnectX: remote access errors).
class StopAfterAllEnded final : public DriverBackend {
 public:
  StopAfterAllEnded(std::unique_ptr<DriverBackend> inner, const std::atomic<uint32_t>& ended,
                    std::atomic<uint32_t>& stops_before_all_ended, uint32_t ranks)
      : inner_(std::move(inner)),
        ended_(ended),
        stops_before_all_ended_(stops_before_all_ended),
        ranks_(ranks) {}
  Capabilities capabilities() const override { return inner_->capabilities(); }
  Status check_plan(const policy::QosPlan& plan, const PlanContext& context) const override {
    return inner_->check_plan(plan, context);
  }
  Status open(const Topology& topology) override { return inner_->open(topology); }
  Status apply(const policy::QosPlan& plan) override { return inner_->apply(plan); }
  Status start() override { return inner_->start(); }
  Queue& queue(uint32_t worker) override { return inner_->queue(worker); }
  Clock& clock(uint32_t worker) override { return inner_->clock(worker); }
  Status stop() override {
    if (ended_.load() < ranks_) stops_before_all_ended_.fetch_add(1);
    return inner_->stop();
  }
  DriverStats stats() const override { return inner_->stats(); }
  void close() noexcept override { inner_->close(); }

 private:
  std::unique_ptr<DriverBackend> inner_;
  const std::atomic<uint32_t>& ended_;
  std::atomic<uint32_t>& stops_before_all_ended_;
  uint32_t ranks_;
};

// Who sends and who receives each flow (rank i plays host i).
cluster::FabricFlows flows_of(const suite::CompiledScenario& compiled) {
  cluster::FabricFlows flows;
  flows.groups = static_cast<uint32_t>(compiled.scenario->flows.size());
  for (uint32_t f = 0; f < compiled.plan.flows.size(); ++f) {
    flows.source_rank.push_back(compiled.plan.flows[f].host);
    flows.destination_rank.push_back(compiled.plan.graph->flow_destination[f]);
    flows.group.push_back(compiled.flow_spec[f]);
  }
  return flows;
}

TEST(VerbsFabricJob, ThreeRanksEachSendingAndReceivingAreJudgedAgainstTheFabric) {
  const auto loaded = load("tests/verbs/fabric_three_hosts.toml");
  ASSERT_EQ(loaded.compiled.size(), 1u);
  const suite::CompiledScenario& compiled = loaded.compiled[0];
  ASSERT_TRUE(compiled.plan.graph);
  const suite::PortSpec& port = compiled.scenario->port;
  FakeDeviceConfig device = fake_device_for_port(port.rate_bps, port.wire, 0);
  device.timing = FakeTiming::instant;  // real time: three drivers on one fake
  FakeMlx5 fake(device);
  LockedOps ops(fake);
  constexpr uint32_t kRanks = 3;
  std::atomic<uint32_t> ranks_ended{0};
  std::atomic<uint32_t> stops_before_all_ended{0};
  DriverEntry entry;
  entry.name = "verbs";
  entry.available = true;
  entry.create = [&](const DriverOptions&) -> Result<std::unique_ptr<DriverBackend>> {
    return std::unique_ptr<DriverBackend>(
        std::make_unique<StopAfterAllEnded>(make_verbs_backend(VerbsConfig{}, &ops), ranks_ended,
                                            stops_before_all_ended, kRanks));
  };
  struct NoOptions final : DriverOptions {};
  const DriverFactory factory(entry, std::make_shared<NoOptions>());

  Board board(kRanks);
  std::atomic<bool> stop{false};
  cluster::Wait wait;
  wait.stop = &stop;
  const std::vector<cluster::FabricFlows> flows = {flows_of(compiled)};
  std::optional<Result<engine::SuiteRun>> at_rank0;
  std::array<std::string, kRanks> errors;
  auto rank_main = [&](uint32_t rank) {
    ThreadRank comm(board, rank, kRanks);
    auto roles = cluster::place_roles(suite::FabricSpec{},
                                      std::vector<std::string>(kRanks, "threads"), kRanks);
    if (!roles) {
      errors[rank] = roles.error().to_string();
      return;
    }
    std::vector<cluster::ClockOffset> offsets;  // rank 0's estimate: one clock here
    if (rank == 0) {
      for (uint32_t r = 0; r < kRanks; ++r) offsets.push_back({r, "threads", 0, 0, 0});
    }
    engine::HostRole role = cluster::host_role(comm, *roles, wait, 0);
    role.at_end = [job_wide = role.at_end, &ranks_ended]() {
      ranks_ended.fetch_add(1);
      return job_wide();
    };
    std::string problem;
    const engine::TaskSpread spread =
        cluster::role_spread(comm, *roles, wait, offsets, problem, &flows);
    engine::RunOptions options;
    options.interrupted = &stop;
    options.host_role = &role;
    options.spread = &spread;
    auto run = engine::run_suite(loaded.suite, loaded.compiled, factory, options);
    if (!problem.empty()) errors[rank] = problem;
    if (!run) errors[rank] = run.error().to_string();
    if (rank == 0) at_rank0.emplace(std::move(run));
  };
  std::vector<std::thread> ranks;
  for (uint32_t r = 0; r < kRanks; ++r) ranks.emplace_back(rank_main, r);
  for (auto& thread : ranks) thread.join();
  for (uint32_t r = 0; r < kRanks; ++r) ASSERT_EQ(errors[r], "") << "rank " << r;
  ASSERT_TRUE(at_rank0 && at_rank0->ok());
  const engine::SuiteRun& run = **at_rank0;
  ASSERT_TRUE(run.complete);

  // Each flow had one requester (at its source) and one responder (at its destination): 2 QPs
  // per flow, not a pair on every rank.
  size_t qps = 0;
  for (const auto& call : fake.calls()) qps += call.starts_with("create_qp(") ? 1 : 0;
  EXPECT_EQ(qps, 2 * compiled.plan.flows.size());
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  // No rank stopped its driver before every rank's flows had ended.
  EXPECT_EQ(ranks_ended.load(), kRanks);
  EXPECT_EQ(stops_before_all_ended.load(), 0u);
  for (const auto& v : fake.violations()) ADD_FAILURE() << v;

  // Every rank's driver statistics under rank<r>.
  const auto& stats = run.scenarios[0].reps[0].driver_stats;
  for (uint32_t r = 0; r < kRanks; ++r) {
    const std::string prefix = "rank" + std::to_string(r) + ".";
    EXPECT_TRUE(std::any_of(stats.begin(), stats.end(),
                            [&](const auto& stat) { return stat.first.starts_with(prefix); }))
        << "no statistics of rank " << r;
  }

  auto results = judge::judge_run(loaded.suite, run, engine::measure(run),
                                  judge::current_run_metadata({}));
  ASSERT_TRUE(results.ok()) << results.error().to_string();
  ASSERT_EQ(results->scenarios.size(), 1u);
  const auto& judged = results->scenarios[0].flows;
  ASSERT_EQ(judged.size(), compiled.plan.flows.size());
  std::printf("verdict: %s\n", results->verdict.summary.c_str());
  for (const auto& warning : results->warnings) {
    std::printf("warning: %s\n", warning.c_str());  // e.g. three pollers starved on two cores
  }
  for (size_t f = 0; f < judged.size(); ++f) {
    const policy::FlowPlan& plan = compiled.plan.flows[f];
    std::printf("%s: host %u -> host %u: expected %.3f measured %.3f Mbit/s (%+.2f%%)\n",
                judged[f].name.c_str(), plan.host, compiled.plan.graph->flow_destination[f],
                judged[f].expected_bps / 1e6, judged[f].measured_bps / 1e6,
                100 * judged[f].error);
    // The fabric's expectation: far below every link, every flow gets what it offers.
    EXPECT_NEAR(judged[f].expected_bps, plan.offered_wire_bps, 1e-9 * plan.offered_wire_bps)
        << judged[f].name;
    // Measured at its destination's rank: it arrived there, and no more than its source
    // posted. (How close to its rate depends on the CPU three polling threads get on a shared
    // machine — a starved rank's flows fall short together —: the verdict is printed.)
    EXPECT_GT(judged[f].measured_bps, 0.0) << judged[f].name;
    EXPECT_LT(judged[f].measured_bps, 1.1 * judged[f].expected_bps) << judged[f].name;
    const engine::Counters& counts = run.scenarios[0].reps[0].flows[f].counts;
    EXPECT_GT(counts.posted_messages, 0u) << judged[f].name << ": its sender's posts";
    EXPECT_LE(counts.messages, counts.posted_messages) << judged[f].name;
  }
}

TEST(VerbsFabricJob, EachFlowIsMatchedWithItsOtherSideAcrossTheRanks) {
  constexpr uint64_t kHash = 0xabc;
  const auto endpoint = [](uint32_t flow, uint32_t qp) {
    QpEndpoint e;
    e.flow = flow;
    e.qp_num = qp;
    return e;
  };
  // Flow 0: rank 0 -> rank 1; flow 1: rank 1 -> rank 0.
  const std::string rank0 = format_fabric_record(kHash, 2, 0, {endpoint(0, 10)}, {endpoint(1, 11)});
  const std::string rank1 = format_fabric_record(kHash, 2, 1, {endpoint(1, 20)}, {endpoint(0, 21)});
  auto at0 = match_fabric_records({rank0, rank1}, kHash, 2, {0}, {1});
  ASSERT_TRUE(at0) << at0.error().to_string();
  EXPECT_EQ(at0->responder_of[0].qp_num, 21u);  // rank 0 writes into rank 1's responder
  EXPECT_EQ(at0->requester_of[1].qp_num, 20u);  // and answers rank 1's requester
  // Another plan is the suite's error; a flow nobody receives, or sent twice, the run's.
  auto other = match_fabric_records({rank0, format_fabric_record(kHash + 1, 2, 1, {}, {})},
                                    kHash, 2, {0}, {1});
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, Errc::invalid_config);
  EXPECT_EQ(other.error().where, "driver.verbs");
  auto unreceived =
      match_fabric_records({rank0, format_fabric_record(kHash, 2, 1, {endpoint(1, 20)}, {})},
                           kHash, 2, {0}, {1});
  ASSERT_FALSE(unreceived);
  EXPECT_NE(unreceived.error().message.find("flow 0 has no rank that receives it"),
            std::string::npos)
      << unreceived.error().message;
  auto twice = match_fabric_records(
      {rank0, format_fabric_record(kHash, 2, 1, {endpoint(0, 30)}, {endpoint(0, 21)})}, kHash,
      2, {0}, {1});
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("sent by ranks 0 and 1"), std::string::npos);
  // A one-receiver job's record, or a record in another rank's place, is not one.
  auto malformed = match_fabric_records(
      {rank0, format_job_record(kHash, 2, true, {endpoint(0, 21)})}, kHash, 2, {0}, {1});
  ASSERT_FALSE(malformed);
  auto misplaced = match_fabric_records({rank1, rank0}, kHash, 2, {0}, {1});
  ASSERT_FALSE(misplaced);
}

}  // namespace
}  // namespace qb::drv::verbs
