// What a driver cannot run is known from the plan and the driver's options: `run` refuses it
// before anything is opened (no EAL started, no 60 s connect wait), and `validate --driver`
// makes the same checks, each an exit 2 at the suite's key with file:line:col.
#include <gtest/gtest.h>

#include <chrono>

#include "process.hpp"

namespace qb::e2e {
namespace {

const std::string kIncastDcqcn = QB_SOURCE_DIR "/configs/incast_dcqcn.toml";

std::string one_flow_suite(const std::string& flow_keys, const std::string& tail) {
  return "[suite]\nname = \"fit\"\nrepetitions = 1\nwarmup = \"1ms\"\nduration = \"5ms\"\n"
         "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
         "[[flow]]\nname = \"f\"\nsize = 4096\nrate = \"saturate\"\n" +
         flow_keys + tail;
}

// `qosbench drivers` lists "<name> <padding> available ..." for a driver this build has.
bool has_driver(const std::string& name) {
  const Outcome drivers = run_qosbench({"drivers"});
  const std::string text = "\n" + drivers.out;
  const size_t at = text.find("\n" + name + " ");
  if (at == std::string::npos) return false;
  const size_t word = text.find_first_not_of(' ', at + 1 + name.size());
  return word != std::string::npos && text.compare(word, 9, "available") == 0;
}

TEST(PlanFit, ValidateOnAnotherDriverRefusesWhatItCannotRun) {
  if (!has_driver("dpdk")) GTEST_SKIP() << "this build has no DPDK driver";
  // 16 hosts behind a switch with a DPA program: the simulator's fabric, not one DPDK port.
  const Outcome on_sim = run_qosbench({"validate", kIncastDcqcn});
  EXPECT_EQ(on_sim.exit_code, 0) << on_sim.err;
  const Outcome on_dpdk = run_qosbench({"validate", kIncastDcqcn, "--driver", "dpdk"});
  EXPECT_EQ(on_dpdk.exit_code, 2) << on_dpdk.err;
  EXPECT_NE(on_dpdk.err.find(kIncastDcqcn + ":21:1: error: fabric.hosts: dpdk: runs 1 sending "
                                            "host(s) (the plan has 16)"),
            std::string::npos)
      << on_dpdk.err;
}

TEST(PlanFit, RunRefusesBeforeTheDriverOpens) {
  if (!has_driver("dpdk")) GTEST_SKIP() << "this build has no DPDK driver";
  const Outcome run = run_qosbench({"run", kIncastDcqcn, "--driver", "dpdk", "--quiet"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find(":21:1: error: fabric.hosts"), std::string::npos) << run.err;
  // The EAL never started: DPDK prints its own "EAL: ..." lines when it does.
  EXPECT_EQ(run.err.find("EAL:"), std::string::npos) << run.err;
}

TEST(PlanFit, HwPacingNamingNoFlowIsAtItsKeyInValidateAndRun) {
  if (!has_driver("verbs")) GTEST_SKIP() << "this build has no verbs driver";
  const std::string suite = write_temp(
      "hw_pacing.toml",
      one_flow_suite("", "[driver.verbs]\nprovider = \"fake\"\nhw_pacing = [\"nope\"]\n"));
  for (const auto& command :
       {std::vector<std::string>{"validate", suite, "--driver", "verbs"},
        std::vector<std::string>{"run", suite, "--driver", "verbs", "--quiet"}}) {
    const Outcome refused = run_qosbench(command);
    EXPECT_EQ(refused.exit_code, 2) << command[0] << ": " << refused.err;
    // [driver.verbs] is on line 14, hw_pacing's value on line 16, column 13.
    EXPECT_NE(refused.err.find(suite + ":16:13: error: driver.verbs.hw_pacing: verbs: hw_pacing "
                                       "names 'nope', which is no [[flow]] of the suite"),
              std::string::npos)
        << command[0] << ": " << refused.err;
  }
  // A saturating flow has no rate to pace at: the same key.
  const std::string saturating =
      write_temp("hw_pacing_saturating.toml",
                 one_flow_suite("", "[driver.verbs]\nprovider = \"fake\"\nhw_pacing = [\"f\"]\n"));
  const Outcome paced = run_qosbench({"validate", saturating, "--driver", "verbs"});
  EXPECT_EQ(paced.exit_code, 2) << paced.err;
  EXPECT_NE(paced.err.find(":16:13: error: driver.verbs.hw_pacing:"), std::string::npos)
      << paced.err;
}

TEST(PlanFit, AReadFlowBetweenTwoHostsIsRefusedAtOnce) {
  if (!has_driver("verbs")) GTEST_SKIP() << "this build has no verbs driver";
  const std::string suite =
      write_temp("read_two_hosts.toml",
                 one_flow_suite("op = \"read\"\n",
                                "[driver.verbs]\nprovider = \"fake\"\nfake_timing = \"instant\"\n"
                                "peer = \"192.0.2.1:18515\"\n"));
  const auto start = std::chrono::steady_clock::now();
  const Outcome refused = run_qosbench({"run", suite, "--driver", "verbs", "--quiet"});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  // The [[flow]] entry (line 10), not a connect wait's timeout.
  EXPECT_NE(refused.err.find(suite + ":10:1: error: flow[0].op: verbs: flow 'f' has op = \"read\""),
            std::string::npos)
      << refused.err;
  EXPECT_LT(took, std::chrono::seconds(30));
}

}  // namespace
}  // namespace qb::e2e
