// The verbs driver against the fake ConnectX: the exact mlx5dv calls for the shipped trees, SL
// and traffic class per flow, the teardown order, every control-path call failing in turn
// (nothing left allocated), the refusals a user can act on, and the simulated timing against
// the oracle.
#include "verbs_driver.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fake_mlx5.hpp"
#include "loaded_suite.hpp"
#include "qb/drivers/registry.hpp"
#include "qb/engine/measure.hpp"
#include "qb/engine/run.hpp"
#include "qb/judge/judge.hpp"
#include "qb/judge/run_metadata.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::drv::verbs {
namespace {

Topology topology_of(const suite::CompiledScenario& compiled, uint32_t workers = 1) {
  Topology topology;
  topology.port_rate_bps = compiled.scenario->port.rate_bps;
  topology.wire = compiled.scenario->port.wire;
  topology.propagation_delay_ns = compiled.scenario->port.propagation_delay_ns;
  topology.flow_count = static_cast<uint32_t>(compiled.plan.flows.size());
  topology.workers = workers;
  topology.max_message_bytes = 4096;
  return topology;
}

FakeDeviceConfig device_for(const suite::CompiledScenario& compiled) {
  const suite::PortSpec& port = compiled.scenario->port;
  FakeDeviceConfig config =
      fake_device_for_port(port.rate_bps, port.wire, port.propagation_delay_ns);
  return config;
}

// The verbs driver on a fake ConnectX for `compiled`, opened and applied (the test closes it).
struct OnFake {
  std::unique_ptr<FakeMlx5> fake;
  std::unique_ptr<Driver> driver;
};
OnFake applied_on_fake(const suite::CompiledScenario& compiled, VerbsConfig config = {}) {
  OnFake on{std::make_unique<FakeMlx5>(device_for(compiled)), nullptr};
  on.driver = make_verbs_driver(std::move(config), on.fake.get());
  const Status opened = on.driver->open(topology_of(compiled));
  EXPECT_TRUE(opened.ok()) << opened.error().to_string();
  const Status applied = opened ? on.driver->apply(compiled.plan) : opened;
  EXPECT_TRUE(applied.ok()) << applied.error().to_string();
  return on;
}

std::vector<std::string> calls_starting(const FakeMlx5& fake, std::string_view prefix) {
  std::vector<std::string> out;
  for (const auto& call : fake.calls()) {
    if (call.starts_with(prefix)) out.push_back(call);
  }
  return out;
}

size_t index_of_first(const FakeMlx5& fake, std::string_view prefix, size_t from = 0) {
  const auto& calls = fake.calls();
  for (size_t i = from; i < calls.size(); ++i) {
    if (calls[i].starts_with(prefix)) return i;
  }
  return calls.size();
}

TEST(VerbsDriver, BuildsTheManPageTreeAndAttachesFourQpsToEachLeaf) {
  const auto loaded = load("mlx5_two_groups.toml");
  auto [owned_fake, driver] = applied_on_fake(loaded.compiled[0]);
  const FakeMlx5& fake = *owned_fake;

  const auto sched = calls_starting(fake, "sched_");
  ASSERT_EQ(sched.size(), 3u);
  EXPECT_EQ(sched[0],
            "sched_node_create(parent=null, flags=0, bw_share=0, max_avg_bw=0, comp_mask=0) = "
            "node#7");
  EXPECT_EQ(sched[1],
            "sched_leaf_create(parent=node#7, flags=BW_SHARE, bw_share=7, max_avg_bw=0, "
            "comp_mask=0) = leaf#8");
  EXPECT_EQ(sched[2],
            "sched_leaf_create(parent=node#7, flags=BW_SHARE|MAX_AVG_BW, bw_share=3, "
            "max_avg_bw=4096, comp_mask=0) = leaf#9");
  const auto attach = calls_starting(fake, "modify_qp_sched_elem");
  ASSERT_EQ(attach.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_NE(attach[i].find(i < 4 ? "requester=leaf#8, responder=null"
                                   : "requester=leaf#9, responder=null"),
              std::string::npos)
        << attach[i];
  }
  driver->close();
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
}

// Every shipped RDMA suite: one element per tree element (none for the implicit tree), one
// attach per flow, and every QP's SL and traffic class (DSCP << 2 on RoCE) from the plan.
TEST(VerbsDriver, ProgramsEveryShippedRdmaSuite) {
  int suites = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(QB_SOURCE_DIR) + "/configs")) {
    if (entry.path().extension() != ".toml") continue;
    const auto loaded = load(entry.path().filename().string());
    for (const auto& compiled : loaded.compiled) {
      if (compiled.scenario->port.wire.transport == policy::Transport::eth) continue;
      if (compiled.plan.host_count() > 1) continue;  // two-host plans: not on one NIC
      SCOPED_TRACE(entry.path().filename().string());
      ++suites;
      FakeMlx5 fake(device_for(compiled));
      auto driver = make_verbs_driver(VerbsConfig{}, &fake);
      ASSERT_TRUE(driver->open(topology_of(compiled)).ok());
      const Status applied = driver->apply(compiled.plan);
      ASSERT_TRUE(applied.ok()) << applied.error().to_string();
      const bool implicit = policy::is_implicit_tree(compiled.plan.tree);
      const size_t elements = implicit ? 0 : compiled.plan.tree.elements.size();
      EXPECT_EQ(calls_starting(fake, "sched_node_create").size() +
                    calls_starting(fake, "sched_leaf_create").size(),
                elements);
      EXPECT_EQ(calls_starting(fake, "modify_qp_sched_elem").size(),
                implicit ? 0 : compiled.plan.flows.size());
      // Per flow: responder then requester go to RTR; both carry the flow's SL and class.
      const auto rtr = calls_starting(fake, "modify_qp(");
      size_t next = 0;
      for (const policy::FlowPlan& flow : compiled.plan.flows) {
        std::string expected = fmt::format("sl={}, ", flow.sl);
        expected += compiled.scenario->port.wire.transport == policy::Transport::rocev2
                        ? fmt::format("is_global=1, traffic_class={}", flow.dscp << 2)
                        : "is_global=0";
        int seen = 0;
        for (; next < rtr.size() && seen < 2; ++next) {
          if (rtr[next].find("state=2") == std::string::npos) continue;  // IBV_QPS_RTR
          EXPECT_NE(rtr[next].find(expected), std::string::npos)
              << flow.name << ": " << rtr[next] << " (expected " << expected << ")";
          ++seen;
        }
        EXPECT_EQ(seen, 2) << flow.name;
      }
      driver->close();
      EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
      EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
    }
  }
  EXPECT_GE(suites, 5);
}

// A READ's data is the responder's responses: the responder QP is attached as responder to
// the flow's leaf (and the requester, for its requests, as requester).
TEST(VerbsDriver, ReadFlowsAttachTheirResponderAsResponder) {
  const auto loaded = load("tests/verbs/read_two_groups.toml");
  auto [owned_fake, driver] = applied_on_fake(loaded.compiled[0]);
  const FakeMlx5& fake = *owned_fake;
  size_t as_responder = 0;
  size_t as_requester = 0;
  for (const auto& call : calls_starting(fake, "modify_qp_sched_elem")) {
    as_responder += call.find("requester=null, responder=leaf#8") != std::string::npos;
    as_requester += call.find("responder=null") != std::string::npos;
  }
  EXPECT_EQ(as_responder, 4u);  // g1's four READ flows
  EXPECT_EQ(as_requester, 8u);  // every requester
  driver->close();
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
}

// The label a fake call names its result or its argument by: "node#7", "leaf#9", "qp#12".
std::string label_after(const std::string& call, std::string_view marker) {
  const size_t at = call.find(marker);
  if (at == std::string::npos) return {};
  const size_t begin = at + marker.size();
  size_t end = begin;
  while (end < call.size() &&
         (std::isalnum(static_cast<unsigned char>(call[end])) != 0 || call[end] == '#')) {
    ++end;
  }
  return call.substr(begin, end - begin);
}

// docs/verbs.md: "QPs detached and destroyed, then leaves, then nodes (children before
// parents)". The whole teardown sequence of three_level_caps is checked: every QP detached
// before it is destroyed, every QP destroyed before the first leaf, every leaf before the first
// node, and the nodes deepest first, each after everything that was created under it.
TEST(VerbsDriver, TearsDownQpsThenLeavesThenNodes) {
  const auto loaded = load("three_level_caps.toml");
  auto [owned_fake, driver] = applied_on_fake(loaded.compiled[0]);
  const FakeMlx5& fake = *owned_fake;
  ASSERT_TRUE(driver->start().ok());
  ASSERT_TRUE(driver->stop().ok());
  const size_t teardown = fake.calls().size();
  driver->close();
  const auto& calls = fake.calls();
  // The tree as created: each element's parent and depth.
  std::map<std::string, std::string> parent_of;
  std::map<std::string, int> depth_of;
  for (size_t i = 0; i < teardown; ++i) {
    if (!calls[i].starts_with("sched_node_create") && !calls[i].starts_with("sched_leaf_create")) {
      continue;
    }
    const std::string made = label_after(calls[i], " = ");
    const std::string parent = label_after(calls[i], "parent=");
    parent_of[made] = parent;
    depth_of[made] = parent == "null" ? 0 : depth_of.at(parent) + 1;
  }
  ASSERT_GE(depth_of.size(), 7u);
  int deepest = 0;
  for (const auto& [label, depth] : depth_of) deepest = std::max(deepest, depth);
  ASSERT_GE(deepest, 2) << "three_level_caps has three levels under the root";
  enum Phase { qps, leaves, nodes };
  Phase phase = qps;
  std::set<std::string> detached, destroyed;
  int last_node_depth = deepest + 1;
  size_t leaves_destroyed = 0, nodes_destroyed = 0, qps_destroyed = 0;
  for (size_t i = teardown; i < calls.size(); ++i) {
    const std::string& call = calls[i];
    SCOPED_TRACE(call);
    EXPECT_EQ(call.find("->"), std::string::npos) << "a refused call";
    if (call.starts_with("modify_qp_sched_elem")) {
      EXPECT_EQ(phase, qps) << "a detach after the tree's teardown began";
      detached.insert(label_after(call, "modify_qp_sched_elem("));
    } else if (call.starts_with("destroy_qp")) {
      EXPECT_EQ(phase, qps) << "a QP destroyed after the tree's teardown began";
      ++qps_destroyed;
      destroyed.insert(label_after(call, "destroy_qp("));
    } else if (call.starts_with("sched_leaf_destroy")) {
      EXPECT_NE(phase, nodes) << "a leaf destroyed after a node";
      phase = leaves;
      ++leaves_destroyed;
      destroyed.insert(label_after(call, "sched_leaf_destroy("));
    } else if (call.starts_with("sched_node_destroy")) {
      phase = nodes;
      ++nodes_destroyed;
      const std::string node = label_after(call, "sched_node_destroy(");
      const int depth = depth_of.at(node);
      EXPECT_LE(depth, last_node_depth) << "nodes deepest first";
      last_node_depth = depth;
      for (const auto& [child, parent] : parent_of) {
        if (parent == node) {
          EXPECT_TRUE(destroyed.contains(child)) << child << " outlived " << node;
        }
      }
      destroyed.insert(node);
    }
  }
  EXPECT_EQ(detached.size(), loaded.compiled[0].plan.flows.size());
  for (const auto& qp : detached) EXPECT_TRUE(destroyed.contains(qp)) << qp;
  EXPECT_EQ(qps_destroyed, 2 * loaded.compiled[0].plan.flows.size());
  EXPECT_EQ(leaves_destroyed + nodes_destroyed, depth_of.size());
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
}

bool is_teardown_call(const std::string& call) {
  for (const char* prefix : {"destroy_", "dealloc_", "dereg_", "close_device", "sched_node_destroy",
                             "sched_leaf_destroy"}) {
    if (call.starts_with(prefix)) return true;
  }
  // A detach at teardown (responder=null, requester=null).
  return call.starts_with("modify_qp_sched_elem") &&
         call.find("requester=null") != std::string::npos;
}

// Every control-path call of a whole run fails in turn: the run stops with an error (or, for a
// teardown call, counts the failure), and nothing the driver could free is left allocated.
TEST(VerbsDriver, EveryCallFailingInTurnLeavesNothingAllocated) {
  const auto loaded = load("mlx5_two_groups.toml");
  const auto& compiled = loaded.compiled[0];
  size_t total_calls = 0;
  {
    FakeMlx5 fake(device_for(compiled));
    auto driver = make_verbs_driver(VerbsConfig{}, &fake);
    ASSERT_TRUE(driver->open(topology_of(compiled)).ok());
    ASSERT_TRUE(driver->apply(compiled.plan).ok());
    ASSERT_TRUE(driver->start().ok());
    ASSERT_TRUE(driver->stop().ok());
    driver->close();
    total_calls = fake.calls().size();
  }
  ASSERT_GT(total_calls, 50u);
  for (uint32_t k = 1; k <= total_calls; ++k) {
    FakeMlx5 fake(device_for(compiled));
    fake.fail_call(k, EIO);
    auto driver = make_verbs_driver(VerbsConfig{}, &fake);
    bool failed = !driver->open(topology_of(compiled)).ok();
    failed = failed || !driver->apply(compiled.plan).ok();
    failed = failed || !driver->start().ok();
    failed = failed || !driver->stop().ok();
    driver->close();
    ASSERT_GE(fake.calls().size(), k);
    const std::string& call = fake.calls()[k - 1];
    SCOPED_TRACE(call);
    if (is_teardown_call(call)) {
      // What the failed destroy held stays (and so may its CQ, PD and context): counted, and
      // nothing is touched after it was destroyed.
      double failures = 0;
      for (const auto& [name, value] : driver->stats()) {
        if (name == "teardown_failures") failures = value;
      }
      EXPECT_GE(failures, 1.0);
      for (const auto& v : fake.violations()) {
        EXPECT_EQ(v.find("used after"), std::string::npos) << v;
      }
      continue;
    }
    if (call.starts_with("get_clock_info") && k - 1 == index_of_first(fake, "get_clock_info")) {
      // Optional: without the clock conversion the run goes on, timestamped on the host.
      EXPECT_FALSE(failed);
      EXPECT_FALSE(driver->capabilities().hw_timestamps);
    } else if (call.starts_with("get_clock_info") || call.starts_with("query_mlx5_device")) {
      // Read again at start (the one read at open stays), or how often to read it (the
      // driver's default period then): the run goes on.
      EXPECT_FALSE(failed);
    } else {
      EXPECT_TRUE(failed) << "call " << k << " failed and the driver went on";
    }
    EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
    for (const auto& v : fake.violations()) ADD_FAILURE() << v;
  }
}

TEST(VerbsDriver, DeviceWithoutSchedulingElementsIsRefusedNamingTheElement) {
  const auto loaded = load("mlx5_two_groups.toml");
  const auto& compiled = loaded.compiled[0];
  FakeDeviceConfig config = device_for(compiled);
  config.sched_support = false;
  FakeMlx5 fake(config);
  auto driver = make_verbs_driver(VerbsConfig{}, &fake);
  ASSERT_TRUE(driver->open(topology_of(compiled)).ok());
  const Status applied = driver->apply(compiled.plan);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().code, Errc::unavailable);
  EXPECT_NE(applied.error().message.find("node 'root'"), std::string::npos)
      << applied.error().message;
  EXPECT_NE(applied.error().message.find("errno 95"), std::string::npos) << applied.error().message;
  driver->close();
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
}

struct Refusal {
  std::string name;
  void (*change)(FakeDeviceConfig&, VerbsConfig&, Topology&);
  Errc code;
  std::string where;
};

// The device's tree limits (rdma-core providers/mlx5 attr_supported; the firmware's
// max_tsar_bw_share and sched depth), enforced by the fake: exit 3 (unavailable / runtime)
// naming the element and the errno, with advice; a missing nic_rate_limit capability is not
// "no NIC scheduling elements".
TEST(VerbsDriver, TreeBeyondTheDevicesLimitsIsRefusedNamingTheElement) {
  const auto reads = load("tests/verbs/read_two_groups.toml");
  const auto& two = reads.compiled[0];
  const auto apply_on = [](const suite::CompiledScenario& compiled, FakeDeviceConfig device) {
    FakeMlx5 fake(device);
    auto driver = make_verbs_driver(VerbsConfig{}, &fake);
    EXPECT_TRUE(driver->open(topology_of(compiled)).ok());
    Status applied = driver->apply(compiled.plan);
    driver->close();
    EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
    return applied;
  };
  {
    FakeDeviceConfig device = device_for(two);
    device.nic_rate_limit = false;  // g2 has a cap
    const Status s = apply_on(two, device);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, Errc::unavailable);
    EXPECT_NE(s.error().message.find("leaf 'g2'"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("nic_rate_limit"), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().message.find("has no NIC scheduling elements"), std::string::npos)
        << s.error().message;
  }
  {
    FakeDeviceConfig device = device_for(two);
    device.max_bw_share = 5;  // g1 has 7
    const Status s = apply_on(two, device);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().code, Errc::runtime);
    EXPECT_NE(s.error().message.find("leaf 'g1'"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("errno 22"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("max_tsar_bw_share"), std::string::npos) << s.error().message;
  }
  {
    const auto caps = load("three_level_caps.toml");  // four levels, root included
    FakeDeviceConfig device = device_for(caps.compiled[0]);
    EXPECT_TRUE(apply_on(caps.compiled[0], device).ok());
    device.max_sched_levels = 3;
    const Status s = apply_on(caps.compiled[0], device);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("leaf 'a_mpi'"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("depth 3"), std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("flatten the tree"), std::string::npos) << s.error().message;
  }
}

// The first run: a ConnectX port's usual GID table (0 RoCE v1, 1 RoCE v2, 2-3 the
// IPv4-mapped pair) and no gid_index: every QP's GRH uses index 3, and the results say so.
TEST(VerbsDriver, ConnectXGidLayoutRunsWithoutOptions) {
  const auto loaded = load("mlx5_two_groups.toml");
  auto [owned_fake, driver] = applied_on_fake(loaded.compiled[0]);
  const auto rtr = calls_starting(*owned_fake, "modify_qp");
  size_t global = 0;
  for (const auto& call : rtr) {
    if (call.find("is_global=1") == std::string::npos) continue;
    ++global;
    EXPECT_NE(call.find("sgid_index=3"), std::string::npos) << call;
  }
  EXPECT_EQ(global, 16u);  // a requester and a responder per flow instance
  double gid_index = -1;
  for (const auto& [name, value] : driver->stats()) {
    if (name == "gid_index") gid_index = value;
  }
  EXPECT_EQ(gid_index, 3.0);
  driver->close();
}

TEST(VerbsDriver, RefusesWhatCannotRunWithAnActionableError) {
  const auto loaded = load("mlx5_two_groups.toml");
  const auto& compiled = loaded.compiled[0];
  const std::vector<Refusal> refusals = {
      {"IB port, RoCE suite",
       [](FakeDeviceConfig& d, VerbsConfig&, Topology&) {
         d.port.link_layer = IBV_LINK_LAYER_INFINIBAND;
       },
       Errc::invalid_config, "port.transport"},
      {"Ethernet suite",
       [](FakeDeviceConfig&, VerbsConfig&, Topology& t) {
         t.wire.transport = policy::Transport::eth;
       },
       Errc::invalid_config, "port.transport"},
      {"MTU beyond the port's",
       [](FakeDeviceConfig& d, VerbsConfig&, Topology&) { d.port.active_mtu = IBV_MTU_1024; },
       Errc::invalid_config, "port.mtu"},
      {"MTU that is not an IB MTU",
       [](FakeDeviceConfig&, VerbsConfig&, Topology& t) { t.wire.mtu_bytes = 1500; },
       Errc::invalid_config, "port.mtu"},
      {"rate not the port's speed",
       [](FakeDeviceConfig& d, VerbsConfig&, Topology&) { d.port.rate_bps = 200e9; },
       Errc::invalid_config, "port.rate"},
      {"port down",
       [](FakeDeviceConfig& d, VerbsConfig&, Topology&) { d.port.state = IBV_PORT_DOWN; },
       Errc::unavailable, "driver.verbs.port"},
      {"port 2", [](FakeDeviceConfig&, VerbsConfig& c, Topology&) { c.port = 2; },
       Errc::unavailable, "driver.verbs.port"},
      {"GID index missing", [](FakeDeviceConfig&, VerbsConfig& c, Topology&) { c.gid_index = 9; },
       Errc::unavailable, "driver.verbs.gid_index"},
      {"RoCE v1 GIDs only",
       [](FakeDeviceConfig& d, VerbsConfig&, Topology&) {
         for (FakeGid& gid : d.port.gids) gid.type = IBV_GID_TYPE_ROCE_V1;
       },
       Errc::unavailable, "driver.verbs.gid_index"},
      {"unknown device", [](FakeDeviceConfig&, VerbsConfig& c, Topology&) { c.device = "mlx5_7"; },
       Errc::unavailable, "driver.verbs.device"},
  };
  for (const Refusal& refusal : refusals) {
    SCOPED_TRACE(refusal.name);
    FakeDeviceConfig device = device_for(compiled);
    VerbsConfig config;
    Topology topology = topology_of(compiled);
    refusal.change(device, config, topology);
    FakeMlx5 fake(device);
    auto driver = make_verbs_driver(config, &fake);
    const Status opened = driver->open(topology);
    ASSERT_FALSE(opened.ok());
    EXPECT_EQ(opened.error().code, refusal.code) << opened.error().to_string();
    EXPECT_EQ(opened.error().where, refusal.where) << opened.error().to_string();
    driver->close();
    EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  }
}

TEST(VerbsDriver, ProgramsCapsAsWholeMegabitsRoundedToNearest) {
  policy::QosPlan plan;
  plan.tree = policy::SchedTree::with_root();
  const uint32_t leaf = plan.tree.add_child(0, "slow", true, 2, 2.5e6);
  plan.tree.add_child(0, "other", true, 0, 1234.4e6);
  plan.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  plan.port_rate_bps = 100e9;
  policy::FlowPlan flow;
  flow.name = "f";
  flow.leaf = leaf;
  plan.flows.push_back(flow);
  FakeMlx5 fake(fake_device_for_port(100e9, plan.wire, 0));
  auto driver = make_verbs_driver(VerbsConfig{}, &fake);
  Topology topology;
  topology.port_rate_bps = 100e9;
  topology.wire = plan.wire;
  topology.flow_count = 1;
  ASSERT_TRUE(driver->open(topology).ok());
  ASSERT_TRUE(driver->apply(plan).ok());
  const auto leaves = calls_starting(fake, "sched_leaf_create");
  ASSERT_EQ(leaves.size(), 2u);
  EXPECT_NE(leaves[0].find("flags=BW_SHARE|MAX_AVG_BW, bw_share=2, max_avg_bw=3"),
            std::string::npos)
      << leaves[0];
  // bw_share 0: only the cap's flag.
  EXPECT_NE(leaves[1].find("flags=MAX_AVG_BW, bw_share=0, max_avg_bw=1234"), std::string::npos)
      << leaves[1];
  driver->close();
}

TEST(VerbsDriver, HardwareRateLimitForPacedFlowsOnly) {
  const auto loaded = load("cbr_redistribution.toml");
  const auto& compiled = loaded.compiled[0];
  VerbsConfig config;
  config.hw_rate_limit = true;
  {
    auto [owned_fake, driver] = applied_on_fake(compiled, config);
    const FakeMlx5& fake = *owned_fake;
    size_t paced = 0;
    for (const auto& flow : compiled.plan.flows) paced += std::isfinite(flow.offered_wire_bps);
    ASSERT_GT(paced, 0u);
    const auto limits = calls_starting(fake, "modify_qp_rate_limit");
    ASSERT_EQ(limits.size(), paced);
    const auto& first = compiled.plan.flows[0];
    ASSERT_TRUE(std::isfinite(first.offered_wire_bps));
    EXPECT_NE(
        limits[0].find(fmt::format("rate_limit={} kbps",
                                   static_cast<uint64_t>(std::ceil(first.offered_wire_bps / 1e3)))),
        std::string::npos)
        << limits[0];
    driver->close();
  }
  FakeDeviceConfig device = device_for(compiled);
  device.rate_limit_rc = false;
  FakeMlx5 fake(device);
  auto driver = make_verbs_driver(config, &fake);
  ASSERT_TRUE(driver->open(topology_of(compiled)).ok());
  const Status applied = driver->apply(compiled.plan);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.error().where, "driver.verbs.hw_rate_limit");
  driver->close();
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
}

// hw_pacing: hardware pacing for the flows that ask for it (a [[flow]] entry, or one instance),
// whatever hw_rate_limit says; names that are no flow, or a flow without a rate, are exit 2 at
// the key.
TEST(VerbsDriver, HardwarePacingPerFlow) {
  const auto loaded = load("cbr_redistribution.toml");
  const auto& compiled = loaded.compiled[0];
  {
    VerbsConfig config;
    config.hw_pacing = {"rpc-cbr", "telemetry"};
    auto [owned_fake, driver] = applied_on_fake(compiled, config);
    const auto limits = calls_starting(*owned_fake, "modify_qp_rate_limit");
    size_t asked = 0;
    for (const auto& flow : compiled.plan.flows) {
      asked += flow.group == "rpc-cbr" || flow.group == "telemetry" ? 1 : 0;
    }
    EXPECT_EQ(asked, 3u);
    EXPECT_EQ(limits.size(), asked);
    EXPECT_NE(limits[0].find("rate_limit=4"), std::string::npos)
        << limits[0];  // 4 Gbit/s + headers
    driver->close();
  }
  {
    VerbsConfig config;
    config.hw_pacing = {"rpc-cbr#1"};
    auto [owned_fake, driver] = applied_on_fake(compiled, config);
    EXPECT_EQ(calls_starting(*owned_fake, "modify_qp_rate_limit").size(), 1u);
    driver->close();
  }
  for (const char* name : {"no-such-flow", "bulk"}) {
    SCOPED_TRACE(name);
    FakeMlx5 fake(device_for(compiled));
    VerbsConfig config;
    config.hw_pacing = {name};
    auto driver = make_verbs_driver(config, &fake);
    ASSERT_TRUE(driver->open(topology_of(compiled)).ok());
    const Status applied = driver->apply(compiled.plan);
    ASSERT_FALSE(applied.ok());
    EXPECT_EQ(applied.error().code, Errc::invalid_config);
    EXPECT_EQ(applied.error().where, "driver.verbs.hw_pacing");
    EXPECT_NE(applied.error().message.find(name), std::string::npos) << applied.error().message;
    driver->close();
    EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  }
}

// The registry entry with a fake the test keeps, so the engine's run can be inspected after.
Result<engine::SuiteRun> run_on_fake(const LoadedSuite& loaded, FakeMlx5& fake, VerbsConfig config,
                                     const engine::RunOptions& options) {
  static DriverEntry entry;
  entry.name = "verbs";
  entry.available = true;
  static FakeMlx5* current = nullptr;
  static VerbsConfig current_config;
  current = &fake;
  current_config = config;
  entry.create = [](const DriverOptions&) -> Result<std::unique_ptr<DriverBackend>> {
    return make_verbs_backend(current_config, current);
  };
  struct NoOptions final : DriverOptions {};
  DriverFactory factory(entry, std::make_shared<NoOptions>());
  return engine::run_suite(loaded.suite, loaded.compiled, factory, options);
}

// mlx5dv_get_clock_info(3): the clock info must be read again at least every
// max_clock_info_update_nsec (mlx5dv_query_device). The fake's device clock wraps every 2^25 ns
// (34 ms) and asks for 2^23 ns (8.4 ms): over a 300 ms run (two groups, reads and writes) every
// completion timestamp converts to the right time only if the worker reads the clock info again in
// time.
TEST(VerbsDriver, ClockInfoIsReadAgainWithinItsUpdatePeriod) {
  const auto loaded = load("tests/verbs/read_two_groups.toml");
  FakeDeviceConfig device = device_for(loaded.compiled[0]);
  device.clock_mask = (1ULL << 25) - 1;
  device.max_clock_info_update_ns = 1ULL << 23;
  FakeMlx5 fake(device);
  engine::RunOptions options;
  options.repetitions = 1;
  options.duration_ns = 300'000'000;
  auto run = run_on_fake(loaded, fake, VerbsConfig{}, options);
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  // At open, at start, then every half period (4.2 ms) of virtual time at least.
  const size_t reads = calls_starting(fake, "get_clock_info").size();
  EXPECT_GE(reads, 2u + 300 / 9);
  const auto measured = engine::measure(*run);
  ASSERT_FALSE(measured.scenarios[0].flows.empty());
  for (const auto& flow : measured.scenarios[0].flows) {
    ASSERT_GT(flow.latency.count, 0u);
    EXPECT_GE(flow.latency.min_ns, 0);
    EXPECT_LT(flow.latency.max_ns, 10'000'000) << "a timestamp converted with a stale clock info";
  }
  EXPECT_TRUE(fake.violations().empty()) << fake.violations().front();
}

// A CQ poll that fails (not "empty") is counted in poll_errors, not taken for an empty CQ.
TEST(VerbsDriver, FailedCqPollIsCounted) {
  const auto loaded = load("tests/verbs/read_two_groups.toml");
  auto [fake, driver] = applied_on_fake(loaded.compiled[0]);
  ASSERT_TRUE(driver->start().ok());
  fake->fail_next_poll(EIO);
  std::array<Completion, 64> batch;
  EXPECT_EQ(driver->queue(0).poll(batch), 0u);
  double poll_errors = -1;
  for (const auto& [name, value] : driver->stats()) {
    if (name == "poll_errors") poll_errors = value;
  }
  EXPECT_EQ(poll_errors, 1.0);
  ASSERT_TRUE(driver->stop().ok());
  driver->close();
  EXPECT_EQ(fake->live().total(), 0u) << fake->live().describe();
}

TEST(VerbsDriver, InterruptedRunTearsEverythingDown) {
  auto loaded = load("imix_256_flows.toml");
  // The 256-flow suite on RoCE (it is written for Ethernet frames).
  for (auto& scenario : loaded.suite.scenarios) {
    scenario.port.wire = policy::WireModel{policy::Transport::rocev2, 4096};
  }
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(loaded.suite, warnings);
  ASSERT_TRUE(compiled.ok()) << compiled.error().to_string();
  loaded.compiled = std::move(*compiled);
  FakeDeviceConfig device = device_for(loaded.compiled[0]);
  device.timing = FakeTiming::instant;
  FakeMlx5 fake(device);
  VerbsConfig config;
  config.workers = 2;
  std::atomic<bool> interrupted{false};
  engine::RunOptions options;
  options.duration_ns = 60'000'000'000;  // a minute: only the interrupt ends it
  options.repetitions = 1;
  options.interrupted = &interrupted;
  std::thread interrupter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    interrupted = true;
  });
  const auto start = std::chrono::steady_clock::now();
  auto run = run_on_fake(loaded, fake, config, options);
  interrupter.join();
  ASSERT_TRUE(run.ok()) << run.error().to_string();
  EXPECT_FALSE(run->complete);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_GT(fake.posted_sends(), 0u);
  EXPECT_EQ(fake.live().total(), 0u) << fake.live().describe();
  for (const auto& v : fake.violations()) ADD_FAILURE() << v;
}

// The fake on simulated timing runs the tree the driver programmed: the shipped tree suites land
// within 1 % of the oracle per flow, as on the sim driver.
TEST(VerbsDriver, SimulatedTimingLandsOnTheOracleForTheShippedTrees) {
  for (const char* file : {"mlx5_two_groups.toml", "three_level_caps.toml",
                           "cbr_redistribution.toml", "tests/verbs/read_two_groups.toml"}) {
    SCOPED_TRACE(file);
    const auto loaded = load(file);
    auto factory = configure_driver("verbs", ConfigTable("driver.verbs"),
                                    {ConfigOverride{"provider", "fake", "--driver-option"}});
    ASSERT_TRUE(factory.ok()) << factory.error().to_string();
    engine::RunOptions options;
    options.repetitions = 1;
    auto run = engine::run_suite(loaded.suite, loaded.compiled, *factory, options);
    ASSERT_TRUE(run.ok()) << run.error().to_string();
    EXPECT_EQ(run->scenarios[0].reps[0].driver_stats.empty(), false);
    auto results = judge::judge_run(loaded.suite, *run, engine::measure(*run),
                                    judge::current_run_metadata({}));
    ASSERT_TRUE(results.ok()) << results.error().to_string();
    for (const auto& scenario : results->scenarios) {
      for (const auto& flow : scenario.flows) {
        EXPECT_LT(std::abs(flow.error), 0.01)
            << flow.name << ": measured " << flow.measured_bps << " expected " << flow.expected_bps;
      }
    }
  }
}

}  // namespace
}  // namespace qb::drv::verbs
