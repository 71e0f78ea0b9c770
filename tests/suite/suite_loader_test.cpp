#include "qb/suite/suite_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "load_error.hpp"
#include "qb/suite/compile.hpp"

namespace qb::suite {
namespace {

using gen::ArrivalSpec;
using gen::SizeSpec;
using policy::Transport;

constexpr std::string_view kIssueSuite = R"([suite]
name = "two groups"
seed = 1
repetitions = 3
warmup = "10ms"
duration = "100ms"
[driver]
name = "sim"
[port]
rate = "100Gbps"
transport = "rocev2"       # rocev2 | ib | eth
mtu = 4096
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "g1"
parent = "root"
bw_share = 7
[[sched.leaf]]
name = "g2"
parent = "root"
bw_share = 3
max_avg_bw = "4096Mbps"
[[flow]]
name = "g1-qp"
count = 4                  # four identical QPs, reported as g1-qp#0..#3 and as a group
leaf = "g1"
size = 4096
rate = "saturate"          # or "10Gbps", "2Mpps"; pattern = "cbr" | "poisson" | "onoff"
[[flow]]
name = "g2-qp"
count = 4
leaf = "g2"
size = 4096
rate = "saturate"
[gates]
max_share_error = 0.01     # worst per-flow |measured/expected - 1|
min_jain = 0.99            # Jain index over measured/expected
[[gates.latency]]
flow = "g1-qp"
p99 = "200us"
)";

Result<Suite> load(std::string_view text) {
  return load_suite_string(text, "t.toml");
}

// A one-flow suite with the given [port] body and flow size/rate lines.
std::string one_flow(std::string_view port, std::string_view flow_lines) {
  return std::string("[port]\n") + std::string(port) + "\n[[flow]]\nname = \"f\"\n" +
         std::string(flow_lines) + "\n";
}

using test_support::Expected;

void expect_error(std::string_view text, const Expected& expected) {
  test_support::expect_load_error(text, "t.toml", expected);
}

TEST(SuiteLoader, IssueFormLoadsWithEveryValue) {
  auto loaded = load(kIssueSuite);
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  const Suite& suite = *loaded;
  EXPECT_EQ(suite.name, "two groups");
  EXPECT_EQ(suite.file, "t.toml");
  EXPECT_EQ(suite.driver, "sim");
  EXPECT_EQ(suite.config_hash.size(), 16U);
  ASSERT_EQ(suite.scenarios.size(), 1U);
  const Scenario& s = suite.scenarios[0];
  EXPECT_EQ(s.name, "two groups");
  EXPECT_EQ(s.where, "");
  EXPECT_EQ(s.seed, 1U);
  EXPECT_EQ(s.repetitions, 3U);
  EXPECT_EQ(s.warmup_ns, 10'000'000);
  EXPECT_EQ(s.duration_ns, 100'000'000);
  EXPECT_EQ(s.bin_ns, 1'000'000);
  EXPECT_DOUBLE_EQ(s.port.rate_bps, 100e9);
  EXPECT_EQ(s.port.wire.transport, Transport::rocev2);
  EXPECT_EQ(s.port.wire.mtu_bytes, 4096U);
  EXPECT_EQ(s.port.propagation_delay_ns, 500);

  ASSERT_EQ(s.sched.size(), 3U);
  EXPECT_EQ(s.sched[0].name, "root");
  EXPECT_FALSE(s.sched[0].is_leaf);
  EXPECT_EQ(s.sched[0].parent, "");
  EXPECT_FALSE(s.sched[0].has_bw_share);
  EXPECT_FALSE(s.sched[0].has_max_avg_bw);
  EXPECT_EQ(s.sched[0].where, "sched.node[0]");
  EXPECT_EQ(s.sched[0].loc.line, 13U);
  EXPECT_EQ(s.sched[1].name, "g1");
  EXPECT_TRUE(s.sched[1].is_leaf);
  EXPECT_EQ(s.sched[1].parent, "root");
  EXPECT_EQ(s.sched[1].parent_loc.line, 17U);
  EXPECT_EQ(s.sched[1].parent_loc.column, 10U);
  EXPECT_TRUE(s.sched[1].has_bw_share);
  EXPECT_EQ(s.sched[1].bw_share, 7U);
  EXPECT_EQ(s.sched[1].bw_share_loc.line, 18U);
  EXPECT_EQ(s.sched[1].where, "sched.leaf[0]");
  EXPECT_EQ(s.sched[2].where, "sched.leaf[1]");
  EXPECT_EQ(s.sched[2].bw_share, 3U);
  EXPECT_TRUE(s.sched[2].has_max_avg_bw);
  EXPECT_DOUBLE_EQ(s.sched[2].max_avg_bw_bps, 4096e6);
  EXPECT_EQ(s.sched[2].max_avg_bw_loc.line, 23U);
  EXPECT_EQ(s.sched[2].max_avg_bw_loc.column, 14U);

  ASSERT_EQ(s.flows.size(), 2U);
  const FlowSpec& f = s.flows[0];
  EXPECT_EQ(f.name, "g1-qp");
  EXPECT_EQ(f.count, 4U);
  EXPECT_EQ(f.leaf, "g1");
  EXPECT_EQ(f.leaf_loc.line, 27U);
  EXPECT_EQ(f.op, policy::RdmaOp::write);
  EXPECT_EQ(f.size.kind, SizeSpec::Kind::fixed);
  EXPECT_EQ(f.size.fixed_bytes, 4096U);
  EXPECT_EQ(f.arrival.kind, ArrivalSpec::Kind::saturate);
  EXPECT_EQ(f.arrival.outstanding, 16U);
  EXPECT_EQ(f.where, "flow[0]");
  EXPECT_EQ(f.loc.line, 24U);
  EXPECT_EQ(s.flows[1].name, "g2-qp");
  EXPECT_EQ(s.flows[1].leaf, "g2");
  EXPECT_EQ(s.flows[1].where, "flow[1]");

  ASSERT_TRUE(s.gates.max_share_error.has_value());
  EXPECT_DOUBLE_EQ(*s.gates.max_share_error, 0.01);
  EXPECT_DOUBLE_EQ(s.gates.min_jain.value_or(0), 0.99);
  // Judged by default: the keys the suite leaves out hold the documented defaults.
  EXPECT_DOUBLE_EQ(s.gates.max_group_share_error.value_or(0), kDefaultMaxGroupShareError);
  EXPECT_DOUBLE_EQ(s.gates.max_cap_overshoot.value_or(0), kDefaultMaxCapOvershoot);
  EXPECT_TRUE(s.gates.written("max_share_error"));
  EXPECT_FALSE(s.gates.written("max_group_share_error"));
  EXPECT_TRUE(s.gates.off.empty());
  ASSERT_EQ(s.gates.latency.size(), 1U);
  const LatencyGate& gate = s.gates.latency[0];
  EXPECT_EQ(gate.flow, "g1-qp");
  EXPECT_EQ(gate.basis, LatencyGate::Basis::scheduled);
  EXPECT_EQ(gate.p99_ns.value_or(0), 200'000);
  EXPECT_FALSE(gate.p50_ns.has_value());
  EXPECT_EQ(gate.where, "gates.latency[0]");
  EXPECT_EQ(gate.flow_loc.line, 40U);
  EXPECT_EQ(gate.flow_loc.column, 8U);
}

TEST(SuiteLoader, IssueFormCompilesAndTreeErrorsUseTheLoaderLocations) {
  auto suite = load(kIssueSuite);
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  std::vector<Warning> warnings;
  auto compiled = compile_scenario(suite->scenarios[0], warnings);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  EXPECT_EQ(compiled->plan.flows.size(), 8U);  // 2 x count 4

  // Tree semantics are compile_sched_tree's; it reports with the key paths and locations
  // the loader filled in.
  std::string unknown_parent(kIssueSuite);
  unknown_parent.replace(unknown_parent.find("parent = \"root\"\nbw_share = 3"), 15,
                         "parent = \"rot\" ");
  auto bad = load(unknown_parent);
  ASSERT_TRUE(bad.ok()) << bad.error().to_string();
  auto error = compile_scenario(bad->scenarios[0], warnings);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().where, "sched.leaf[1].parent");
  EXPECT_EQ(error.error().loc.line, 21U);
  EXPECT_EQ(error.error().loc.column, 10U);
}

TEST(SuiteLoader, DefaultsForAMinimalSuite) {
  auto suite = load_suite_string("[[flow]]\nname = \"a\"\nsize = 64\nrate = \"1Gbps\"\n",
                                 "dir/my_suite.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  EXPECT_EQ(suite->name, "my_suite");  // the file stem
  EXPECT_EQ(suite->driver, "sim");
  ASSERT_EQ(suite->scenarios.size(), 1U);
  const Scenario& s = suite->scenarios[0];
  EXPECT_EQ(s.name, "my_suite");
  EXPECT_EQ(s.seed, 1U);
  EXPECT_EQ(s.repetitions, 1U);
  EXPECT_EQ(s.warmup_ns, 10'000'000);
  EXPECT_EQ(s.duration_ns, 100'000'000);
  EXPECT_TRUE(s.sched.empty());
  ASSERT_EQ(s.flows.size(), 1U);
  EXPECT_EQ(s.flows[0].count, 1U);
  EXPECT_TRUE(s.flows[0].leaf.empty());
  EXPECT_EQ(s.flows[0].leaf_loc.line, 0U);
  EXPECT_EQ(s.flows[0].arrival.kind, ArrivalSpec::Kind::cbr);
  EXPECT_DOUBLE_EQ(s.flows[0].arrival.rate_bps, 1e9);
  EXPECT_DOUBLE_EQ(s.flows[0].arrival.rate_pps, 0.0);
}

TEST(SuiteLoader, ConfigHashIsFnv1a64OfTheBytes) {
  // FNV-1a 64 of no bytes is the offset basis; an empty document is a valid (default) suite.
  auto suite = load("");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  EXPECT_EQ(suite->config_hash, "cbf29ce484222325");
}

TEST(SuiteLoader, ConfigHashOfAValidDocument) {
  // "#" alone is a valid TOML document (a comment); FNV-1a 64 by hand:
  // (0xcbf29ce484222325 ^ 0x23) * 0x100000001b3 mod 2^64 = 0xaf639e4c86018332.
  auto suite = load("#");
  ASSERT_TRUE(suite.ok());
  EXPECT_EQ(suite->config_hash, "af639e4c86018332");
}

TEST(SuiteLoader, PortForms) {
  auto eth =
      load(one_flow("rate = 25000000000\ntransport = \"eth\"\nvlan = true\n"
                    "propagation_delay = \"0s\"",
                    "size = 1522\nrate = \"1Gbps\""));
  ASSERT_TRUE(eth.ok()) << eth.error().to_string();
  const PortSpec& port = eth->scenarios[0].port;
  EXPECT_DOUBLE_EQ(port.rate_bps, 25e9);
  EXPECT_EQ(port.wire.transport, Transport::eth);
  EXPECT_EQ(port.wire.mtu_bytes, 1500U);  // the Ethernet default
  EXPECT_TRUE(port.wire.vlan);
  EXPECT_EQ(port.propagation_delay_ns, 0);

  auto ib =
      load("[port]\ntransport = \"ib\"\nmtu = 2048\ngrh = true\npropagation_delay = \"1us\"\n");
  ASSERT_TRUE(ib.ok()) << ib.error().to_string();
  EXPECT_EQ(ib->scenarios[0].port.wire.transport, Transport::ib);
  EXPECT_EQ(ib->scenarios[0].port.wire.mtu_bytes, 2048U);
  EXPECT_TRUE(ib->scenarios[0].port.wire.ib_grh);
  EXPECT_EQ(ib->scenarios[0].port.propagation_delay_ns, 1000);

  auto roce = load("[port]\nrate = \"400Gbit/s\"\nipv6 = true\nvlan = true\n");
  ASSERT_TRUE(roce.ok()) << roce.error().to_string();
  EXPECT_DOUBLE_EQ(roce->scenarios[0].port.rate_bps, 400e9);
  EXPECT_TRUE(roce->scenarios[0].port.wire.ipv6);
  EXPECT_TRUE(roce->scenarios[0].port.wire.vlan);
}

TEST(SuiteLoader, PortErrors) {
  expect_error("[port]\nrate = \"10Mpps\"\n", {"port.rate", 2, 8, "not a packet rate"});
  expect_error("[port]\nrate = 0\n", {"port.rate", 2, 8, "greater than zero"});
  expect_error("[port]\nrate = \"-5Gbps\"\n", {"port.rate", 2, 8, "greater than zero"});
  expect_error("[port]\nrate = \"0Gbps\"\n", {"port.rate", 2, 8, "greater than zero"});
  expect_error("[port]\nrate = \"100Gbs\"\n", {"port.rate", 2, 8, "unknown rate unit 'Gbs'"});
  expect_error("[port]\nrate = 1.5\n", {"port.rate", 2, 8, "got a float"});
  expect_error("[port]\ntransport = \"roce\"\n", {"port.transport", 2, 13, "unknown transport"});
  expect_error("[port]\nmtu = 1500\n", {"port.mtu", 2, 7, "one of 256, 512"});
  expect_error("[port]\ntransport = \"eth\"\nmtu = 9217\n", {"port.mtu", 3, 7, "68..9216"});
  expect_error("[port]\ntransport = \"eth\"\nmtu = 67\n", {"port.mtu", 3, 7, "68..9216"});
  expect_error("[port]\ntransport = \"ib\"\nvlan = true\n", {"port.vlan", 3, 8, "not ib"});
  expect_error("[port]\ntransport = \"eth\"\nipv6 = true\n", {"port.ipv6", 3, 8, "rocev2 only"});
  expect_error("[port]\ngrh = true\n", {"port.grh", 2, 7, "ib only"});
  expect_error("[port]\nvlan = \"yes\"\n", {"port.vlan", 2, 8, "expected a boolean"});
  expect_error("[port]\npropagation_delay = \"-1ns\"\n",
               {"port.propagation_delay", 2, 21, "must be in 0 ns..1.00 ms"});
  expect_error("port = 5\n", {"port", 1, 8, "expected a table, got an integer"});
}

TEST(SuiteLoader, PortRateAboveTheLargestDeviceRateIsRejected) {
  // 1e290 Gbit/s used to pass and then deliver nothing (run: exit 3).
  expect_error("[port]\nrate = \"1e290Gbps\"\n", {"port.rate", 2, 8, "the largest rate"});
  expect_error("[port]\nrate = \"4295Tbps\"\n", {"port.rate", 2, 8, "the largest rate"});
  EXPECT_TRUE(load("[port]\nrate = \"4294Tbps\"\n").ok());
  EXPECT_TRUE(load("[port]\nrate = \"800Gbps\"\n").ok());
}

TEST(SuiteLoader, ZeroCapAsAStringMeansUnlimitedLikeTheInteger) {
  auto suite = load("[[sched.leaf]]\nname = \"a\"\nmax_avg_bw = \"0Mbps\"\n");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const auto& leaf = suite->scenarios[0].sched[0];
  EXPECT_TRUE(leaf.has_max_avg_bw);
  EXPECT_DOUBLE_EQ(leaf.max_avg_bw_bps, 0.0);
  expect_error("[[sched.leaf]]\nname = \"a\"\nmax_avg_bw = \"-1Mbps\"\n",
               {"sched.leaf[0].max_avg_bw", 3, 14, "zero or greater"});
}

TEST(SuiteLoader, KeysAndNestingTooDeepForTheParserAreRejectedBeforeIt) {
  // 50,000 parts used to overflow the parser's stack (SIGSEGV).
  std::string key = "a";
  for (int i = 0; i < 50'000; ++i) key += ".a";
  expect_error("[suite]\nname = \"x\"\n" + key + " = 1\n", {"", 3, 512, "dotted parts"});
  expect_error("[" + key + "]\n", {"", 1, 513, "dotted parts"});
  expect_error("x = " + std::string(50'000, '[') + "\n", {"", 1, 261, "nest deeper"});
  expect_error("x = " + std::string(50'000, '{') + "\n", {"", 1, 261, "nest deeper"});
  // Dots inside strings, comments and float values are no key parts.
  const std::string dots(1000, '.');
  auto fine = load("[suite]\nname = \"" + dots + "\" # " + dots + "\ndescription = '''" + dots +
                   "'''\n[gates]\nmax_share_error = 0.01\n");
  EXPECT_TRUE(fine.ok()) << fine.error().to_string();
}

TEST(SuiteLoader, MalformedTomlUsesTheParserLocation) {
  auto suite = load("[suite]\nname = \"x\"\nseed = = 3\n");
  ASSERT_FALSE(suite.ok());
  EXPECT_EQ(suite.error().code, Errc::invalid_config);
  EXPECT_EQ(suite.error().where, "");
  EXPECT_EQ(suite.error().loc.file, "t.toml");
  EXPECT_EQ(suite.error().loc.line, 3U);
  EXPECT_GT(suite.error().loc.column, 0U);
  EXPECT_EQ(suite.error().to_string().rfind("t.toml:3:", 0), 0U) << suite.error().to_string();

  auto duplicate = load("[port]\nmtu = 1024\nmtu = 2048\n");
  ASSERT_FALSE(duplicate.ok());
  EXPECT_EQ(duplicate.error().loc.line, 3U);
}

TEST(SuiteLoader, UnknownKeysSuggestTheCloseOne) {
  expect_error("[[sched.leaf]]\nname = \"a\"\nbw-share = 3\n",
               {"sched.leaf[0].bw-share", 3, 1, "did you mean 'bw_share'?"});
  expect_error("[suite]\nname = \"x\"\n  duraton = \"1s\"\n",
               {"suite.duraton", 3, 3, "unknown key 'duraton'; did you mean 'duration'?"});
  // Nothing close: the message lists what is known.
  expect_error("[gates]\nfoo = 1\n", {"gates.foo", 2, 1, "known keys: max_share_error"});
  expect_error("[sweep]\n", {"sweep", 1, 2, "unknown key 'sweep'"});
  // The first unknown key in document order, not in the table's sorted order.
  expect_error("[port]\nzz = 1\naa = 2\n", {"port.zz", 2, 1, "unknown key 'zz'"});
}

// [driver.<name>] tables are kept as written, located, for their drivers to parse
// (tests/drivers/driver_options_test.cpp and each driver's own tests check the keys).
TEST(SuiteLoader, DriverTablesAreKeptForTheirDrivers) {
  auto loaded = load(
      "[driver]\nname = \"dpdk\"\n[driver.dpdk]\neal = [\"--no-huge\", \"-m\", \"512\"]\n"
      "tx_port = \"net_ring0\"\n[driver.other]\n"
      "[[flow]]\nname = \"f\"\nsize = 64\nrate = \"saturate\"\n");
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->driver, "dpdk");
  ASSERT_EQ(loaded->driver_tables.size(), 2u);
  const ConfigTable dpdk = driver_table(*loaded, "dpdk");
  EXPECT_EQ(dpdk.path(), "driver.dpdk");
  EXPECT_EQ(dpdk.loc().line, 3u);
  EXPECT_EQ(dpdk.string_list("eal"), (std::vector<std::string>{"--no-huge", "-m", "512"}));
  EXPECT_EQ(dpdk.string("tx_port"), "net_ring0");
  EXPECT_TRUE(driver_table(*loaded, "none").empty());
  expect_error("[driver]\ndpdk = 3\n",
               {"driver.dpdk", 2, 8, "expected a table of the dpdk driver's options"});
}

TEST(SuiteLoader, WrongTypesSayWhatWasExpected) {
  expect_error("[suite]\nname = 5\n", {"suite.name", 2, 8, "expected a string, got an integer"});
  expect_error("[suite]\nrepetitions = \"3\"\n",
               {"suite.repetitions", 2, 15, "expected an integer, got a string"});
  expect_error("[suite]\nduration = 100\n",
               {"suite.duration", 2, 12, "expected a string (a duration"});
  expect_error("[gates]\nmin_jain = \"high\"\n",
               {"gates.min_jain", 2, 12, "expected a number, got a string"});
  expect_error("flow = 3\n", {"flow", 1, 8, "expected an array of tables ([[flow]])"});
  expect_error("flow = [1]\n", {"flow[0]", 1, 9, "expected a table, got an integer"});
  expect_error("[sched]\nleaf = \"a\"\n", {"sched.leaf", 2, 8, "([[sched.leaf]])"});
}

TEST(SuiteLoader, SuiteSettingErrors) {
  expect_error("[suite]\nduration = \"0s\"\n", {"suite.duration", 2, 12, "greater than zero"});
  expect_error("[suite]\nduration = \"10parsecs\"\n",
               {"suite.duration", 2, 12, "unknown duration"});
  expect_error("[suite]\nrepetitions = 0\n", {"suite.repetitions", 2, 15, "1..1000"});
  expect_error("[suite]\nrepetitions = 1001\n", {"suite.repetitions", 2, 15, "1..1000"});
  expect_error("[suite]\nseed = -1\n", {"suite.seed", 2, 8, "at least 0"});
  expect_error("[suite]\nname = \"\"\n", {"suite.name", 2, 8, "must not be empty"});
  expect_error("[suite]\nduration = \"5ms\"\nbin = \"10ms\"\n",
               {"suite.bin", 3, 7, "must not be longer than duration"});
  expect_error("[suite]\nbin = \"0ms\"\n", {"suite.bin", 2, 7, "greater than zero"});

  auto zero_warmup = load("[suite]\nwarmup = \"0s\"\nduration = \"500us\"\n");
  ASSERT_TRUE(zero_warmup.ok()) << zero_warmup.error().to_string();
  EXPECT_EQ(zero_warmup->scenarios[0].warmup_ns, 0);
  EXPECT_EQ(zero_warmup->scenarios[0].bin_ns, 500'000);  // default bin shrinks to the duration

  auto bin = load("[suite]\nbin = \"250us\"\nseed = 42\ndescription = \"d\"\n");
  ASSERT_TRUE(bin.ok()) << bin.error().to_string();
  EXPECT_EQ(bin->scenarios[0].bin_ns, 250'000);
  EXPECT_EQ(bin->scenarios[0].seed, 42U);
  EXPECT_EQ(bin->description, "d");
}

TEST(SuiteLoader, SchedElements) {
  // Nodes and leaves interleaved in the file keep document order; max_avg_bw as an integer is
  // Mbit/s; 0 is written (unlimited) and flagged as written.
  auto suite = load(R"([[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "mid"
max_avg_bw = 0
[[sched.node]]
name = "mid"
parent = "root"
bw_share = 4294967295
max_avg_bw = 2500
)");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const auto& sched = suite->scenarios[0].sched;
  ASSERT_EQ(sched.size(), 3U);
  EXPECT_EQ(sched[0].where, "sched.node[0]");
  EXPECT_EQ(sched[1].where, "sched.leaf[0]");
  EXPECT_EQ(sched[1].loc.line, 3U);
  EXPECT_TRUE(sched[1].has_max_avg_bw);
  EXPECT_DOUBLE_EQ(sched[1].max_avg_bw_bps, 0.0);
  EXPECT_EQ(sched[2].where, "sched.node[1]");
  EXPECT_EQ(sched[2].bw_share, 4294967295U);
  EXPECT_DOUBLE_EQ(sched[2].max_avg_bw_bps, 2500e6);
  EXPECT_EQ(sched[2].bw_share_loc.line, 10U);
  EXPECT_EQ(sched[2].bw_share_loc.column, 12U);

  expect_error("[[sched.leaf]]\nname = \"a\"\nbw_share = -1\n",
               {"sched.leaf[0].bw_share", 3, 12, "0..4294967295"});
  expect_error("[[sched.leaf]]\nname = \"a\"\nbw_share = 4294967296\n",
               {"sched.leaf[0].bw_share", 3, 12, "0..4294967295"});
  expect_error("[[sched.leaf]]\nname = \"a\"\nmax_avg_bw = -3\n",
               {"sched.leaf[0].max_avg_bw", 3, 14, "Mbit/s"});
  expect_error("[[sched.leaf]]\nname = \"a\"\nmax_avg_bw = \"1Mpps\"\n",
               {"sched.leaf[0].max_avg_bw", 3, 14, "not a packet rate"});
  expect_error("[[sched.node]]\nname = \"r\"\n[[sched.leaf]]\nparent = \"r\"\n",
               {"sched.leaf[0].name", 3, 1, "missing required key 'name'"});
  expect_error("[[sched.leaf]]\nname = \"a\"\nparent = \"\"\n",
               {"sched.leaf[0].parent", 3, 10, "must not be empty"});
}

TEST(SuiteLoader, SizesInEveryForm) {
  auto size_of = [](std::string_view port, std::string_view size) {
    auto suite = load(one_flow(port, std::string("rate = \"1Gbps\"\nsize = ") + std::string(size)));
    EXPECT_TRUE(suite.ok()) << size << ": " << suite.error().to_string();
    return suite.ok() ? suite->scenarios[0].flows[0].size : SizeSpec{};
  };
  EXPECT_EQ(size_of("", "1").fixed_bytes, 1U);
  EXPECT_EQ(size_of("", "\"4KiB\"").fixed_bytes, 4096U);
  EXPECT_EQ(size_of("", "\"2GiB\"").fixed_bytes, 2147483648U);  // the RDMA maximum

  const SizeSpec imix = size_of("transport = \"eth\"", "\"imix\"");
  EXPECT_EQ(imix.kind, SizeSpec::Kind::imix);
  ASSERT_EQ(imix.table.size(), 3U);
  EXPECT_EQ(imix.table[0].size_bytes, 64U);
  EXPECT_EQ(imix.table[0].weight, 7U);
  EXPECT_EQ(imix.table[2].size_bytes, 1518U);

  const SizeSpec uniform = size_of("", "{ uniform = [64, \"1KiB\"] }");
  EXPECT_EQ(uniform.kind, SizeSpec::Kind::uniform);
  EXPECT_EQ(uniform.min_bytes, 64U);
  EXPECT_EQ(uniform.max_bytes, 1024U);

  const SizeSpec custom_imix = size_of("", "{ imix = [[64,7],[594,4],[1518,1]] }");
  EXPECT_EQ(custom_imix.kind, SizeSpec::Kind::imix);
  ASSERT_EQ(custom_imix.table.size(), 3U);
  EXPECT_EQ(custom_imix.table[1].size_bytes, 594U);
  EXPECT_EQ(custom_imix.table[1].weight, 4U);

  const SizeSpec weighted = size_of("", "{ weighted = [[64,1],[1500,3]] }");
  EXPECT_EQ(weighted.kind, SizeSpec::Kind::weighted);
  ASSERT_EQ(weighted.table.size(), 2U);
  EXPECT_EQ(weighted.table[1].size_bytes, 1500U);
  EXPECT_EQ(weighted.table[1].weight, 3U);
  EXPECT_DOUBLE_EQ(weighted.mean_bytes(), (64.0 + 3 * 1500.0) / 4);

  // Largest Ethernet frames: mtu + 18, + 4 with a VLAN tag.
  EXPECT_EQ(size_of("transport = \"eth\"\nmtu = 9000", "9018").fixed_bytes, 9018U);
  EXPECT_EQ(size_of("transport = \"eth\"\nvlan = true", "1522").fixed_bytes, 1522U);
}

TEST(SuiteLoader, SizeErrors) {
  const std::string eth = "transport = \"eth\"\nmtu = 1500";
  // [port] on line 1, two port lines, [[flow]] on 4, name on 5, size on 6.
  auto sized = [&](std::string_view size) {
    return one_flow(eth, std::string("size = ") + std::string(size) + "\nrate = \"1Gbps\"");
  };
  expect_error(sized("1519"),
               {"flow[0].size", 6, 8, "larger than the largest frame for eth mtu 1500"});
  expect_error(sized("63"), {"flow[0].size", 6, 8, "64-byte minimum"});
  expect_error(sized("\"4KiB\""), {"flow[0].size", 6, 8, "largest frame"});
  expect_error(sized("{ uniform = [64, 2000] }"),
               {"flow[0].size.uniform[1]", 6, 25, "largest frame"});
  expect_error(sized("{ weighted = [[64,1],[9000,1]] }"),
               {"flow[0].size.weighted[1][0]", 6, 30, "largest frame"});
  expect_error(one_flow("transport = \"eth\"\nmtu = 1000", "size = \"imix\"\nrate = \"1Gbps\""),
               {"flow[0].size", 6, 8, "imix: size 1518 B"});
  expect_error(one_flow("", "size = \"3GiB\"\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "rocev2 message range 1..2147483648"});
  expect_error(one_flow("", "size = 0\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "at least 1 byte"});
  expect_error(one_flow("", "size = \"1.5B\"\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "whole number"});
  expect_error(one_flow("", "size = \"4Kb\"\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "unknown size unit"});
  expect_error(one_flow("", "size = \"mix\"\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "not a size"});
  expect_error(one_flow("", "size = { uniform = [1500, 64] }\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "min 1500 B > max 64 B"});
  expect_error(one_flow("", "size = { uniform = [64] }\nrate = \"1Gbps\""),
               {"flow[0].size.uniform", 5, 20, "[min, max]"});
  expect_error(one_flow("", "size = { weighted = [[64,0]] }\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "zero weights"});
  expect_error(one_flow("", "size = { weighted = [] }\nrate = \"1Gbps\""),
               {"flow[0].size.weighted", 5, 21, "empty"});
  expect_error(one_flow("", "size = { weighted = [[64,1,2]] }\nrate = \"1Gbps\""),
               {"flow[0].size.weighted[0]", 5, 22, "got 3 elements"});
  expect_error(one_flow("", "size = { weighted = [[64,-1]] }\nrate = \"1Gbps\""),
               {"flow[0].size.weighted[0][1]", 5, 26, "weight must be in 0.."});
  expect_error(one_flow("", "size = { uniform = [64, 128], imix = [[64,1]] }\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "exactly one of"});
  expect_error(one_flow("", "size = { fixed = 64 }\nrate = \"1Gbps\""),
               {"flow[0].size.fixed", 5, 10, "unknown key 'fixed'"});
  expect_error(one_flow("", "size = true\nrate = \"1Gbps\""),
               {"flow[0].size", 5, 8, "expected an integer (bytes) or a size string"});
  expect_error(one_flow("", "rate = \"1Gbps\""),
               {"flow[0].size", 3, 1, "missing required key 'size'"});
}

TEST(SuiteLoader, RatesAndPatternsInEveryForm) {
  auto arrival_of = [](std::string_view lines) {
    auto suite = load(one_flow("", std::string("size = 1000\n") + std::string(lines)));
    EXPECT_TRUE(suite.ok()) << lines << ": " << suite.error().to_string();
    return suite.ok() ? suite->scenarios[0].flows[0].arrival : ArrivalSpec{};
  };
  const ArrivalSpec saturate = arrival_of("rate = \"saturate\"\noutstanding = 4096");
  EXPECT_EQ(saturate.kind, ArrivalSpec::Kind::saturate);
  EXPECT_EQ(saturate.outstanding, 4096U);

  const ArrivalSpec cbr = arrival_of("rate = \"10Gbps\"");
  EXPECT_EQ(cbr.kind, ArrivalSpec::Kind::cbr);
  EXPECT_DOUBLE_EQ(cbr.rate_bps, 10e9);

  const ArrivalSpec pps = arrival_of("rate = \"2Mpps\"\npattern = \"poisson\"");
  EXPECT_EQ(pps.kind, ArrivalSpec::Kind::poisson);
  EXPECT_DOUBLE_EQ(pps.rate_pps, 2e6);
  EXPECT_DOUBLE_EQ(pps.rate_bps, 0.0);

  const ArrivalSpec onoff =
      arrival_of("rate = \"1Gbps\"\npattern = \"onoff\"\non = \"2ms\"\noff = \"3ms\"");
  EXPECT_EQ(onoff.kind, ArrivalSpec::Kind::onoff);
  EXPECT_EQ(onoff.on_ns, 2'000'000);
  EXPECT_EQ(onoff.off_ns, 3'000'000);

  const ArrivalSpec explicit_cbr =
      arrival_of("rate = \"1500kpps\"\npattern = \"cbr\"\nop = \"send\"");
  EXPECT_EQ(explicit_cbr.kind, ArrivalSpec::Kind::cbr);
  EXPECT_DOUBLE_EQ(explicit_cbr.rate_pps, 1.5e6);
}

TEST(SuiteLoader, FlowErrors) {
  // one_flow("", ...): [port] on line 1, [[flow]] on 3, name on 4, the given lines from 5.
  auto flow = [](std::string_view lines) { return one_flow("", lines); };
  expect_error(flow("size = 64\nrate = \"saturate\"\npattern = \"cbr\""),
               {"flow[0].pattern", 7, 11, "pattern applies to a numeric rate"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\noutstanding = 4"),
               {"flow[0].outstanding", 7, 15, "only to rate = \"saturate\""});
  expect_error(flow("size = 64\nrate = \"saturate\"\noutstanding = 0"),
               {"flow[0].outstanding", 7, 15, "1..4096"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\npattern = \"onoff\"\non = \"1ms\""),
               {"flow[0].off", 3, 1, "missing required key 'off'"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\non = \"1ms\""),
               {"flow[0].on", 7, 6, "only to pattern = \"onoff\""});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\npattern = \"burst\""),
               {"flow[0].pattern", 7, 11, "unknown pattern 'burst'"});
  expect_error(flow("size = 64\nrate = \"0Gbps\""), {"flow[0].rate", 6, 8, "greater than zero"});
  expect_error(flow("size = 64\nrate = \"-2Mpps\""), {"flow[0].rate", 6, 8, "greater than zero"});
  expect_error(flow("size = 64\nrate = \"fast\""), {"flow[0].rate", 6, 8, "or \"saturate\""});
  expect_error(flow("size = 64\nrate = 1000"), {"flow[0].rate", 6, 8, "expected a string"});
  expect_error(flow("size = 64"), {"flow[0].rate", 3, 1, "missing required key 'rate'"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\ncount = 0"), {"flow[0].count", 7, 9, "1..65536"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\ncount = 65537"),
               {"flow[0].count", 7, 9, "1..65536"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\nop = \"atomic\""),
               {"flow[0].op", 7, 6, "unknown op"});
  expect_error(flow("size = 64\nrate = \"1Gbps\"\nleaf = 3"),
               {"flow[0].leaf", 7, 8, "expected a string"});

  expect_error("[[flow]]\nname = \"a#1\"\n", {"flow[0].name", 2, 8, "must not contain '#'"});
  expect_error("[[flow]]\nsize = 64\n", {"flow[0].name", 1, 1, "missing required key 'name'"});
  expect_error(
      "[[flow]]\nname = \"a\"\nsize = 64\nrate = \"1Gbps\"\n"
      "[[flow]]\nname = \"b\"\nsize = 64\nrate = \"1Gbps\"\n"
      "[[flow]]\n  name = \"a\"\nsize = 64\nrate = \"1Gbps\"\n",
      {"flow[2].name", 10, 10, "duplicate flow name 'a' (first used by flow[0] at line 1)"});
}

// Every run judges shares, fairness and caps (and convergence where flows join): a suite turns
// a judgement off only by saying "off", and the verdict lists it as not judged.
TEST(SuiteLoader, GatesAreJudgedByDefaultAndOffOnlyWhenSaid) {
  auto plain = load("[[flow]]\nname = \"a\"\nsize = 4096\nrate = \"saturate\"\n");
  ASSERT_TRUE(plain.ok()) << plain.error().to_string();
  const GateSpec& defaults = plain->scenarios[0].gates;
  EXPECT_DOUBLE_EQ(defaults.max_share_error.value_or(0), kDefaultMaxShareError);
  EXPECT_DOUBLE_EQ(defaults.max_group_share_error.value_or(0), kDefaultMaxGroupShareError);
  EXPECT_DOUBLE_EQ(defaults.min_jain.value_or(0), kDefaultMinJain);
  EXPECT_DOUBLE_EQ(defaults.max_cap_overshoot.value_or(0), kDefaultMaxCapOvershoot);
  EXPECT_EQ(defaults.convergence_time_ns.value_or(0), kSettleWithinEpoch);
  EXPECT_TRUE(defaults.from_suite.empty());

  auto off = load(R"([gates]
max_group_share_error = "off"
min_jain = "off"
convergence_time = "off"
max_cap_overshoot = "2%"
)");
  ASSERT_TRUE(off.ok()) << off.error().to_string();
  const GateSpec& gates = off->scenarios[0].gates;
  EXPECT_FALSE(gates.max_group_share_error.has_value());
  EXPECT_FALSE(gates.min_jain.has_value());
  EXPECT_FALSE(gates.convergence_time_ns.has_value());
  EXPECT_EQ(gates.off,
            (std::vector<std::string>{"max_group_share_error", "min_jain", "convergence_time"}));
  EXPECT_TRUE(gates.turned_off("min_jain"));
  EXPECT_FALSE(gates.turned_off("max_share_error"));
  EXPECT_DOUBLE_EQ(gates.max_share_error.value_or(0), kDefaultMaxShareError);
  EXPECT_DOUBLE_EQ(gates.max_cap_overshoot.value_or(0), 0.02);
  EXPECT_EQ(gates.from_suite, (std::vector<std::string>{"max_cap_overshoot"}));
  // "Off" is the word; anything else is a value to parse.
  expect_error("[gates]\nmin_jain = \"Off\"\n", {"gates.min_jain", 2, 12, "expected a number"});
}

TEST(SuiteLoader, Gates) {
  auto suite = load(R"([gates]
max_share_error = 0.001
max_group_share_error = 0.05
min_jain = 1
max_cap_overshoot = 0.02
[[gates.latency]]
flow = "a#0"
basis = "sent"
p50 = "1us"
p90 = "2us"
p999 = "3ms"
max = "1s"
)");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const GateSpec& gates = suite->scenarios[0].gates;
  EXPECT_DOUBLE_EQ(gates.max_share_error.value_or(-1), 0.001);
  EXPECT_DOUBLE_EQ(gates.max_group_share_error.value_or(-1), 0.05);
  EXPECT_DOUBLE_EQ(gates.min_jain.value_or(-1), 1.0);
  EXPECT_DOUBLE_EQ(gates.max_cap_overshoot.value_or(-1), 0.02);
  ASSERT_EQ(gates.latency.size(), 1U);
  EXPECT_EQ(gates.latency[0].basis, LatencyGate::Basis::sent);
  EXPECT_EQ(gates.latency[0].p50_ns.value_or(0), 1000);
  EXPECT_EQ(gates.latency[0].p90_ns.value_or(0), 2000);
  EXPECT_FALSE(gates.latency[0].p99_ns.has_value());
  EXPECT_EQ(gates.latency[0].p999_ns.value_or(0), 3'000'000);
  EXPECT_EQ(gates.latency[0].max_ns.value_or(0), 1'000'000'000);

  expect_error("[gates]\nmin_jain = 1.5\n", {"gates.min_jain", 2, 12, "0..1"});
  expect_error("[gates]\nmax_share_error = -0.1\n", {"gates.max_share_error", 2, 19, "at least 0"});
  expect_error("[gates]\nmax_share_error = nan\n", {"gates.max_share_error", 2, 19, "finite"});
  // A limit of 0 passes nothing measured: "off" says what was meant.
  expect_error("[gates]\nmax_share_error = \"0%\"\n",
               {"gates.max_share_error", 2, 19, "must be above 0%"});
  expect_error("[gates]\nconvergence_tolerance = \"0%\"\n",
               {"gates.convergence_tolerance", 2, 25, "must be above 0%"});
  expect_error("[gates]\nmin_jain = 0\n", {"gates.min_jain", 2, 12, "above 0"});
  expect_error("[gates]\nmax_queue_depth = \"off\"\n",
               {"gates.max_queue_depth", 2, 19, "no default judgement to turn off"});
  expect_error("[gates]\nmax_share_eror = \"off\"\n", {"gates.max_share_eror", 2, 1, "did you mean 'max_share_error'"});
  expect_error("[[gates.latency]]\nflow = \"a\"\n",
               {"gates.latency[0]", 1, 1, "at least one of p50, p90, p99, p999, max"});
  expect_error("[[gates.latency]]\np99 = \"1us\"\n",
               {"gates.latency[0].flow", 1, 1, "missing required key 'flow'"});
  expect_error("[[gates.latency]]\nflow = \"a\"\np99 = \"0us\"\n",
               {"gates.latency[0].p99", 3, 7, "greater than zero"});
  expect_error("[[gates.latency]]\nflow = \"a\"\np99 = \"1us\"\nbasis = \"now\"\n",
               {"gates.latency[0].basis", 4, 9, "unknown basis"});
}

constexpr std::string_view kMultiScenario = R"([suite]
name = "multi"
seed = 7
duration = "50ms"
[port]
rate = "25Gbps"
[[flow]]
name = "a"
size = 4096
rate = "saturate"
[gates]
min_jain = 0.9
[[scenario]]
name = "inherit"
[[scenario]]
name = "eth"
seed = 9
repetitions = 2
duration = "20ms"
bin = "2ms"
[scenario.port]
transport = "eth"
[[scenario.flow]]
name = "b"
size = "imix"
rate = "10Gbps"
[[scenario.flow]]
name = "c"
size = 64
rate = "1Mpps"
[scenario.gates]
max_share_error = 0.02
)";

TEST(SuiteLoader, MultiScenarioInheritsWhatItDoesNotSet) {
  auto loaded = load(kMultiScenario);
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  ASSERT_EQ(loaded->scenarios.size(), 2U);
  const Scenario& inherit = loaded->scenarios[0];
  EXPECT_EQ(inherit.name, "inherit");
  EXPECT_EQ(inherit.where, "scenario[0]");
  EXPECT_EQ(inherit.loc.line, 13U);
  EXPECT_EQ(inherit.seed, 7U);
  EXPECT_EQ(inherit.repetitions, 1U);
  EXPECT_EQ(inherit.duration_ns, 50'000'000);
  EXPECT_DOUBLE_EQ(inherit.port.rate_bps, 25e9);
  ASSERT_EQ(inherit.flows.size(), 1U);
  EXPECT_EQ(inherit.flows[0].name, "a");
  EXPECT_EQ(inherit.flows[0].where, "flow[0]");  // the key path where it is written
  EXPECT_DOUBLE_EQ(inherit.gates.min_jain.value_or(0), 0.9);

  const Scenario& eth = loaded->scenarios[1];
  EXPECT_EQ(eth.name, "eth");
  EXPECT_EQ(eth.seed, 9U);
  EXPECT_EQ(eth.repetitions, 2U);
  EXPECT_EQ(eth.duration_ns, 20'000'000);
  EXPECT_EQ(eth.bin_ns, 2'000'000);
  EXPECT_EQ(eth.warmup_ns, 10'000'000);
  // A section the scenario sets replaces the top-level one as a whole (rate back to default).
  EXPECT_EQ(eth.port.wire.transport, Transport::eth);
  EXPECT_DOUBLE_EQ(eth.port.rate_bps, 100e9);
  ASSERT_EQ(eth.flows.size(), 2U);
  EXPECT_EQ(eth.flows[0].where, "scenario[1].flow[0]");
  EXPECT_EQ(eth.flows[1].arrival.rate_pps, 1e6);
  // The scenario's own [gates] replaces the top level's: min_jain is back to its default.
  EXPECT_DOUBLE_EQ(eth.gates.min_jain.value_or(0), kDefaultMinJain);
  EXPECT_DOUBLE_EQ(eth.gates.max_share_error.value_or(0), 0.02);
}

TEST(SuiteLoader, MultiScenarioErrors) {
  std::string text(kMultiScenario);
  // Errors inside a scenario carry its key path.
  std::string bad_rate = text;
  bad_rate.replace(bad_rate.find("rate = \"1Mpps\""), 14, "rate = \"1Mbs\"");
  expect_error(bad_rate, {"scenario[1].flow[1].rate", 30, 8, "unknown rate unit"});

  // An inherited flow too big for a scenario's port: the top-level key, naming the scenario.
  expect_error(text + "[[scenario]]\nname = \"small\"\n[scenario.port]\ntransport = \"eth\"\n",
               {"flow[0].size", 9, 8, "(in scenario 'small')"});

  expect_error(text + "[[scenario]]\nname = \"eth\"\n",
               {"scenario[2].name", 34, 8, "duplicate scenario name 'eth'"});
  expect_error(text + "[[scenario]]\nseed = 1\n",
               {"scenario[2].name", 33, 1, "missing required key 'name'"});
  expect_error(text + "[[scenario]]\nname = \"x\"\ndriver = \"sim\"\n",
               {"scenario[2].driver", 35, 1, "unknown key 'driver'"});
  expect_error(text + "[[scenario]]\nname = \"x\"\nbin = \"60ms\"\n",
               {"scenario[2].bin", 35, 7, "must not be longer than duration"});
  expect_error("scenario = []\n", {"scenario", 1, 12, "at least one"});
}

TEST(SuiteLoader, ErrorToStringHasFileLineColumnAndKeyPath) {
  auto suite = load("[[flow]]\nname = \"a\"\nsize = 64\nrate = \"0bps\"\n");
  ASSERT_FALSE(suite.ok());
  EXPECT_EQ(suite.error().to_string(),
            "t.toml:4:8: error: flow[0].rate: rate '0bps' must be greater than zero (or "
            "\"saturate\")");
}

TEST(SuiteLoader, UnreadableFileIsAnIoError) {
  auto missing = load_suite_file("/nonexistent/dir/suite.toml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, Errc::usage);
  EXPECT_NE(missing.error().message.find("/nonexistent/dir/suite.toml"), std::string::npos);
  EXPECT_NE(missing.error().message.find("No such file or directory"), std::string::npos);

  auto directory = load_suite_file("/");
  ASSERT_FALSE(directory.ok());
  EXPECT_EQ(directory.error().code, Errc::usage);
  EXPECT_NE(directory.error().message.find("Is a directory"), std::string::npos)
      << directory.error().message;
}

TEST(SuiteLoader, FuzzSeedCorpusLoadsAsNamed) {
  // tests/fuzz/corpus: bad_* files are invalid suites, the others (but regress_*) are valid.
  const std::filesystem::path corpus = std::filesystem::path(QB_SOURCE_DIR) / "tests/fuzz/corpus";
  int valid = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("regress_", 0) == 0) continue;
    auto suite = load_suite_file(entry.path().string());
    if (name.rfind("bad_", 0) == 0) {
      ASSERT_FALSE(suite.ok()) << name;
      EXPECT_EQ(suite.error().code, Errc::invalid_config) << name;
      EXPECT_EQ(suite.error().loc.file, entry.path().string()) << name;
    } else {
      EXPECT_TRUE(suite.ok()) << name << ": " << suite.error().to_string();
      ++valid;
    }
  }
  EXPECT_GE(valid, 4);
}

TEST(SuiteLoader, NonAsciiWhereTomlPlusPlusChecksWhitespace) {
  // TOML++ 3.3 hits TOML_UNREACHABLE for U+00A1..U+0499 in its whitespace check (found by the
  // fuzzer; upstream marzer/tomlplusplus#190). These must still load or fail cleanly.
  expect_error("[gates]\nmin_jain = 0.\"\xD0\x94\"\n", {"", 2, 14, "expected decimal digit"});
  expect_error("[suite]\nseed = 1 \xC3\xA9\n", {"", 2, 10, "saw '\xC3\xA9'"});
  auto string = load("[suite]\ndescription = \"\"\"\\\n\xC2\xA7 x\"\"\"\n");
  ASSERT_TRUE(string.ok()) << string.error().to_string();
  EXPECT_EQ(string->description, "\xC2\xA7 x");
}

TEST(SuiteLoader, NeverCrashesOnTruncatedOrMangledInput) {
  // Every prefix of the issue suite, and every single-byte mutation of a short suite, either
  // loads or fails with an invalid_config error that has a location.
  const std::string issue(kIssueSuite);
  for (size_t length = 0; length <= issue.size(); ++length) {
    auto suite = load(std::string_view(issue).substr(0, length));
    if (!suite.ok()) {
      ASSERT_EQ(suite.error().code, Errc::invalid_config) << length;
      ASSERT_NE(suite.error().loc.line, 0U) << length << ": " << suite.error().to_string();
    }
  }
  const std::string small = "[[flow]]\nname=\"a\"\nsize={uniform=[64,128]}\nrate=\"1Gbps\"\n";
  for (size_t i = 0; i < small.size(); ++i) {
    for (const char c : std::string("\0\"[]{}=,.#\n-9x\xC3\xA9", 16)) {
      std::string mutated = small;
      mutated[i] = c;
      auto suite = load(mutated);
      if (!suite.ok()) {
        ASSERT_EQ(suite.error().code, Errc::invalid_config) << mutated;
      }
    }
  }
}

}  // namespace
}  // namespace qb::suite
