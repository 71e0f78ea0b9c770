// A fabric job (a suite's [topology] on real devices): one rank per host, each sending and
// receiving; rank 0 merges each flow from the rank that received it and the rank that sent it.
#include <gtest/gtest.h>

#include "qb/cluster/fabric_merge.hpp"
#include "qb/cluster/host_roles.hpp"

namespace qb::cluster {
namespace {

TEST(FabricRoles, RankIPlaysHostIAndEveryRankSendsAndReceives) {
  auto roles = place_roles(suite::FabricSpec{}, {"a", "a", "b"}, 3u);
  ASSERT_TRUE(roles) << roles.error().to_string();
  EXPECT_TRUE(roles->fabric);
  EXPECT_EQ(roles->hosts, 3u);
  EXPECT_EQ(roles->host_ranks, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(roles->host_of(2), 2u);
  EXPECT_EQ(role_of(*roles, 1), "host 1 (sends and receives)");
  // No receiver: frames are stamped in rank 0's clock.
  EXPECT_EQ(roles->clock_reference(), 0u);
}

TEST(FabricRoles, PlacementsPutHostsOnOtherRanks) {
  suite::FabricSpec fabric;
  suite::RankPlacement on_two;
  on_two.rank = 2;
  on_two.where = "fabric.host[0]";
  fabric.host_ranks = {on_two, suite::RankPlacement{}, suite::RankPlacement{}};
  auto roles = place_roles(fabric, {"a", "a", "a"}, 3u);
  ASSERT_TRUE(roles) << roles.error().to_string();
  EXPECT_EQ(roles->host_ranks, (std::vector<uint32_t>{2, 0, 1}));
}

TEST(FabricRoles, AnotherJobSizeNamesTheRanksTheTopologyNeeds) {
  for (const uint32_t ranks : {2u, 4u}) {
    const Status fits = check_fabric_job_size(3, ranks);
    ASSERT_FALSE(fits) << ranks;
    EXPECT_EQ(fits.error().code, Errc::usage);
    EXPECT_EQ(fits.error().where, "topology");
    EXPECT_NE(fits.error().message.find("mpirun -np 3)"), std::string::npos)
        << fits.error().message;
    auto roles = place_roles(suite::FabricSpec{}, std::vector<std::string>(ranks, "a"), 3u);
    ASSERT_FALSE(roles);
    EXPECT_EQ(roles.error().where, "topology");
  }
  EXPECT_TRUE(check_fabric_job_size(3, 3));
}

// One rank's outcome of scenario 0, repetition 0: per flow `received` packets (receiver side)
// and `posted` messages (sender side).
engine::RepetitionOutcome outcome_of(std::vector<uint64_t> received, std::vector<uint64_t> posted,
                                     int64_t measured_ns) {
  engine::RepetitionOutcome outcome;
  outcome.measurement.ran = true;
  outcome.measurement.measured_ns = measured_ns;
  outcome.measurement.flows.resize(received.size());
  outcome.measurement.flow_latency.resize(received.size());
  outcome.latency.resize(received.size());
  for (size_t f = 0; f < received.size(); ++f) {
    outcome.measurement.flows[f].counts.packets = received[f];
    outcome.measurement.flows[f].counts.posted_messages = posted[f];
    outcome.measurement.flows[f].series_wire_bytes = {received[f] * 100};
    for (uint64_t i = 0; i < received[f]; ++i) {
      outcome.latency[f].from_scheduled_ns.record(static_cast<int64_t>(1000 * (f + 1)));
    }
  }
  return outcome;
}

TEST(FabricMerge, EachFlowFromItsReceiverAndItsPostsFromItsSender) {
  // Flow 0: rank 0 -> rank 1; flow 1: rank 1 -> rank 2; flow 2: rank 2 -> rank 0. Every rank
  // also reports figures for flows that are not its own (as a driver that counted strays
  // would): none of them may reach the merge.
  std::vector<std::vector<engine::RepetitionOutcome>> by_rank(3);
  by_rank[0].push_back(outcome_of({999, 999, 30}, {10, 999, 999}, 1000));
  by_rank[1].push_back(outcome_of({10, 999, 999}, {999, 20, 999}, 900));
  by_rank[2].push_back(outcome_of({999, 20, 999}, {999, 999, 30}, 1000));
  FabricFlows flows;
  flows.source_rank = {0, 1, 2};
  flows.destination_rank = {1, 2, 0};
  flows.group = {0, 0, 1};
  flows.groups = 2;
  const auto merged = merge_fabric_outcomes(by_rank, {flows});
  ASSERT_EQ(merged.size(), 1u);
  const engine::RepetitionMeasurement& m = merged[0].measurement;
  ASSERT_EQ(m.flows.size(), 3u);
  EXPECT_EQ(m.flows[0].counts.packets, 10u);
  EXPECT_EQ(m.flows[1].counts.packets, 20u);
  EXPECT_EQ(m.flows[2].counts.packets, 30u);
  EXPECT_EQ(m.flows[0].counts.posted_messages, 10u);
  EXPECT_EQ(m.flows[1].counts.posted_messages, 20u);
  EXPECT_EQ(m.flows[2].counts.posted_messages, 30u);
  EXPECT_EQ(m.flows[1].series_wire_bytes, (std::vector<uint64_t>{2000}));
  EXPECT_EQ(merged[0].latency[2].from_scheduled_ns.count(), 30u);
  // The groups' latency from their flows' histograms, whichever rank received them.
  ASSERT_EQ(m.group_latency.size(), 2u);
  EXPECT_EQ(m.group_latency[0].count, 30u);
  EXPECT_EQ(m.group_latency[1].count, 30u);
  EXPECT_TRUE(m.complete);
  EXPECT_EQ(m.measured_ns, 900);  // the shortest window of the ranks
}

TEST(FabricMerge, ARankNotHeardFromLeavesTheRepetitionIncomplete) {
  std::vector<std::vector<engine::RepetitionOutcome>> by_rank(2);
  by_rank[0].push_back(outcome_of({0, 5}, {7, 0}, 1000));
  FabricFlows flows;
  flows.source_rank = {0, 1};
  flows.destination_rank = {1, 0};
  flows.group = {0, 0};
  flows.groups = 1;
  const auto merged = merge_fabric_outcomes(by_rank, {flows});
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_FALSE(merged[0].measurement.complete);
  EXPECT_EQ(merged[0].measurement.flows[0].counts.packets, 0u);  // rank 1 received it: unknown
  EXPECT_EQ(merged[0].measurement.flows[0].counts.posted_messages, 7u);
  EXPECT_EQ(merged[0].measurement.flows[1].counts.packets, 5u);
}

}  // namespace
}  // namespace qb::cluster
