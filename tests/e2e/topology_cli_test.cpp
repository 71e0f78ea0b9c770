// `qosbench validate` on suites with a [topology] (issue 29): bad input is exit 2 with
// file:line:col and the key (or the topology file's line); a good one is loaded and checked, and
// said not to be compiled yet (exit 3), never run as a one-switch fabric.
#include <gtest/gtest.h>

#include "process.hpp"

namespace qb::e2e {
namespace {

TEST(TopologyCli, BadTopologyIsExitTwoAtItsLocation) {
  const std::string suite = write_temp("topology_bad.toml", R"([topology]
kind = "explicit"
rate = "100Gbps"
switch = [{ name = "s1" }]
host = [{ name = "a" }, { name = "b" }]
link = [{ ends = ["a", "s1"] }, { ends = ["b", "s7"] }]

[[flow]]
name = "x"
size = "4KiB"
rate = "saturate"
from = "a"
to = "b"
)");
  const Outcome out = run_qosbench({"validate", suite});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("topology_bad.toml:6:48: error: topology.link[1].ends[1]: a link to "
                            "an unknown node 's7'"),
            std::string::npos)
      << out.out << out.err;
}

TEST(TopologyCli, GarbageIbnetdiscoverFileIsExitTwoAtItsLine) {
  const std::string net = write_temp("topology_garbage.topo",
                                     "Switch 8 \"S1\"\n[1] \"A\"[1]\n[2] \"B\"[1\n");
  const std::string suite = write_temp("topology_ibnet.toml",
                                       "[topology]\nkind = \"ibnetdiscover\"\nfile = \"" + net +
                                           "\"\nrate = \"100Gbps\"\n");
  const Outcome out = run_qosbench({"validate", suite});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("topology_garbage.topo:3:10: error: topology.file: expected ']'"),
            std::string::npos)
      << out.out << out.err;
}

TEST(TopologyCli, GoodTopologyValidatesAndRuns) {
  const std::string suite = write_temp("topology_good.toml", R"([topology]
kind = "fat_tree"
k = 4

[[flow]]
name = "perm"
size = "4KiB"
rate = "saturate"
sources = "*"
destinations = "permutation"
)");
  const Outcome checked = run_qosbench({"validate", suite});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
  const Outcome ran = run_qosbench({"run", suite, "--duration", "2ms", "--quiet"});
  EXPECT_TRUE(ran.exit_code == 0 || ran.exit_code == 1) << ran.out << ran.err;
  EXPECT_TRUE(ran.out.starts_with("PASSED") || ran.out.starts_with("FAILED")) << ran.out;
  // The other drivers cannot run a graph: exit 2 at the suite's [topology].
  const Outcome dpdk = run_qosbench({"validate", suite, "--driver", "dpdk"});
  EXPECT_EQ(dpdk.exit_code, 2) << dpdk.out << dpdk.err;
  EXPECT_NE(dpdk.err.find("multi-switch fabric"), std::string::npos) << dpdk.err;
}

}  // namespace
}  // namespace qb::e2e
