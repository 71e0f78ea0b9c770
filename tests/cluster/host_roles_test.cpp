// Which rank does what in a job on real devices, and what rank 0 says about the clocks.
#include "qb/cluster/host_roles.hpp"

#include <gtest/gtest.h>

namespace qb::cluster {
namespace {

TEST(HostRoles, OneRankPerHostPlusTheReceiver) {
  auto roles = assign_roles(2, 3);
  ASSERT_TRUE(roles);
  EXPECT_EQ(roles->receiver_rank, 2u);
  EXPECT_EQ(role_of(*roles, 0), "host 0 (sender)");
  EXPECT_EQ(role_of(*roles, 2), "receiver");
}

TEST(HostRoles, AnotherJobSizeNamesTheRanksTheSuiteNeeds) {
  for (const uint32_t ranks : {1u, 2u, 4u}) {
    auto roles = assign_roles(2, ranks);
    ASSERT_FALSE(roles) << ranks;
    EXPECT_EQ(roles.error().code, Errc::usage);
    EXPECT_EQ(roles.error().where, "fabric.hosts");
    EXPECT_NE(roles.error().message.find("mpirun -np 3"), std::string::npos);
  }
}

TEST(HostRoles, LatencyIsFlaggedOnlyAcrossHosts) {
  std::vector<ClockOffset> one_host{
      {0, "a", 0, 0, 0}, {1, "a", 50, 400, 800}, {2, "a", -20, 300, 600}};
  EXPECT_FALSE(cross_host_latency_note(one_host));
  std::vector<ClockOffset> two_hosts{
      {0, "a", 0, 0, 0}, {1, "b", 5000, 900, 1800}, {2, "b", 4000, 800, 1600}};
  // Rank 0 is on another host than the receiver (rank 2): its offset to the receiver.
  auto note = cross_host_latency_note(two_hosts);
  ASSERT_TRUE(note);
  EXPECT_NE(note->find("rank 0 on a: -4000 ns +- 800 ns"), std::string::npos) << *note;
  EXPECT_EQ(note->find("rank 1"), std::string::npos) << *note;  // same host as the receiver
}

}  // namespace
}  // namespace qb::cluster
