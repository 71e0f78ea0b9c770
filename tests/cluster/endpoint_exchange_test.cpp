// The job's endpoint exchange (HostRole::exchange, over cluster::agree_all_gather) and the
// engine's once-per-repetition rule (RepetitionExchange), with the ranks as threads of this
// process behind a Communicator that does what MPI's collectives do.
#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "qb/cluster/agreement.hpp"
#include "qb/cluster/host_roles.hpp"
#include "repetition_exchange.hpp"

namespace qb::cluster {
namespace {

// What the ranks share: the n-th collective of every rank meets the n-th of the others, as
// MPI matches collectives by their order.
struct ThreadJob {
  explicit ThreadJob(uint32_t ranks) : size(ranks) {}
  struct Round {
    std::vector<std::string> slots;
    uint32_t arrived = 0;
    std::optional<std::string> value;
  };
  const uint32_t size;
  std::mutex mutex;
  std::condition_variable changed;
  std::map<uint64_t, Round> rounds;
};

class ThreadCommunicator final : public Communicator {
 public:
  ThreadCommunicator(ThreadJob& job, uint32_t rank)
      : job_(job), rank_(rank), host_("host" + std::to_string(rank)) {}
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return job_.size; }
  const std::string& host_name() const override { return host_; }

  Result<std::vector<std::string>> gather(const std::string& mine, uint32_t root,
                                          const Wait&) override {
    std::unique_lock lock(job_.mutex);
    ThreadJob::Round& round = job_.rounds[next_++];
    round.slots.resize(job_.size);
    round.slots[rank_] = mine;
    ++round.arrived;
    job_.changed.notify_all();
    if (!job_.changed.wait_for(lock, std::chrono::seconds(20),
                               [&] { return round.arrived == job_.size; })) {
      return make_error(Errc::runtime, "the other ranks never came");
    }
    if (rank_ != root) return std::vector<std::string>{};
    return round.slots;
  }
  Result<std::string> broadcast(const std::string& value, uint32_t root, const Wait&) override {
    std::unique_lock lock(job_.mutex);
    ThreadJob::Round& round = job_.rounds[next_++];
    if (rank_ == root) round.value = value;
    job_.changed.notify_all();
    if (!job_.changed.wait_for(lock, std::chrono::seconds(20),
                               [&] { return round.value.has_value(); })) {
      return make_error(Errc::runtime, "the root never broadcast");
    }
    return *round.value;
  }
  Status barrier(const Wait& wait) override {
    auto gathered = gather("", 0, wait);
    if (!gathered) return std::move(gathered).error();
    return {};
  }
  Result<PingPong> ping_pong(uint32_t, int64_t (*)(), const Wait&) override {
    return make_error(Errc::runtime, "not in this test");
  }
  [[noreturn]] void abort(int) override { std::abort(); }

 private:
  ThreadJob& job_;
  uint32_t rank_;
  std::string host_;
  uint64_t next_ = 0;
};

// Runs `body(comm)` on every rank of a job of `ranks` threads; their answers by rank.
template <class Answer>
std::vector<Answer> on_every_rank(uint32_t ranks,
                                  const std::function<Answer(ThreadCommunicator&)>& body) {
  ThreadJob job(ranks);
  std::vector<Answer> answers(ranks);
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadCommunicator comm(job, r);
      answers[r] = body(comm);
    });
  }
  for (auto& thread : threads) thread.join();
  return answers;
}

using Gathered = std::optional<Result<std::vector<std::string>>>;

TEST(AgreeAllGather, EveryRankGetsEveryRanksBytesInRankOrder) {
  const auto answers = on_every_rank<Gathered>(3, [](ThreadCommunicator& comm) {
    // Bytes a separator or a length prefix could be confused by.
    const std::string mine = comm.rank() == 1 ? std::string("7:\x1f\n:") : "rank" +
                                                                             std::to_string(comm.rank());
    return Gathered(agree_all_gather(comm, mine, Wait{}));
  });
  for (uint32_t r = 0; r < 3; ++r) {
    ASSERT_TRUE(answers[r]->ok()) << answers[r]->error().to_string();
    EXPECT_EQ(**answers[r], (std::vector<std::string>{"rank0", std::string("7:\x1f\n:"), "rank2"}));
  }
}

TEST(AgreeAllGather, ARanksErrorReachesEveryRankNamingItsRankAndHost) {
  const auto answers = on_every_rank<Gathered>(3, [](ThreadCommunicator& comm) {
    Result<std::string> mine = std::string("fine");
    if (comm.rank() == 2) {
      mine = make_error(Errc::unavailable, "verbs: no device mlx5_9", "driver.verbs.device");
    }
    return Gathered(agree_all_gather(comm, mine, Wait{}));
  });
  for (uint32_t r = 0; r < 3; ++r) {
    ASSERT_FALSE(answers[r]->ok());
    EXPECT_EQ(answers[r]->error().code, Errc::unavailable);  // the exit code travels
    EXPECT_EQ(answers[r]->error().where, "driver.verbs.device");
    EXPECT_NE(answers[r]->error().message.find("on rank 2 (host2): verbs: no device mlx5_9"),
              std::string::npos)
        << answers[r]->error().message;
  }
}

// A repetition's exchange: the driver of rank 0 exchanges from its apply; rank 1's driver
// failed to open, so the engine takes part for it with its error. Both then agree to start
// (the next collective) without mixing that up with the exchange, and both name rank 1.
TEST(RepetitionExchange, ADriverThatFailedFirstTakesPartWithItsErrorSoNoRankWaits) {
  JobRoles roles;
  roles.hosts = 1;
  roles.host_ranks = {0};
  roles.receiver_rank = 1;
  using Outcome = std::pair<std::string, std::string>;  // (exchange, start) as text
  const auto answers = on_every_rank<Outcome>(2, [&](ThreadCommunicator& comm) {
    const engine::HostRole role = host_role(comm, roles, Wait{}, 0);
    engine::RepetitionExchange exchange(role);
    Status driver = Status{};
    std::string exchanged = "none";
    if (comm.rank() == 0) {
      auto all = exchange.all_gather("endpoints of rank 0");
      exchanged = all ? "ok" : all.error().message;
      if (!all) driver = all.error();
    } else {
      driver = make_error(Errc::runtime, "verbs: ibv_open_device failed");
    }
    const Status settled = exchange.settle(driver);  // rank 0: already done, no collective
    if (comm.rank() == 1) exchanged = settled ? "ok" : settled.error().message;
    const Status started = role.at_start(driver);
    return Outcome{exchanged, started ? "ok" : started.error().message};
  });
  for (const auto& [exchanged, started] : answers) {
    EXPECT_NE(exchanged.find("on rank 1 (host1): verbs: ibv_open_device failed"),
              std::string::npos)
        << exchanged;
    // The start agreement relays rank 0's error, which names rank 1 already: not twice.
    EXPECT_NE(started.find("on rank 1 (host1): verbs: ibv_open_device failed"), std::string::npos)
        << started;
    EXPECT_EQ(started.find("on rank 0"), std::string::npos) << started;
  }
}

TEST(RepetitionExchange, ASecondExchangeInOneRepetitionIsAnErrorNotACollective) {
  engine::HostRole role;
  int collectives = 0;
  role.exchange = [&](const Result<std::string>&) -> Result<std::vector<std::string>> {
    ++collectives;
    return std::vector<std::string>{"x"};
  };
  engine::RepetitionExchange exchange(role);
  ASSERT_TRUE(exchange.all_gather("a").ok());
  EXPECT_FALSE(exchange.all_gather("b").ok());
  EXPECT_TRUE(exchange.settle(Status{}).ok());
  EXPECT_EQ(collectives, 1);
  engine::RepetitionExchange unused(role);
  EXPECT_TRUE(unused.settle(Status{}).ok());  // a driver that never exchanged: the engine does
  EXPECT_EQ(collectives, 2);
}

}  // namespace
}  // namespace qb::cluster
