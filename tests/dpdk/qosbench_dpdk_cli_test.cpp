// `qosbench run --driver dpdk` end to end (the built binary, one process per test, so every test
// has its own EAL): a net_ring suite judged against the oracle, --eal replacing the suite's
// list, Ctrl-C, and the faults that must exit 3 with a hint and leave no runtime directory.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../e2e/process.hpp"

namespace qb::e2e {
namespace {

const std::string kSuite = std::string(QB_SOURCE_DIR) + "/tests/dpdk/ring_70_30.toml";
const std::string kRingEal = "--no-huge -m 256 --no-pci -l 0 --vdev net_ring0";

// Runtime directories qosbench made (qosbench-<pid>) whose process is gone: left behind.
std::vector<std::string> stale_runtime_dirs() {
  std::vector<std::string> stale;
  for (const char* base : {"/var/run/dpdk", "/tmp/dpdk"}) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("qosbench-")) continue;
      const int pid = std::atoi(name.c_str() + 9);
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(entry.path());
    }
  }
  return stale;
}

nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(read_file(path));
}

// On a busy machine other processes may starve a worker past the bound (docs/dpdk.md): the run
// then exits 3 saying so, an honest end for the tests that are not about starvation (their
// figures are still written; only the verdict changes).
bool starved_by_others(const Outcome& o) {
  return o.exit_code == 3 &&
         (o.out.find("starved of CPU") != std::string::npos ||
          o.out.find("to other processes; figures unreliable") != std::string::npos);
}

TEST(DpdkCli, DriversListsDpdkAvailable) {
  const Outcome o = run_qosbench({"drivers"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("dpdk     available"), std::string::npos) << o.out;
}

TEST(DpdkCli, RingSuiteIsJudgedAgainstTheOracle) {
  const std::string json_path = ::testing::TempDir() + "/dpdk_ring.json";
  const Outcome o = run_qosbench(
      {"run", kSuite, "--driver", "dpdk", "--eal", kRingEal, "--json", json_path, "--quiet"});
  // Judged: 0 (gates pass) or 1 (a gate failed). The machine is shared, so the rate figures
  // here are loose sanity bounds; the tight ones are in benchmarks/dpdk.
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1 || starved_by_others(o))
      << o.exit_code << o.out << o.err;
  const auto results = read_json(json_path);
  EXPECT_EQ(results["scenarios"][0]["gates"][0]["name"], "max_share_error");
  EXPECT_EQ(results["driver"], "dpdk");
  EXPECT_EQ(results["complete"], true);
  EXPECT_EQ(results["clock"], "tsc");
  const auto& scenario = results["scenarios"][0];
  ASSERT_EQ(scenario["flows"].size(), 4u);
  if (starved_by_others(o)) GTEST_SKIP() << "the worker was starved by other processes:\n" << o.out;
  for (const auto& flow : scenario["flows"]) {
    EXPECT_GT(flow["packets"].get<double>(), 0.0) << flow["name"];
    EXPECT_LT(flow["error"].get<double>(), 0.05) << flow["name"];  // never much more
  }
  // A poll-mode core that others share sends less than asked, but it still splits what it
  // sends by the tree: the two instances of a group get the same.
  const auto& flows = scenario["flows"];
  for (const int first : {0, 2}) {
    EXPECT_NEAR(
        flows[first]["measured_bps"].get<double>() / flows[first + 1]["measured_bps"].get<double>(),
        1.0, 0.05);
  }
  // g2 sits at its 200 Mbit/s cap; g1 takes the rest of the 1 Gbit/s port.
  const auto& g2 = scenario["groups"][1];
  EXPECT_NEAR(g2["expected_bps"].get<double>(), 200e6, 1e6);
  EXPECT_NEAR(scenario["groups"][0]["expected_bps"].get<double>(), 800e6, 1e6);
  // The cap holds whatever the load: a busy machine sends less, never more.
  EXPECT_LT(g2["measured_bps"].get<double>(), 200e6 * 1.01);
  EXPECT_EQ(scenario["driver_stats"]["rx_seq_gaps"], 0.0);
  EXPECT_GT(scenario["driver_stats"]["tx_packets"].get<double>(), 0.0);
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

TEST(DpdkCli, EalOnTheCommandLineReplacesTheSuites) {
  // The EAL error quotes the arguments it got: the command line's, not the suite's.
  const Outcome o = run_qosbench(
      {"run", kSuite, "--driver", "dpdk", "--eal", kRingEal + " --not-an-eal-option", "--quiet"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("--not-an-eal-option"), std::string::npos) << o.err;
}

// An interval line's span (ms) and goodput (Gbit/s) for `group`; false for another line.
bool parse_interval_line(const std::string& line, const std::string& group, double& start_ms,
                         double& end_ms, double& goodput_gbps) {
  const size_t bracket = line.find("] ");
  if (line.empty() || line[0] != '[' || bracket == std::string::npos) return false;
  char name[64] = {};
  const int read = std::sscanf(line.c_str() + bracket + 2, "%lf-%lf ms %63s goodput %lf Gbit/s",
                               &start_ms, &end_ms, name, &goodput_gbps);
  return read == 4 && group == name;
}

TEST(DpdkCli, LiveIntervalsOfTwoWorkersAddUpToTheResults) {
  // Two workers (one per lcore; the software shaper is one arbiter, so it is off): each
  // publishes its counters at the interval boundaries and the lines add both up.
  const std::string json_path = ::testing::TempDir() + "/dpdk_live.json";
  const Outcome o = run_qosbench({"run", kSuite, "--driver", "dpdk", "--eal",
                                  "--no-huge -m 256 --no-pci -l 0,1 --vdev net_ring0",
                                  "--driver-option", "software_shaper=false", "--duration", "200ms",
                                  "--repetitions", "1", "--interval", "50ms", "--json", json_path});
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1 || starved_by_others(o))
      << o.exit_code << o.out << o.err;
  EXPECT_EQ(o.err.find('\x1b'), std::string::npos) << "stderr is a file: no colour";
  const auto results = read_json(json_path);
  const auto& scenario = results["scenarios"][0];
  const double window_ms = scenario["duration_ns"].get<double>() / 1e6;
  for (const auto& group : scenario["groups"]) {
    const std::string name = group["name"];
    SCOPED_TRACE(name);
    double payload_bits = 0.0;  // sum of goodput x span over the intervals
    double previous_end_ms = 0.0;
    int intervals = 0;
    std::istringstream lines(o.err);
    for (std::string line; std::getline(lines, line);) {
      double start_ms = 0, end_ms = 0, goodput_gbps = 0;
      if (!parse_interval_line(line, name, start_ms, end_ms, goodput_gbps)) continue;
      ++intervals;
      EXPECT_DOUBLE_EQ(start_ms, previous_end_ms) << line;  // no gap, no overlap
      previous_end_ms = end_ms;
      payload_bits += goodput_gbps * 1e9 * (end_ms - start_ms) / 1e3;
    }
    EXPECT_GE(intervals, 2) << o.err;
    EXPECT_LE(intervals, 4) << o.err;
    EXPECT_NEAR(previous_end_ms, window_ms, 0.01) << "the last interval ends the window";
    double measured_payload_bps = 0.0;
    for (const auto& flow : scenario["flows"]) {
      if (flow["name"].get<std::string>().rfind(name + "#", 0) == 0) {
        measured_payload_bps += flow["measured_payload_bps"].get<double>();
      }
    }
    ASSERT_GT(measured_payload_bps, 0.0);
    // The printed figures are rounded (rates to 1 Mbit/s, spans to 10 us).
    EXPECT_NEAR(payload_bits / (measured_payload_bps * window_ms / 1e3), 1.0, 0.01);
  }
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

// The suite with another [driver.dpdk] tx_port.
std::string suite_with_tx_port(const std::string& tx_port) {
  std::string text = read_file(kSuite);
  const std::string key = "tx_port = \"net_ring0\"";
  text.replace(text.find(key), key.size(), "tx_port = \"" + tx_port + "\"");
  return write_temp("dpdk_ring_" + std::to_string(tx_port.size()) + ".toml", text);
}

struct Fault {
  const char* name;
  const char* eal;
  const char* tx_port;
  const char* expect;  // in stderr: what to do
};

class DpdkCliFault : public ::testing::TestWithParam<Fault> {};

TEST_P(DpdkCliFault, ExitsThreeWithAHintAndLeavesNothing) {
  const Fault& fault = GetParam();
  const Outcome o = run_qosbench({"run", suite_with_tx_port(fault.tx_port), "--driver", "dpdk",
                                  "--eal", fault.eal, "--duration", "20ms", "--quiet"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find(fault.expect), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("Segmentation"), std::string::npos);
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Faults, DpdkCliFault,
    ::testing::Values(Fault{"bad_eal_args", "--no-huge -m 256 --no-such-option", "net_ring0",
                            "check the EAL arguments"},
                      Fault{"no_ports", "--no-huge -m 256 --no-pci -l 0", "", "--vdev net_ring0"},
                      Fault{"missing_port", "--no-huge -m 256 --no-pci -l 0 --vdev net_null0",
                            "0000:99:00.0", "add one with the EAL arguments"},
                      Fault{"too_little_memory", "--no-huge -m 8 --no-pci -l 0 --vdev net_ring0",
                            "net_ring0", "memory"}),
    [](const ::testing::TestParamInfo<Fault>& param) { return param.param.name; });

// [driver.dpdk] hw_pacing reaches the driver: net_ring has no send-on-time, so the run stops
// before sending, naming the mlx5 devarg that would give it.
TEST(DpdkCli, HardwarePacingOnAPortWithoutSendOnTimeExitsThreeNamingTxPp) {
  std::string text = read_file(kSuite);
  const std::string key = "software_shaper = true";
  text.replace(text.find(key), key.size(), "software_shaper = true\nhw_pacing = true");
  const Outcome o = run_qosbench({"run", write_temp("dpdk_ring_hw_pacing.toml", text), "--driver",
                                  "dpdk", "--eal", kRingEal, "--quiet"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("tx_pp"), std::string::npos) << o.err;
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

// Tx only on net_null (rx_port = "none"): the run sends, says what it sent per flow, judges
// nothing (its receiver would), writes the sender's results (marked sender_only) and exits 0;
// `report` and `compare` refuse that file (exit 2): it holds nothing to judge.
// The suite is the one the README's recipe names, run as the README runs it (its own EAL
// arguments: net_null0, no hugepages), only shorter.
TEST(DpdkCli, TxOnlyOnNetNullReportsWhatWasSent) {
  const std::string suite = std::string(QB_SOURCE_DIR) + "/tests/dpdk/null_tx_only.toml";
  const std::string json_path = ::testing::TempDir() + "/dpdk_tx_only.json";
  std::filesystem::remove(json_path);
  const Outcome o =
      run_qosbench({"run", suite, "--driver", "dpdk", "--duration", "50ms", "--json", json_path});
  EXPECT_TRUE(o.exit_code == 0 || starved_by_others(o)) << o.out << o.err;
  EXPECT_NE(o.out.find("sender only"), std::string::npos) << o.out;
  EXPECT_EQ(o.err.find("--json ignored"), std::string::npos) << o.err;
  const nlohmann::json results = read_json(json_path);
  EXPECT_EQ(results["schema"], "qosbench.results/1");
  EXPECT_EQ(results["sender_only"], true);
  EXPECT_EQ(results["complete"], true);
  EXPECT_FALSE(results.contains("passed"));
  const nlohmann::json& scenario = results["scenarios"][0];
  EXPECT_GT(scenario["tx_frames"].get<double>(), 0.0);
  EXPECT_GT(scenario["tx_bytes"].get<double>(), 0.0);
  EXPECT_GT(scenario["tx_mpps"].get<double>(), 0.0);
  ASSERT_EQ(scenario["flows"].size(), 4u);
  for (const nlohmann::json& flow : scenario["flows"]) {
    EXPECT_GT(flow["posted_messages"].get<uint64_t>(), 0u) << flow["name"];
    EXPECT_TRUE(flow.contains("late_posts"));
  }
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", json_path, "-o", json_path + ".html"},
        {"compare", json_path, json_path}}) {
    const Outcome refused = run_qosbench(args);
    EXPECT_EQ(refused.exit_code, 2) << args[0];
    EXPECT_NE(refused.err.find("sender-only"), std::string::npos) << refused.err;
  }
  EXPECT_FALSE(std::filesystem::exists(json_path + ".html"));
  // Every flow posted messages, and the port took frames.
  for (const char* flow : {"g1#0", "g1#1", "g2#0", "g2#1"}) {
    const size_t row = o.out.find(std::string("  ") + flow + " ");
    ASSERT_NE(row, std::string::npos) << flow << "\n" << o.out;
    const std::string posted = o.out.substr(row + 2 + std::string(flow).size());
    EXPECT_GT(std::stoull(posted), 0u) << flow;
  }
  const size_t sent = o.out.find("driver: ");
  ASSERT_NE(sent, std::string::npos) << o.out;
  EXPECT_GT(std::stoull(o.out.substr(sent + 8)), 0u) << o.out;
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

// A real link down on a software device: a vhost-user port whose socket no virtio front end
// connects to never comes up. The run stops before sending, exits 3 saying what to connect,
// writes no results, and the EAL removes its runtime directory and the socket.
TEST(DpdkCli, LinkDownExitsThreeAndLeavesNothing) {
  const std::string dir = ::testing::TempDir() + "/qb_vhost_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string socket = dir + "/link_down.sock";
  const std::string json_path = dir + "/results.json";
  const Outcome o = run_qosbench(
      {"run", suite_with_tx_port("net_vhost0"), "--driver", "dpdk", "--eal",
       "--no-huge -m 256 --no-pci -l 0 --vdev net_vhost0,iface=" + socket + ",queues=1",
       "--duration", "20ms", "--json", json_path, "--quiet"});
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  EXPECT_NE(o.err.find("link of net_vhost0 is down"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find("vhost-user socket"), std::string::npos) << o.err;
  EXPECT_FALSE(std::filesystem::exists(json_path));
  EXPECT_FALSE(std::filesystem::exists(socket));
  EXPECT_TRUE(stale_runtime_dirs().empty());
  std::filesystem::remove_all(dir);
}

TEST(DpdkCli, InterruptStopsAndWritesIncompleteResults) {
  const std::string json_path = ::testing::TempDir() + "/dpdk_interrupted.json";
  std::filesystem::remove(json_path);
  const Outcome o = run_qosbench({"run", kSuite, "--driver", "dpdk", "--eal", kRingEal,
                                  "--duration", "20s", "--json", json_path, "--quiet"},
                                 /*interrupt_after_ms=*/2000);
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  ASSERT_TRUE(std::filesystem::exists(json_path)) << o.err;
  const auto results = read_json(json_path);
  EXPECT_EQ(results["complete"], false);
  EXPECT_EQ(results["driver"], "dpdk");
  // The ports were stopped and the frames sent so far counted.
  EXPECT_GT(results["scenarios"][0]["driver_stats"]["tx_packets"].get<double>(), 0.0);
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

// configs/mlx5_two_groups.toml's shape as RoCEv2 on net_ring: RDMA WRITEs of one packet and
// SENDs of three, judged by the same oracle as on the simulator.
TEST(DpdkCli, RoceV2SuiteIsJudgedAgainstTheOracle) {
  const std::string suite = std::string(QB_SOURCE_DIR) + "/tests/dpdk/ring_rocev2_two_groups.toml";
  const std::string json_path = ::testing::TempDir() + "/dpdk_ring_rocev2.json";
  // Only this run's: other processes on a shared machine may leave theirs.
  const std::vector<std::string> stale_before = stale_runtime_dirs();
  const Outcome o = run_qosbench({"run", suite, "--driver", "dpdk", "--eal",
                                  "--no-huge -m 512 --no-pci -l 0 --vdev net_ring0", "--json",
                                  json_path, "--quiet"});
  ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1 || starved_by_others(o))
      << o.exit_code << o.out << o.err;
  const auto results = read_json(json_path);
  EXPECT_EQ(results["complete"], true);
  const auto& scenario = results["scenarios"][0];
  const auto& flows = scenario["flows"];
  ASSERT_EQ(flows.size(), 4u);
  if (starved_by_others(o)) GTEST_SKIP() << "the worker was starved by other processes:\n" << o.out;
  for (const auto& flow : flows) {
    EXPECT_GT(flow["messages"].get<double>(), 0.0) << flow["name"];
    EXPECT_LT(flow["error"].get<double>(), 0.05) << flow["name"];  // never much more
  }
  // The rocev2 wire model: a 4096-byte WRITE is one packet with RETH (4096 + 16 + 82 bytes);
  // a 10000-byte SEND three (First/Middle/Last: 2 x (4096 + 82) + 1808 + 82).
  for (const int f : {0, 1}) {
    EXPECT_EQ(flows[f]["packets"], flows[f]["messages"]);
    EXPECT_DOUBLE_EQ(flows[f]["wire_bytes"].get<double>(),
                     flows[f]["messages"].get<double>() * 4194.0);
  }
  for (const int f : {2, 3}) {
    // A message may be cut by the end of the measurement window.
    EXPECT_NEAR(flows[f]["packets"].get<double>(), 3.0 * flows[f]["messages"].get<double>(), 2.0);
    EXPECT_NEAR(flows[f]["wire_bytes"].get<double>(), flows[f]["messages"].get<double>() * 10246.0,
                10246.0);
  }
  // A shared core sends less than asked but splits it by the tree (see the Ethernet test).
  for (const int first : {0, 2}) {
    EXPECT_NEAR(
        flows[first]["measured_bps"].get<double>() / flows[first + 1]["measured_bps"].get<double>(),
        1.0, 0.05);
  }
  EXPECT_NEAR(scenario["groups"][0]["expected_bps"].get<double>(), 800e6, 1e6);
  EXPECT_NEAR(scenario["groups"][1]["expected_bps"].get<double>(), 200e6, 1e6);
  EXPECT_LT(scenario["groups"][1]["measured_bps"].get<double>(), 200e6 * 1.01);
  EXPECT_EQ(scenario["driver_stats"]["rx_seq_gaps"], 0.0);
  EXPECT_EQ(scenario["driver_stats"]["rx_late"], 0.0);
  EXPECT_EQ(scenario["driver_stats"]["rx_foreign"], 0.0);
  EXPECT_EQ(scenario["driver_stats"]["roce_truncated_messages"], 0.0);
  EXPECT_LE(stale_runtime_dirs().size(), stale_before.size());
}

// InfiniBand has no Ethernet frames: refused, pointing at the suite's `transport`.
// Without --no-huge on a host that has no hugepages for us: exit 3 with the EAL's failure and
// a hint; a root user is not told to run as root. Skipped where hugepages are available.
TEST(DpdkCli, HugepageFailureDoesNotTellRootToRunAsRoot) {
  const Outcome o =
      run_qosbench({"run", kSuite, "--driver", "dpdk", "--eal",
                    "-m 64 --no-pci -l 0 --vdev net_ring0", "--duration", "10ms", "--quiet"});
  if (o.exit_code == 0) GTEST_SKIP() << "hugepages are available here: nothing fails";
  EXPECT_EQ(o.exit_code, 3) << o.out << o.err;
  ASSERT_NE(o.err.find("EAL initialisation failed"), std::string::npos) << o.err;
  if (::geteuid() == 0) {
    EXPECT_EQ(o.err.find("run as root"), std::string::npos) << o.err;
    if (o.err.find("Permission denied") != std::string::npos) {
      EXPECT_NE(o.err.find("although running as root"), std::string::npos) << o.err;
    }
  }
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

TEST(DpdkCli, InfinibandSuiteIsRefusedAtItsTransport) {
  std::string text =
      read_file(std::string(QB_SOURCE_DIR) + "/tests/dpdk/ring_rocev2_two_groups.toml");
  const std::string key = "transport = \"rocev2\"";
  text.replace(text.find(key), key.size(), "transport = \"ib\"");
  const std::string path = write_temp("dpdk_ring_ib.toml", text);
  const Outcome o = run_qosbench({"run", path, "--driver", "dpdk", "--eal", kRingEal, "--quiet"});
  EXPECT_EQ(o.exit_code, 2) << o.out << o.err;  // a config error at the suite's key
  EXPECT_NE(o.err.find("dpdk: sends Ethernet frames"), std::string::npos) << o.err;
  // `transport = ...` is line 22 of the suite, its value at column 13.
  EXPECT_NE(o.err.find(path + ":22:13: error: port.transport"), std::string::npos) << o.err;
}

// A run under a watchdog: SIGKILL after `watchdog_ms` (a hang fails the test instead of CI).
// `signals` are sent `signal_after_ms` after the start (the first once qosbench catches it),
// 10 ms apart; `exit_ms` is the time from the first signal (or from the start) to the exit.
struct Watched {
  Outcome outcome;
  bool killed = false;
  double exit_ms = 0.0;
  bool left_runtime_dir = false;  // its /var/run/dpdk/qosbench-<pid> is still there
};

// Whether `pid` has a handler for `signal` (/proc/<pid>/status SigCgt): before qosbench installs
// its own, a signal kills it with the default action (slow starts, e.g. under TSan, took longer
// than the 30 ms the EAL-init test waits).
bool catches(pid_t pid, int signal) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!line.starts_with("SigCgt:")) continue;
    const uint64_t mask = std::strtoull(line.c_str() + 7, nullptr, 16);
    return (mask >> (signal - 1) & 1U) != 0;
  }
  return false;
}

Watched run_watched(const std::vector<std::string>& args, int watchdog_ms,
                    std::vector<int> signals = {}, int signal_after_ms = 0) {
  const std::string stem = ::testing::TempDir() + "/qb_watched_" + std::to_string(::getpid());
  const std::string out_path = stem + ".out", err_path = stem + ".err";
  Watched w;
  const pid_t pid = spawn_qosbench(args, out_path, err_path);
  if (pid <= 0) return w;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto from = start;
  int status = 0;
  size_t sent = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    const auto elapsed_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    if (sent < signals.size() && elapsed_ms >= signal_after_ms + 10 * static_cast<int>(sent) &&
        (sent == 0 ? catches(pid, signals[0]) : !signal_pending(pid))) {
      if (sent == 0) from = Clock::now();
      ::kill(pid, signals[sent++]);
    }
    if (elapsed_ms >= watchdog_ms) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      w.killed = true;
      break;
    }
    ::usleep(1000);
  }
  w.exit_ms = std::chrono::duration<double, std::milli>(Clock::now() - from).count();
  for (const char* base : {"/var/run/dpdk/", "/tmp/dpdk/"}) {
    w.left_runtime_dir =
        w.left_runtime_dir || std::filesystem::exists(base + ("qosbench-" + std::to_string(pid)));
  }
  w.outcome.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  w.outcome.out = read_file(out_path);
  w.outcome.err = read_file(err_path);
  ::unlink(out_path.c_str());
  ::unlink(err_path.c_str());
  return w;
}

const std::string kImix = std::string(QB_SOURCE_DIR) + "/configs/imix_256_flows.toml";

// The value of a top-level `key = N` line of a suite (0 when absent): enough for `hosts`.
uint64_t suite_number(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with(key)) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos || line.find_first_not_of(' ', key.size()) != eq) continue;
    return std::strtoull(line.c_str() + eq + 1, nullptr, 10);
  }
  return 0;
}

// Every shipped suite the DPDK driver accepts (an Ethernet or RoCEv2 port, one sending host)
// on a net_ring loopback ends on its own within its duration plus the drain bound
// (imix_256_flows used to spin in the completion drain loop forever). The others are refused
// with their reason, never run: InfiniBand at its transport (InfinibandSuiteIsRefused...),
// a fabric of several sending hosts before the EAL starts (exit 2 at fabric.hosts, "runs 1
// sending host(s)").
TEST(DpdkCliHangs, EveryShippedSuiteDpdkAcceptsEndsOnNetRing) {
  std::vector<std::string> ran;
  size_t refused = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(QB_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".toml") continue;
    const std::string text = read_file(entry.path());
    const bool ethernet = text.find("transport = \"eth\"") != std::string::npos ||
                          text.find("transport = \"rocev2\"") != std::string::npos;
    if (!ethernet) continue;
    const bool several_hosts = suite_number(text, "hosts") > 1;
    const Watched w = run_watched({"run", entry.path().string(), "--driver", "dpdk", "--eal",
                                   "--no-huge -m 512 --no-pci -l 0 --vdev net_ring0", "--duration",
                                   "20ms", "--repetitions", "1", "--quiet"},
                                  /*watchdog_ms=*/20000);
    EXPECT_FALSE(w.killed) << entry.path() << " hung";
    EXPECT_FALSE(w.left_runtime_dir) << entry.path();
    if (several_hosts) {
      ++refused;
      EXPECT_EQ(w.outcome.exit_code, 2) << entry.path() << w.outcome.err;
      EXPECT_NE(w.outcome.err.find("error: fabric.hosts: dpdk: runs 1 sending host(s)"),
                std::string::npos)
          << entry.path() << w.outcome.err;
      continue;
    }
    ran.push_back(entry.path().stem().string());
    // Judged (0 or 1: a shared core may miss a gate), never a hang or a crash. A core other
    // processes starve for the whole window measures nothing: exit 3 saying so (seen in CI
    // while two builds ran), which is an honest end too.
    const bool starved =
        (w.outcome.exit_code == 3 &&
         w.outcome.err.find("no packet reached a receiver") != std::string::npos) ||
        starved_by_others(w.outcome);
    EXPECT_TRUE(w.outcome.exit_code == 0 || w.outcome.exit_code == 1 || starved)
        << entry.path() << " " << w.outcome.exit_code << w.outcome.err;
    std::cout << entry.path().stem().string() << ": exit " << w.outcome.exit_code
              << (starved ? " (starved by other processes)" : "") << "\n";
  }
  // Both transports are covered: the Ethernet suite and the RoCEv2 ones.
  for (const char* suite : {"imix_256_flows", "mlx5_two_groups", "roce_ets", "cbr_redistribution",
                            "tc_inheritance", "three_level_caps"}) {
    EXPECT_NE(std::find(ran.begin(), ran.end(), suite), ran.end()) << suite << " was not run";
  }
  EXPECT_GE(refused, 1u);
}

// net_null always has frames (foreign ones: zeros) on Rx: a Tx+Rx run still ends on time.
TEST(DpdkCliHangs, APortThatNeverRunsDryDoesNotKeepTheRunGoing) {
  std::string text = read_file(kSuite);
  const std::string key = "tx_port = \"net_ring0\"";
  text.replace(text.find(key), key.size(), "tx_port = \"net_null0\"");
  const Watched w = run_watched(
      {"run", write_temp("dpdk_null_rx.toml", text), "--driver", "dpdk", "--eal",
       "--no-huge -m 512 --no-pci -l 0-1 --vdev=net_null0", "--duration", "50ms", "--quiet"},
      /*watchdog_ms=*/20000);
  EXPECT_FALSE(w.killed) << "hung";
  // None of net_null's frames is ours: nothing to judge, exit 3 with the reason.
  EXPECT_EQ(w.outcome.exit_code, 3) << w.outcome.err;
  EXPECT_FALSE(w.left_runtime_dir);
}

// SIGINT and SIGTERM end a busy 256-flow run quickly (the target is 200 ms, docs/testing.md
// has the figures; 2 s here: right after a build, page-cache writeback on this shared machine
// delayed one exit by 1.4 s), with results marked incomplete and no runtime directory left.
TEST(DpdkCliHangs, ASignalEndsABusyRunQuickly) {
  for (const int signal : {SIGINT, SIGTERM}) {
    const std::string json_path = ::testing::TempDir() + "/dpdk_signal.json";
    std::filesystem::remove(json_path);
    const Watched w = run_watched({"run", kImix, "--driver", "dpdk", "--eal",
                                   "--no-huge -m 512 --no-pci -l 0 --vdev net_ring0", "--duration",
                                   "20s", "--json", json_path, "--quiet"},
                                  /*watchdog_ms=*/20000, {signal}, /*signal_after_ms=*/2000);
    EXPECT_FALSE(w.killed);
    EXPECT_EQ(w.outcome.exit_code, 3) << w.outcome.err;
    EXPECT_LT(w.exit_ms, 2000.0) << "signal " << signal;
    std::printf("signal %d: exit %.0f ms after it\n", signal, w.exit_ms);
    ASSERT_TRUE(std::filesystem::exists(json_path));
    const auto results = read_json(json_path);
    EXPECT_EQ(results["complete"], false);
    EXPECT_FALSE(w.left_runtime_dir);
  }
}

// A second signal exits at once with 128 + the signal, leaving no runtime directory.
TEST(DpdkCliHangs, ASecondSignalExitsAtOnce) {
  for (const int signal : {SIGINT, SIGTERM}) {
    const Watched w = run_watched(
        {"run", kImix, "--driver", "dpdk", "--eal",
         "--no-huge -m 512 --no-pci -l 0 --vdev net_ring0", "--duration", "20s", "--quiet"},
        /*watchdog_ms=*/20000, {signal, signal},
        /*signal_after_ms=*/2000);
    EXPECT_FALSE(w.killed);
    EXPECT_EQ(w.outcome.exit_code, 128 + signal) << w.outcome.err;
    EXPECT_LT(w.exit_ms, 2000.0);
    EXPECT_FALSE(w.left_runtime_dir);
  }
}

// A signal while rte_eal_init runs (it cannot be cut short: ~0.2 s with -m 512) is not lost:
// the run ends before any port is set up, with incomplete results, and leaves no runtime dir.
TEST(DpdkCliHangs, ASignalDuringEalInitEndsTheRun) {
  const std::string json_path = ::testing::TempDir() + "/dpdk_eal_signal.json";
  std::filesystem::remove(json_path);
  const Watched w = run_watched(
      {"run", kImix, "--driver", "dpdk", "--eal", "--no-huge -m 512 --no-pci -l 0 --vdev net_ring0",
       "--duration", "20s", "--json", json_path, "--quiet"},
      /*watchdog_ms=*/20000, {SIGINT}, /*signal_after_ms=*/30);
  EXPECT_FALSE(w.killed);
  EXPECT_EQ(w.outcome.exit_code, 3) << w.outcome.err;
  EXPECT_LT(w.exit_ms, 2000.0);
  std::printf("signal during EAL init: exit %.0f ms after it\n", w.exit_ms);
  ASSERT_TRUE(std::filesystem::exists(json_path)) << w.outcome.err;
  EXPECT_EQ(read_json(json_path)["complete"], false);
  EXPECT_FALSE(w.left_runtime_dir);
}

// A link that never comes up (a vhost-user port nobody connects to) is waited for up to 2 s;
// a signal ends that wait: incomplete results are written (not "link is down"), nothing is
// left behind.
TEST(DpdkCliHangs, ASignalEndsTheWaitForALink) {
  const std::string dir = ::testing::TempDir() + "/qb_vhost_signal_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string socket = dir + "/never_up.sock";
  const std::string json_path = dir + "/results.json";
  const Watched w =
      run_watched({"run", suite_with_tx_port("net_vhost0"), "--driver", "dpdk", "--eal",
                   "--no-huge -m 256 --no-pci -l 0 --vdev net_vhost0,iface=" + socket + ",queues=1",
                   "--duration", "20ms", "--json", json_path, "--quiet"},
                  /*watchdog_ms=*/20000, {SIGINT}, /*signal_after_ms=*/600);
  EXPECT_FALSE(w.killed);
  EXPECT_EQ(w.outcome.exit_code, 3) << w.outcome.err;
  EXPECT_EQ(w.outcome.err.find("is down after 2 s"), std::string::npos) << w.outcome.err;
  std::printf("signal during the link wait: exit %.0f ms after it\n", w.exit_ms);
  ASSERT_TRUE(std::filesystem::exists(json_path)) << w.outcome.err;
  EXPECT_EQ(read_json(json_path)["complete"], false);
  EXPECT_FALSE(std::filesystem::exists(socket));
  EXPECT_FALSE(w.left_runtime_dir);
  std::filesystem::remove_all(dir);
}

// Interrupted rates are over the time measured: an interrupted run's flows are within a few
// percent of a complete run's on the same machine, not at -90 % (divided by the full window).
TEST(DpdkCliHangs, InterruptedRatesAreOverTheTimeMeasured) {
  const std::string full_path = ::testing::TempDir() + "/dpdk_rate_full.json";
  const std::string cut_path = ::testing::TempDir() + "/dpdk_rate_cut.json";
  const std::vector<std::string> common{"run",   kSuite,   "--driver", "dpdk",
                                        "--eal", kRingEal, "--quiet"};
  auto full_args = common;
  full_args.insert(full_args.end(), {"--duration", "1s", "--json", full_path});
  auto cut_args = common;
  cut_args.insert(cut_args.end(), {"--duration", "20s", "--json", cut_path});
  const Watched full = run_watched(full_args, 20000);
  // The signal comes 3 s in: EAL init and the warm-up take up to ~1.4 s under ThreadSanitizer
  // on a busy machine, and the window must have started.
  const Watched cut = run_watched(cut_args, 20000, {SIGINT}, 3000);
  ASSERT_FALSE(full.killed || cut.killed);
  const auto a = read_json(full_path)["scenarios"][0];
  const auto b = read_json(cut_path)["scenarios"][0];
  EXPECT_EQ(b["repetitions_completed"], 0);
  EXPECT_EQ(b["repetitions_partial"], 1);
  ASSERT_EQ(b["measured_ns_reps"].size(), 1u);
  // What was measured, not the 20 s window: well above nothing, well below the window.
  EXPECT_GT(b["measured_ns_reps"][0].get<double>(), 0.2e9);
  EXPECT_LT(b["measured_ns_reps"][0].get<double>(), 10e9);
  const double total_full =
      a["groups"][0]["measured_bps"].get<double>() + a["groups"][1]["measured_bps"].get<double>();
  const double total_cut =
      b["groups"][0]["measured_bps"].get<double>() + b["groups"][1]["measured_bps"].get<double>();
  // The two runs share the machine with others at different moments: a loose band, far from
  // the ~0.15 the full-window division would give (about 3 s measured over 20 s).
  EXPECT_GT(total_cut / total_full, 0.5);
  EXPECT_LT(total_cut / total_full, 2.0);
}

// Starved workers (docs/dpdk.md "Starved workers"): a worker whose CPU another busy process
// shares loses about half its time; the run says so and is an invalid measurement (exit 3).

// A process spinning on `cpu` (killed by the test; it dies with the test and ends by itself
// after 60 s at the latest).
pid_t spin_on_cpu(int cpu) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ::sched_setaffinity(0, sizeof set, &set);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  volatile uint64_t spins = 0;
  while (std::chrono::steady_clock::now() < end) {
    for (int i = 0; i < 1'000'000; ++i) spins = spins + 1;
  }
  ::_exit(0);
}

void stop_process(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

TEST(DpdkCliStarved, ABusyProcessOnTheWorkersCpuIsAnInvalidMeasurement) {
  // The worker runs on EAL lcore 0, CPU 0 (the suites' and kRingEal's -l 0).
  const pid_t competitor = spin_on_cpu(0);
  ASSERT_GT(competitor, 0);
  const std::string json_path = ::testing::TempDir() + "/dpdk_starved.json";
  const std::string sent_path = ::testing::TempDir() + "/dpdk_starved_sender.json";
  std::filesystem::remove(json_path);
  std::filesystem::remove(sent_path);
  const Outcome judged = run_qosbench({"run", kSuite, "--driver", "dpdk", "--eal", kRingEal,
                                       "--duration", "1s", "--json", json_path});
  const Outcome sender =
      run_qosbench({"run", std::string(QB_SOURCE_DIR) + "/tests/dpdk/null_tx_only.toml", "--driver",
                    "dpdk", "--duration", "1s", "--json", sent_path});
  stop_process(competitor);

  EXPECT_EQ(judged.exit_code, 3) << judged.out << judged.err;
  EXPECT_NE(judged.out.find("the worker lost "), std::string::npos) << judged.out;
  EXPECT_NE(judged.out.find("to other processes; figures unreliable"), std::string::npos)
      << judged.out;
  EXPECT_NE(judged.out.find("invalid measurement"), std::string::npos) << judged.out;
  const auto results = read_json(json_path);
  EXPECT_EQ(results["passed"], false);
  const auto& starvation = results["scenarios"][0]["starvation"];
  EXPECT_EQ(starvation["invalid"], true) << starvation;
  EXPECT_GT(starvation["lost_fraction"].get<double>(), 0.10) << starvation;
  EXPECT_GT(starvation["involuntary_switches"].get<double>(), 0.0) << starvation;

  EXPECT_EQ(sender.exit_code, 3) << sender.out << sender.err;
  EXPECT_NE(sender.out.find("to other processes; figures unreliable"), std::string::npos)
      << sender.out;
  const auto sent = read_json(sent_path);
  EXPECT_EQ(sent["scenarios"][0]["starvation"]["invalid"], true) << sent;
  EXPECT_TRUE(stale_runtime_dirs().empty());
}

// The CPU with the least busy time over `window_ms` (/proc/stat), and how busy it was (0..1).
std::pair<int, double> idlest_cpu(int window_ms) {
  auto sample = [] {
    std::vector<std::pair<double, double>> busy_total;  // per CPU
    std::ifstream stat("/proc/stat");
    std::string line;
    while (std::getline(stat, line)) {
      if (!line.starts_with("cpu") || line.size() < 4 || line[3] == ' ') continue;
      std::istringstream fields(line.substr(line.find(' ')));
      double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
      fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
      const double busy = user + nice + system + irq + softirq + steal;
      busy_total.emplace_back(busy, busy + idle + iowait);
    }
    return busy_total;
  };
  const auto before = sample();
  ::usleep(static_cast<useconds_t>(window_ms) * 1000);
  const auto after = sample();
  std::pair<int, double> best{-1, 1.0};
  for (size_t cpu = 0; cpu < before.size() && cpu < after.size(); ++cpu) {
    const double total = after[cpu].second - before[cpu].second;
    if (total <= 0) continue;
    const double busy = (after[cpu].first - before[cpu].first) / total;
    if (busy < best.second) best = {static_cast<int>(cpu), busy};
  }
  return best;
}

TEST(DpdkCliStarved, AnUnstarvedRunIsNotFlagged) {
  // RUN_SERIAL keeps the other tests off the machine, but not every process on it: a CPU idle
  // before a run can still be taken during it, and then the kernel's run-queue delay is a true
  // verdict. Up to three attempts; the flag must follow the delay in every one.
  std::string last_starvation;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto [cpu, busy] = idlest_cpu(500);
    if (cpu < 0 || busy > 0.05) {
      GTEST_SKIP() << "no idle CPU here (the idlest, CPU " << cpu << ", was " << 100.0 * busy
                   << " % busy): an unstarved run cannot be arranged";
    }
    const std::string json_path = ::testing::TempDir() + "/dpdk_unstarved.json";
    std::filesystem::remove(json_path);
    const Outcome o =
        run_qosbench({"run", kSuite, "--driver", "dpdk", "--eal",
                      "--no-huge -m 256 --no-pci -l " + std::to_string(cpu) + " --vdev net_ring0",
                      "--duration", "500ms", "--json", json_path});
    ASSERT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.exit_code << o.out << o.err;
    const auto results = read_json(json_path);  // kept: a reference into a temporary dangles
    const auto& starvation = results["scenarios"][0]["starvation"];
    // Only the run-queue delay counts as lost, and the flag and the warning follow it.
    ASSERT_EQ(starvation["lost_ns"], starvation["run_delay_ns"]) << starvation;
    const bool over_one_percent = starvation["lost_fraction"].get<double>() > 0.01;
    ASSERT_EQ(starvation["unreliable"], over_one_percent) << starvation;
    ASSERT_EQ(o.out.find("to other processes") != std::string::npos, over_one_percent) << o.out;
    if (!over_one_percent) {
      EXPECT_EQ(starvation["invalid"], false) << starvation;
      return;
    }
    last_starvation = starvation.dump();
  }
  GTEST_SKIP() << "another process took the worker's CPU in each of three runs (the last: "
               << last_starvation << "): an unstarved run could not be arranged";
}

// 256 flows on one worker: some of the loop's own iterations take longer than the stall
// threshold (83 stalls, 42 ms in all, once flagged this run as starved at 18 us of run-queue
// delay). Those are no time lost to other processes: an idle run is not flagged, and the
// stalls stay in the results as information.
TEST(DpdkCliStarved, TheLoopsOwnSlowIterationsOnAnIdleCpuAreNotFlagged) {
  const auto [cpu, busy] = idlest_cpu(500);
  if (cpu < 0 || busy > 0.05) {
    GTEST_SKIP() << "no idle CPU here (the idlest, CPU " << cpu << ", was " << 100.0 * busy
                 << " % busy): an unstarved run cannot be arranged";
  }
  const std::string json_path = ::testing::TempDir() + "/dpdk_imix_unstarved.json";
  std::filesystem::remove(json_path);
  const Outcome o =
      run_qosbench({"run", kImix, "--driver", "dpdk", "--eal",
                    "--no-huge -m 512 --no-pci -l " + std::to_string(cpu) + " --vdev net_ring0",
                    "--json", json_path, "--quiet"});
  ASSERT_TRUE(std::filesystem::exists(json_path)) << o.exit_code << o.out << o.err;
  const auto results = read_json(json_path);  // kept: a reference into a temporary dangles
  const auto& starvation = results["scenarios"][0]["starvation"];
  std::cout << "imix on CPU " << cpu << " (" << 100.0 * busy << " % busy before): exit "
            << o.exit_code << ", starvation " << starvation << "\n";
  // Always: the loss is the run-queue delay, whatever the stalls.
  EXPECT_EQ(starvation["lost_ns"], starvation["run_delay_ns"])
      << "only the run-queue delay counts as lost, not the stalls: " << starvation;
  // The CPU idle before the run can still be taken during it (a build starting on this shared
  // machine): a run-queue delay above 10 % is that, a true verdict, and proves nothing here.
  if (starvation["invalid"] == true) {
    GTEST_SKIP() << "another process took CPU " << cpu << " during the run (run-queue delay "
                 << starvation["run_delay_ns"] << " ns of " << starvation["run_ns"] << ")";
  }
  // Not flagged: no invalid measurement, no exit 3 for it. (Its 55 ms window may still catch a
  // millisecond of another process, above the 1 % warning: that is the warning's job.)
  EXPECT_EQ((o.out + o.err).find("starved of CPU"), std::string::npos) << o.out << o.err;
  EXPECT_TRUE(o.exit_code == 0 || o.exit_code == 1) << o.exit_code << o.err;
  EXPECT_LE(starvation["lost_fraction"].get<double>(), 0.10) << starvation;
}

}  // namespace
}  // namespace qb::e2e
