// Lossy mode, queue depths and the queue gate on the simulator's graph model (issue 29 parts 3
// and 5), end to end: the lossy DCQCN incast as a one-switch [topology] against the one-switch
// model, the PFC victim layout made lossy (drops instead of pauses: no victim), per-link drops
// adding up, the max_queue_depth gate and the queue series on a fabric, and the key that
// conflicts with lossy mode.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "one_switch_topology.hpp"
#include "process.hpp"
#include "run_results.hpp"

namespace qb::e2e {
namespace {

using Json = nlohmann::json;

Json run_json(const std::string& suite, int expected_exit) {
  return run_results(suite, expected_exit, "fabric_lossy");
}

double stat(const Json& scenario, const std::string& name) { return driver_stat(scenario, name); }

double total_measured_bps(const Json& scenario) {
  double total = 0.0;
  for (const Json& flow : scenario["flows"]) total += flow["measured_bps"].get<double>();
  return total;
}

const Json* gate(const Json& scenario, const std::string& name) {
  for (const Json& g : scenario["gates"]) {
    if (g["name"] == name) return &g;
  }
  return nullptr;
}

// configs/pfc_victim.toml with the switches dropping instead of pausing.
std::string pfc_victim_lossy() {
  std::string suite = read_file(QB_SOURCE_DIR "/configs/fabrics/pfc_victim.toml");
  replace_once(suite, "repetitions = 3", "repetitions = 1");
  return suite + "\n[fabric]\nmode = \"lossy\"\nbuffer = \"256KB\"\n";
}

// configs/incast_lossy_dcqcn.toml (16 senders, 600 KB egress buffer, DCQCN, go-back-N) on both
// models, the same seeds. Measured (2 x 60 ms, one-switch and graph): 79.20 and 77.79 Gbit/s on
// the wire; drops 2451 and 2746; NACKs 116 and 113.5; packets sent again 3054 and 3358.5; timer
// go-backs 4.5 and 4.5 (means per repetition); deepest queue 597694 and 597662 B. DCQCN's shares
// are chaotic in the marks (fabric_cc_test.cpp), hence totals within 5 %, counters within 30 %.
TEST(FabricLossy, GraphModelAgreesWithTheOneSwitchLossyIncast) {
  const Json one = run_json(QB_SOURCE_DIR "/configs/incast_lossy_dcqcn.toml", 0);
  const std::string graph_suite = one_switch_topology(
      read_file(QB_SOURCE_DIR "/configs/incast_lossy_dcqcn.toml"), 16, "[fabric.ecn]", "250ns", "");
  const Json graph = run_json(write_temp("incast_lossy_graph.toml", graph_suite), 0);
  const Json& a = one["scenarios"][0];
  const Json& b = graph["scenarios"][0];
  ASSERT_EQ(b["flows"].size(), 16u);
  EXPECT_NEAR(total_measured_bps(b) / total_measured_bps(a), 1.0, 0.05);
  for (const char* counter : {"switch_drops", "nacks", "retransmitted_packets"}) {
    EXPECT_GT(stat(b, counter), 0.0) << counter;
    EXPECT_NEAR(stat(b, counter) / stat(a, counter), 1.0, 0.3) << counter;
  }
  // Every drop at the one egress that queues, and within its buffer.
  EXPECT_EQ(stat(b, "link.sw:1->r:1.drops"), stat(b, "switch_drops"));
  EXPECT_LE(stat(b, "switch_queue_max_bytes"), stat(b, "lossy_buffer_bytes"));
  EXPECT_EQ(stat(b, "lossy_buffer_bytes"), 600e3);
  // No credit in lossy mode: nothing paused.
  EXPECT_EQ(stat(b, "paused_ns"), 0.0);
}

// The PFC victim layout, lossy and without congestion control: leaf A drops what r's port
// cannot take instead of pausing s's port, so s->v is never paused (no victim), while s->r and
// t->r lose most of their goodput to go-back-N (every packet after a gap is sent again).
TEST(FabricLossy, DropsInsteadOfPausesLeaveNoVictim) {
  const Json results = run_json(write_temp("pfc_victim_lossy.toml", pfc_victim_lossy()), 1);
  const Json& scenario = results["scenarios"][0];
  EXPECT_TRUE(scenario["victims"].empty()) << scenario["victims"].dump();
  EXPECT_EQ(stat(scenario, "paused_ns"), 0.0);
  double link_drops = 0.0;
  for (const Json& link : scenario["links"]) {
    EXPECT_EQ(link["paused_ns"].get<double>(), 0.0) << link["name"];
    link_drops += link["drops"].get<double>();
    if (link["name"] != "leafA:3->r:1") {
      EXPECT_EQ(link["drops"].get<double>(), 0.0) << link["name"];
    }
  }
  EXPECT_GT(link_drops, 0.0);
  EXPECT_EQ(link_drops, stat(scenario, "switch_drops"));
  EXPECT_GT(stat(scenario, "retransmitted_packets"), 0.0);
  EXPECT_GT(stat(scenario, "nacks"), 0.0);
  // A flow's drops count inside the window; the switch's over the whole run.
  double flow_drops = 0.0;
  std::map<std::string, double> error;
  for (const Json& flow : scenario["flows"]) {
    flow_drops += flow["drops"].get<double>();
    error[flow["name"].get<std::string>()] = flow["error"].get<double>();
  }
  EXPECT_GT(flow_drops, 0.0);
  EXPECT_LE(flow_drops, stat(scenario, "switch_drops"));
  EXPECT_LT(error.at("s-to-r"), -0.5);  // go-back-N under tail drop, no congestion control
  EXPECT_LT(error.at("t-to-r"), -0.5);
}

// The queue gate and series on a fabric: the deepest class queue of any switch egress, judged;
// a series for the bottleneck egress (leaf A towards r), never deeper than the gate's figure.
TEST(FabricLossy, QueueGateAndSeriesOnAFabric) {
  std::string suite = read_file(QB_SOURCE_DIR "/configs/fabrics/pfc_victim.toml");
  replace_once(suite, "repetitions = 3", "repetitions = 1");
  suite += "\n[gates]\nmax_queue_depth = \"10KB\"\n";
  const Json shallow = run_json(write_temp("pfc_victim_queue.toml", suite), 1);
  const Json& scenario = shallow["scenarios"][0];
  const Json* queue_gate = gate(scenario, "max_queue_depth");
  ASSERT_NE(queue_gate, nullptr);
  EXPECT_TRUE((*queue_gate)["judged"].get<bool>());
  EXPECT_FALSE((*queue_gate)["passed"].get<bool>());
  const double deepest = stat(scenario, "switch_queue_max_bytes");
  EXPECT_GT(deepest, 10e3);
  EXPECT_EQ((*queue_gate)["value"].get<double>(), deepest);
  ASSERT_FALSE(scenario["queue_depth"].empty());
  EXPECT_EQ(scenario["queue_depth"][0]["name"], "leafA:3->r:1 port");
  double series_max = 0.0;
  for (const Json& bin : scenario["queue_depth"][0]["max_bytes"]) {
    series_max = std::max(series_max, bin.get<double>());
  }
  EXPECT_GT(series_max, 0.0);
  EXPECT_LE(series_max, deepest);
  // Per-link percentiles: ordered, and at most the link's deepest.
  for (const Json& link : scenario["links"]) {
    EXPECT_LE(link["queue_p50_bytes"].get<double>(), link["queue_p99_bytes"].get<double>());
    EXPECT_LE(link["queue_p99_bytes"].get<double>(), link["queue_max_bytes"].get<double>());
  }
  // A limit above it: the gate holds (the victim still fails the shares).
  replace_once(suite, "max_queue_depth = \"10KB\"", "max_queue_depth = \"10MB\"");
  const Json deep = run_json(write_temp("pfc_victim_queue_deep.toml", suite), 1);
  const Json* held = gate(deep["scenarios"][0], "max_queue_depth");
  ASSERT_NE(held, nullptr);
  EXPECT_TRUE((*held)["passed"].get<bool>());
}

// [topology] buffer sizes lossless ingress buffers: with mode = "lossy" it is refused, named.
TEST(FabricLossy, TopologyBufferWithLossyModeIsRefused) {
  std::string suite = pfc_victim_lossy();
  replace_once(suite, "delay = \"1us\"\n", "delay = \"1us\"\nbuffer = \"64KiB\"\n");
  const Outcome outcome = run_qosbench({"validate", write_temp("lossy_buffer.toml", suite)});
  EXPECT_EQ(outcome.exit_code, 2) << outcome.out << outcome.err;
  EXPECT_NE(outcome.err.find("topology.buffer"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.err.find("lossy"), std::string::npos) << outcome.err;
}

// A timeout shorter than a packet's way (three hops of 1 us, 256 KB buffers at 100 Gbit/s behind
// each switch egress) is warned about at its key; the default (1.05 ms) is not.
TEST(FabricLossy, ARetransmitTimeoutShorterThanAPacketsWayIsWarnedAbout) {
  std::string suite = pfc_victim_lossy() + "retransmit_timeout = \"5us\"\n";
  const Outcome short_timeout =
      run_qosbench({"validate", write_temp("lossy_short_timeout.toml", suite)});
  EXPECT_EQ(short_timeout.exit_code, 0) << short_timeout.out << short_timeout.err;
  const std::string all = short_timeout.out + short_timeout.err;
  EXPECT_NE(all.find("fabric.retransmit_timeout"), std::string::npos) << all;
  EXPECT_NE(all.find("spurious retransmissions"), std::string::npos) << all;

  const Outcome by_default =
      run_qosbench({"validate", write_temp("lossy_default_timeout.toml", pfc_victim_lossy())});
  EXPECT_EQ(by_default.exit_code, 0) << by_default.out << by_default.err;
  EXPECT_EQ((by_default.out + by_default.err).find("retransmit_timeout"), std::string::npos)
      << by_default.out << by_default.err;
}

}  // namespace
}  // namespace qb::e2e
