#include <gtest/gtest.h>

#include <set>

#include "qb/fabric/generators.hpp"
#include "qb/fabric/traffic.hpp"

namespace qb::fabric {
namespace {

Topology hosts8() {
  LeafSpineSpec spec;
  spec.leaves = 2;
  spec.hosts_per_leaf = 4;
  return std::move(*leaf_spine(spec, {"topology", {}}));
}

TEST(FabricTraffic, HostRangesResolve) {
  const Topology t = hosts8();
  EXPECT_EQ(*resolve_hosts(t, "h2..h5"), (std::vector<uint32_t>{2, 3, 4, 5}));
  EXPECT_EQ(*resolve_hosts(t, "h7"), (std::vector<uint32_t>{7}));
  EXPECT_EQ(resolve_hosts(t, "*")->size(), 8u);
  EXPECT_NE(resolve_hosts(t, "h5..h2").error().message.find("backwards"), std::string::npos);
  EXPECT_NE(resolve_hosts(t, "h0..h9").error().message.find("no host named 'h8'"),
            std::string::npos);
  EXPECT_NE(resolve_hosts(t, "leaf0").error().message.find("a switch"), std::string::npos);
  EXPECT_FALSE(resolve_hosts(t, "h0..x3"));
  EXPECT_FALSE(resolve_hosts(t, "h0..h99999999999999999999"));
}

TEST(FabricTraffic, PermutationIsACycleWithoutSelfFlowsAndFollowsItsSeed) {
  TrafficTemplate spec;
  for (uint32_t h = 0; h < 320; ++h) spec.sources.push_back(h);
  spec.pattern = DestinationPattern::permutation;
  spec.seed = 7;
  auto flows = expand_template(spec);
  ASSERT_TRUE(flows);
  ASSERT_EQ(flows->size(), 320u);
  std::set<uint32_t> receivers;
  for (const auto& f : *flows) {
    EXPECT_NE(f.src_host, f.dst_host);
    receivers.insert(f.dst_host);
  }
  EXPECT_EQ(receivers.size(), 320u);
  spec.seed = 8;
  auto other = expand_template(spec);
  size_t differ = 0;
  for (size_t i = 0; i < 320; ++i) differ += (*other)[i].dst_host != (*flows)[i].dst_host;
  EXPECT_GT(differ, 0u);
}

TEST(FabricTraffic, AllToAllIncastAndFixed) {
  TrafficTemplate spec;
  spec.sources = {0, 1, 2};
  spec.pattern = DestinationPattern::all_to_all;
  EXPECT_EQ(expand_template(spec)->size(), 6u);
  spec.pattern = DestinationPattern::incast;
  spec.destinations = {5};
  auto incast = expand_template(spec);
  ASSERT_TRUE(incast);
  for (const auto& f : *incast) EXPECT_EQ(f.dst_host, 5u);
  spec.destinations = {1};
  EXPECT_FALSE(expand_template(spec));  // a source is the incast destination
  spec.pattern = DestinationPattern::fixed;
  spec.destinations = {4, 5, 6};
  auto fixed = expand_template(spec);
  ASSERT_TRUE(fixed);
  EXPECT_EQ((*fixed)[2].dst_host, 6u);
  spec.destinations = {4, 5};
  EXPECT_FALSE(expand_template(spec));
  spec.sources = {1, 1};
  spec.destinations = {4};
  EXPECT_FALSE(expand_template(spec));  // a source twice
}

}  // namespace
}  // namespace qb::fabric
