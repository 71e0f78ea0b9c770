// max_cap_overshoot on multi-host runs: every NIC enforces the tree's caps on its own flows, so
// the gate holds each host's tree to them, not the merged tree (which carries a cap per host).
#include <gtest/gtest.h>

#include <string>

#include "../support/run_and_judge.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::judge {
namespace {

// Two hosts behind a switch, each with one saturating flow under a group capped at 20 Gbit/s.
Results run_two_capped_hosts() {
  auto suite = suite::load_suite_string(
      "[suite]\nname = \"two capped hosts\"\nwarmup = \"1ms\"\nduration = \"5ms\"\n"
      "repetitions = 1\n"
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      "[fabric]\nhosts = 2\nswitch = true\nswitch_rate = \"100Gbps\"\n"
      "[[sched.node]]\nname = \"root\"\n"
      "[[sched.node]]\nname = \"capped\"\nparent = \"root\"\nbw_share = 1\n"
      "max_avg_bw = \"20Gbps\"\n"
      "[[sched.leaf]]\nname = \"qp\"\nparent = \"capped\"\nbw_share = 1\n"
      "[[flow]]\nname = \"h0\"\nhost = 0\nleaf = \"qp\"\nsize = 65536\nrate = \"saturate\"\n"
      "[[flow]]\nname = \"h1\"\nhost = 1\nleaf = \"qp\"\nsize = 65536\nrate = \"saturate\"\n"
      "[gates]\nmax_cap_overshoot = \"1%\"\n",
      "two_capped_hosts.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  auto results = testing_support::run_and_judge(*suite, "sim", engine::RunOptions{});
  EXPECT_TRUE(results.ok()) << results.error().to_string();
  return *results;
}

const ElementResult& element_named(const std::vector<ElementResult>& tree,
                                   const std::string& name) {
  for (const auto& element : tree) {
    if (element.name == name) return element;
  }
  ADD_FAILURE() << "no element " << name;
  return tree.front();
}

TEST(CapGateHosts, EachHostIsHeldToTheCapNotTheMergedTree) {
  const Results r = run_two_capped_hosts();
  const ScenarioResult& s = r.scenarios.front();
  ASSERT_EQ(s.host_trees.size(), 2u);
  // Each NIC holds its own flow to 20 Gbit/s: the merged group carries about twice the cap.
  const ElementResult& merged = element_named(s.tree, "capped");
  ASSERT_TRUE(merged.cap_bps.has_value());
  EXPECT_GT(merged.measured_bps, 1.8 * *merged.cap_bps);
  for (const auto& host : s.host_trees) {
    const ElementResult& capped = element_named(host.tree, "capped");
    EXPECT_NEAR(capped.measured_bps, *capped.cap_bps, 0.01 * *capped.cap_bps) << host.host;
  }

  const GateResult* gate = nullptr;
  for (const auto& g : s.gates) {
    if (g.name == "max_cap_overshoot") gate = &g;
  }
  ASSERT_NE(gate, nullptr);
  EXPECT_TRUE(gate->passed) << gate->value << " " << gate->detail;
  EXPECT_LT(gate->value, 0.01);
  EXPECT_EQ(gate->detail.rfind("worst element: host ", 0), 0u) << gate->detail;
}

}  // namespace
}  // namespace qb::judge
