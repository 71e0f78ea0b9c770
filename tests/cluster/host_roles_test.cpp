// Which rank does what in a job on real devices, and what rank 0 says about the clocks.
#include "qb/cluster/host_roles.hpp"

#include <gtest/gtest.h>

namespace qb::cluster {
namespace {

suite::FabricSpec fabric_of(uint32_t hosts) {
  suite::FabricSpec fabric;
  fabric.hosts = hosts;
  return fabric;
}

suite::RankPlacement on_rank(uint32_t rank, std::string where) {
  suite::RankPlacement placement;
  placement.rank = rank;
  placement.where = std::move(where);
  placement.loc = SourceLoc{"suite.toml", 7, 8};
  return placement;
}

suite::RankPlacement on_machine(std::string hostname, std::string where) {
  suite::RankPlacement placement;
  placement.hostname = std::move(hostname);
  placement.where = std::move(where);
  placement.loc = SourceLoc{"suite.toml", 9, 12};
  return placement;
}

TEST(HostRoles, WithoutPlacementsRankHSendsHostHAndTheLastReceives) {
  auto roles = place_roles(fabric_of(2), {"a", "a", "b"});
  ASSERT_TRUE(roles) << roles.error().to_string();
  EXPECT_EQ(roles->receiver_rank, 2u);
  EXPECT_EQ(roles->host_ranks, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(role_of(*roles, 0), "host 0 (sender)");
  EXPECT_EQ(role_of(*roles, 2), "receiver");
  EXPECT_FALSE(roles->host_of(2));
}

TEST(HostRoles, AnotherJobSizeNamesTheRanksTheSuiteNeeds) {
  for (const uint32_t ranks : {1u, 2u, 4u}) {
    const Status fits = check_job_size(2, ranks);
    ASSERT_FALSE(fits) << ranks;
    EXPECT_EQ(fits.error().code, Errc::usage);
    EXPECT_EQ(fits.error().where, "fabric.hosts");
    EXPECT_NE(fits.error().message.find("mpirun -np 3"), std::string::npos);
    EXPECT_FALSE(place_roles(fabric_of(2), std::vector<std::string>(ranks, "a")));
  }
}

TEST(HostRoles, ExplicitRanksComeFirstAndTheRestFillTheRanksLeftInOrder) {
  suite::FabricSpec fabric = fabric_of(3);
  fabric.host_ranks = {suite::RankPlacement{}, on_rank(0, "fabric.host[1]"),
                       suite::RankPlacement{}};
  fabric.receiver_rank = on_rank(2, "fabric.receiver");
  auto roles = place_roles(fabric, {"a", "b", "c", "d"});
  ASSERT_TRUE(roles) << roles.error().to_string();
  // host 1 on rank 0, the receiver on rank 2; hosts 0 and 2 on ranks 1 and 3, in order.
  EXPECT_EQ(roles->host_ranks, (std::vector<uint32_t>{1, 0, 3}));
  EXPECT_EQ(roles->receiver_rank, 2u);
  EXPECT_EQ(roles->host_of(0), 1u);
  EXPECT_EQ(role_of(*roles, 3), "host 2 (sender)");
}

TEST(HostRoles, AHostnameTakesTheFirstRankOnThatMachineNotPlacedYet) {
  suite::FabricSpec fabric = fabric_of(2);
  // The receiver on the machine "rx"; host 1 pinned to rank 3, which also runs on "rx".
  fabric.host_ranks = {suite::RankPlacement{}, on_rank(3, "fabric.host[1]")};
  fabric.receiver_rank = on_machine("rx", "fabric.receiver");
  auto roles = place_roles(fabric, {"tx", "tx", "rx"});
  ASSERT_FALSE(roles);  // three ranks, rank 3 does not exist
  EXPECT_EQ(roles.error().code, Errc::invalid_config);
  EXPECT_EQ(roles.error().where, "fabric.host[1].rank");
  EXPECT_EQ(roles.error().loc.line, 7u);
  EXPECT_NE(roles.error().message.find("ranks are 0 to 2"), std::string::npos)
      << roles.error().message;

  fabric.host_ranks[1] = on_rank(2, "fabric.host[1]");
  roles = place_roles(fabric, {"rx", "tx", "rx"});
  ASSERT_TRUE(roles) << roles.error().to_string();
  // Rank 2 is taken by host 1, so the receiver gets rank 0, the other rank on "rx".
  EXPECT_EQ(roles->receiver_rank, 0u);
  EXPECT_EQ(roles->host_ranks, (std::vector<uint32_t>{1, 2}));
}

TEST(HostRoles, AMachineWithNoRankLeftIsAnErrorAtItsKeyNamingTheRanks) {
  suite::FabricSpec fabric = fabric_of(1);
  fabric.host_ranks = {on_machine("tx", "fabric.host[0]")};
  fabric.receiver_rank = on_machine("tx", "fabric.receiver");
  auto roles = place_roles(fabric, {"tx", "rx"});
  ASSERT_FALSE(roles);
  EXPECT_EQ(roles.error().code, Errc::invalid_config);
  EXPECT_EQ(roles.error().where, "fabric.receiver.hostname");
  EXPECT_EQ(roles.error().loc.line, 9u);
  EXPECT_NE(roles.error().message.find("no rank left on 'tx' (the job's ranks: rank 0 on tx, "
                                       "rank 1 on rx)"),
            std::string::npos)
      << roles.error().message;
}

TEST(HostRoles, EachHostsClockAgainstTheReceiversAddsBothBounds) {
  suite::FabricSpec fabric = fabric_of(2);
  fabric.receiver_rank = on_rank(0, "fabric.receiver");
  auto roles = place_roles(fabric, {"rx", "a", "b"});
  ASSERT_TRUE(roles);
  // Offsets to rank 0 (the receiver here): rank 1 is 5000 ns ahead, rank 2 4000 ns behind.
  const std::vector<ClockOffset> offsets{
      {0, "rx", 0, 0, 0}, {1, "a", 5000, 900, 1800}, {2, "b", -4000, 800, 1600}};
  const auto bounds = host_clock_bounds(*roles, offsets);
  ASSERT_EQ(bounds.size(), 2u);
  EXPECT_EQ(bounds[0].rank, 1u);
  EXPECT_EQ(bounds[0].offset_ns, 5000);
  EXPECT_EQ(bounds[0].bound_ns, 900);
  EXPECT_EQ(bounds[1].offset_ns, -4000);

  // The receiver on rank 2 instead: each offset is against rank 2's clock, bounds added.
  fabric.receiver_rank = on_rank(2, "fabric.receiver");
  roles = place_roles(fabric, {"a", "a", "rx"});
  ASSERT_TRUE(roles);
  const std::vector<ClockOffset> others{
      {0, "a", 0, 0, 0}, {1, "a", 50, 400, 800}, {2, "rx", -20, 300, 600}};
  const auto against_rank_2 = host_clock_bounds(*roles, others);
  ASSERT_EQ(against_rank_2.size(), 2u);
  EXPECT_EQ(against_rank_2[0].offset_ns, 20);  // rank 0: 0 - (-20)
  EXPECT_EQ(against_rank_2[0].bound_ns, 300);
  EXPECT_EQ(against_rank_2[1].offset_ns, 70);
  EXPECT_EQ(against_rank_2[1].bound_ns, 700);
}

// The sender stamps with the offset from before the run; if the clocks moved during it, its
// latency is off by up to that much more, and by the second estimate's bounds.
TEST(HostRoles, AClockThatMovedDuringTheRunWidensItsHostsBound) {
  suite::FabricSpec fabric = fabric_of(2);
  auto roles = place_roles(fabric, {"a", "b", "rx"});  // receiver: rank 2
  ASSERT_TRUE(roles);
  const std::vector<ClockOffset> before{
      {0, "a", 0, 0, 0}, {1, "b", 1000, 300, 600}, {2, "rx", 200, 100, 200}};
  // Over the run rank 1 moved 3000 ns against rank 0, the receiver 500 ns.
  const std::vector<ClockOffset> after{
      {0, "a", 0, 0, 0}, {1, "b", 4000, 400, 800}, {2, "rx", 700, 50, 100}};
  const auto bounds = host_clock_bounds(*roles, before, &after);
  ASSERT_EQ(bounds.size(), 2u);
  EXPECT_EQ(bounds[0].offset_ns, -200);  // rank 0 against the receiver, from before
  EXPECT_EQ(bounds[0].drift_ns, -500);
  EXPECT_EQ(bounds[0].bound_ns, 0 + 100 + 500 + 0 + 50);
  EXPECT_EQ(bounds[1].offset_ns, 800);
  EXPECT_EQ(bounds[1].drift_ns, 2500);  // (4000 - 700) - (1000 - 200)
  EXPECT_EQ(bounds[1].bound_ns, 300 + 100 + 2500 + 400 + 50);
  // Without an estimate after, as before.
  EXPECT_EQ(host_clock_bounds(*roles, before)[1].bound_ns, 400);
  EXPECT_EQ(host_clock_bounds(*roles, before)[1].drift_ns, 0);

  // 2 s apart: rank 1 drifted 1500 ns/s, known within (300 + 400) / 2 ns/s.
  const auto drifts = clock_drift(before, after, 2'000'000'000);
  ASSERT_EQ(drifts.size(), 3u);
  EXPECT_DOUBLE_EQ(drifts[1].ns_per_s, 1500.0);
  EXPECT_DOUBLE_EQ(drifts[1].bound_ns_per_s, 350.0);
  EXPECT_DOUBLE_EQ(drifts[0].ns_per_s, 0.0);
  EXPECT_TRUE(clock_drift(before, after, 0).empty());
}

TEST(HostRoles, LatencyIsFlaggedWhereTheClockBoundExceedsATenthOfIt) {
  const std::vector<HostClockBound> hosts{{0, 1, "a", 5000, 900}, {1, 2, "b", -4000, 2000}};
  // 900 ns against 10 us is within a tenth; 2000 ns against 15 us is not.
  auto note = uncertain_latency_note(hosts, {10'000, 15'000});
  ASSERT_TRUE(note);
  EXPECT_EQ(note->find("host 0"), std::string::npos) << *note;
  EXPECT_NE(note->find("host 1 (rank 2 on b): +- 2000 ns against a median of 15000 ns"),
            std::string::npos)
      << *note;
  EXPECT_FALSE(uncertain_latency_note(hosts, {10'000, 20'000}));  // exactly a tenth passes
  EXPECT_FALSE(uncertain_latency_note(hosts, {0, 0}));            // nothing measured
}

}  // namespace
}  // namespace qb::cluster
