// The verbs driver in a multi-host job (Topology::job): three ranks as threads of this process
// on one fake ConnectX — two senders, each with its own flows, and the receiver of every flow —
// exchange their QPs through the job's all-gather (here over threads; in qosbench, cluster/'s
// over MPI) instead of a TCP link, then the senders write into the receiver's buffers.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <latch>
#include <mutex>
#include <thread>

#include "fake_mlx5.hpp"
#include "job_exchange.hpp"
#include "two_hosts_fixture.hpp"
#include "verbs_driver.hpp"

namespace qb::drv::verbs {
namespace {

// One all-gather among `ranks` threads (each rank calls it once).
class ThreadJob {
 public:
  explicit ThreadJob(uint32_t ranks) : slots_(ranks) {}

  class Rank final : public JobExchange {
   public:
    Rank(ThreadJob& job, uint32_t rank) : job_(job), rank_(rank) {}
    Result<std::vector<std::string>> all_gather(const std::string& mine) override {
      return job_.all_gather(rank_, mine);
    }

   private:
    ThreadJob& job_;
    uint32_t rank_;
  };

  Result<std::vector<std::string>> all_gather(uint32_t rank, const std::string& mine) {
    std::unique_lock lock(mutex_);
    slots_[rank] = mine;
    if (++arrived_ == slots_.size()) everyone_.notify_all();
    if (!everyone_.wait_for(lock, std::chrono::seconds(20),
                            [&] { return arrived_ == slots_.size(); })) {
      return make_error(Errc::runtime, "a rank never joined the all-gather");
    }
    return slots_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable everyone_;
  std::vector<std::string> slots_;
  size_t arrived_ = 0;
};

Topology job_topology(const policy::QosPlan& plan, JobExchange& exchange, bool receiver,
                      std::vector<uint32_t> sent_flows) {
  Topology topology = topology_for(plan);
  JobPart part;
  part.exchange = &exchange;
  part.receiver = receiver;
  part.sent_flows = std::move(sent_flows);
  topology.job = std::move(part);
  return topology;
}

TEST(VerbsJob, TwoSendersAndTheReceiverConnectThroughTheJobsExchange) {
  FakeMlx5 fake(instant_device());
  LockedOps ops(fake);
  const auto plan = two_group_plan(4);
  // Host 0 sends flows 0 and 2, host 1 flows 1 and 3; rank 2 receives.
  const std::array<std::vector<uint32_t>, 2> sent = {std::vector<uint32_t>{0, 2}, {1, 3}};
  constexpr uint64_t kMessages = 300;  // per flow, more than a send queue
  ThreadJob job(3);
  std::array<uint64_t, 4> received{};
  std::string receiver_error;
  // The job's start agreement: no rank posts before every rank connected its QPs (a sender
  // that posts first writes to a responder not yet ready to receive).
  std::latch started(3);

  std::thread receiver_thread([&] {
    ThreadJob::Rank rank(job, 2);
    auto driver = make_verbs_driver(VerbsConfig{}, &ops);
    if (Status s = bring_up(*driver, job_topology(plan, rank, true, {}), plan); !s) {
      receiver_error = s.error().to_string();
      started.count_down();
      driver->close();
      return;
    }
    started.arrive_and_wait();
    std::array<Completion, 64> batch;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    uint64_t total = 0;
    while (total < kMessages * plan.flows.size() && std::chrono::steady_clock::now() < deadline) {
      const uint32_t n = driver->queue(0).poll(batch);
      for (uint32_t i = 0; i < n; ++i) {
        ++received[batch[i].flow];
        ++total;
      }
    }
    (void)driver->stop();
    driver->close();
  });

  std::array<std::string, 2> sender_errors;
  std::array<uint64_t, 2> completed{};
  auto send = [&](uint32_t host) {
    ThreadJob::Rank rank(job, host);
    auto driver = make_verbs_driver(VerbsConfig{}, &ops);
    if (Status s = bring_up(*driver, job_topology(plan, rank, false, sent[host]), plan); !s) {
      sender_errors[host] = s.error().to_string();
      started.count_down();
      driver->close();
      return;
    }
    started.arrive_and_wait();
    std::vector<Message> messages;
    for (uint64_t i = 0; i < kMessages; ++i) {
      for (const uint32_t f : sent[host]) messages.push_back(Message{f, 1024, 0, i});
    }
    size_t posted = 0;
    std::array<Completion, 64> batch;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (completed[host] < messages.size() && std::chrono::steady_clock::now() < deadline) {
      posted += driver->queue(0).tx_burst(std::span<const Message>(messages).subspan(posted));
      const uint32_t n = driver->queue(0).poll(batch);
      for (uint32_t i = 0; i < n; ++i) completed[host] += batch[i].messages;
    }
    (void)driver->stop();
    driver->close();
  };
  std::thread host0(send, 0);
  std::thread host1(send, 1);
  host0.join();
  host1.join();
  receiver_thread.join();
  ASSERT_EQ(sender_errors[0], "");
  ASSERT_EQ(sender_errors[1], "");
  ASSERT_EQ(receiver_error, "");
  EXPECT_EQ(completed[0], 2 * kMessages);
  EXPECT_EQ(completed[1], 2 * kMessages);
  for (uint32_t f = 0; f < plan.flows.size(); ++f) EXPECT_EQ(received[f], kMessages) << f;
  // Each sender made requesters for its own flows only, the receiver a responder for each:
  // 4 + 4 QPs, not 2 x 4 + 4.
  size_t qps = 0;
  for (const auto& call : fake.calls()) qps += call.starts_with("create_qp(") ? 1 : 0;
  EXPECT_EQ(qps, 2 * plan.flows.size());
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  for (const auto& v : fake.violations()) ADD_FAILURE() << v;
}

TEST(VerbsJob, ARankWithAnotherPlanIsRefusedOnEveryRank) {
  FakeMlx5 fake(instant_device());
  LockedOps ops(fake);
  const auto plan = two_group_plan(2);
  auto other = plan;
  other.flows[1].dscp = 10;
  ThreadJob job(2);
  Status receiver_status;
  std::thread receiver_thread([&] {
    ThreadJob::Rank rank(job, 1);
    auto driver = make_verbs_driver(VerbsConfig{}, &ops);
    receiver_status = driver->open(job_topology(plan, rank, true, {}));
    if (receiver_status) receiver_status = driver->apply(plan);
    driver->close();
  });
  ThreadJob::Rank rank(job, 0);
  auto sender = make_verbs_driver(VerbsConfig{}, &ops);
  ASSERT_TRUE(sender->open(job_topology(other, rank, false, {0, 1})).ok());
  const Status applied = sender->apply(other);
  sender->close();
  receiver_thread.join();
  for (const Status* s : std::array<const Status*, 2>{&applied, &receiver_status}) {
    ASSERT_FALSE(s->ok());
    EXPECT_EQ(s->error().code, Errc::invalid_config);
    EXPECT_EQ(s->error().where, "driver.verbs");
    EXPECT_NE(s->error().message.find("different plan"), std::string::npos)
        << s->error().message;
  }
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
}

TEST(VerbsJob, PeerOrListenInAJobAreRefusedNamingTheKey) {
  FakeMlx5 fake(instant_device());
  const auto plan = two_group_plan(2);
  ThreadJob job(1);
  ThreadJob::Rank rank(job, 0);
  VerbsConfig config;
  config.peer = "somewhere:18515";
  auto driver = make_verbs_driver(config, &fake);
  const Status opened = driver->open(job_topology(plan, rank, false, {0, 1}));
  driver->close();
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.error().code, Errc::invalid_config);
  EXPECT_EQ(opened.error().where, "driver.verbs.peer");
  EXPECT_NE(opened.error().message.find("over MPI"), std::string::npos);
}

QpEndpoint endpoint(uint32_t flow, uint32_t qp_num) {
  QpEndpoint e;
  e.flow = flow;
  e.qp_num = qp_num;
  return e;
}

TEST(VerbsJob, EachFlowIsMatchedWithTheOneRankOnItsOtherSide) {
  constexpr uint64_t kHash = 0xabc;
  const std::string receiver =
      format_job_record(kHash, 3, true, {endpoint(0, 10), endpoint(1, 11), endpoint(2, 12)});
  const std::string host0 = format_job_record(kHash, 3, false, {endpoint(0, 20), endpoint(2, 22)});
  const std::string host1 = format_job_record(kHash, 3, false, {endpoint(1, 31)});

  auto at_receiver = match_job_records({host0, host1, receiver}, true, kHash, 3, {0, 1, 2});
  ASSERT_TRUE(at_receiver.ok()) << at_receiver.error().to_string();
  EXPECT_EQ((*at_receiver)[0].qp_num, 20u);
  EXPECT_EQ((*at_receiver)[1].qp_num, 31u);
  EXPECT_EQ((*at_receiver)[2].qp_num, 22u);
  auto at_host1 = match_job_records({host0, host1, receiver}, false, kHash, 3, {1});
  ASSERT_TRUE(at_host1.ok());
  EXPECT_EQ((*at_host1)[1].qp_num, 11u);

  // A flow two ranks send; a flow none sends; no receiver; bytes that are no record.
  const std::string twice = format_job_record(kHash, 3, false, {endpoint(1, 41)});
  auto sent_twice = match_job_records({host0, host1, twice, receiver}, true, kHash, 3, {0, 1, 2});
  ASSERT_FALSE(sent_twice.ok());
  EXPECT_NE(sent_twice.error().message.find("flow 1 is sent by ranks 1 and 2"), std::string::npos)
      << sent_twice.error().message;
  auto unsent = match_job_records({host0, receiver}, true, kHash, 3, {0, 1, 2});
  ASSERT_FALSE(unsent.ok());
  EXPECT_NE(unsent.error().message.find("flow 1 has no rank that sends it"), std::string::npos)
      << unsent.error().message;
  auto no_receiver = match_job_records({host0, host1}, false, kHash, 3, {0, 2});
  ASSERT_FALSE(no_receiver.ok());
  EXPECT_NE(no_receiver.error().message.find("no rank of the job receives"), std::string::npos);
  for (const std::string& bad :
       {std::string("hello"), std::string("qosbench-verbs-job 1 zz 3 sender\n"),
        std::string("qosbench-verbs-job 1 0abc 3 watcher\n"),
        format_job_record(kHash, 3, false, {endpoint(7, 1)}),
        std::string("qosbench-verbs-job 1 0abc 3 sender\nep 1 2\n")}) {
    auto refused = match_job_records({bad, receiver}, true, kHash, 3, {});
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().code, Errc::runtime);
    EXPECT_NE(refused.error().message.find("rank 0 sent a malformed"), std::string::npos)
        << refused.error().message;
  }
}

}  // namespace
}  // namespace qb::drv::verbs
