// The judge's side of the counter reconciliation: the driver's "nic.*" stats and the judged
// flows (their priorities and bytes) reach the checks, and a counter that disagrees with the
// run is a failed check (a warning), one that agrees is not.
#include "nic_counter_checks.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>

#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::judge {
namespace {

struct Compiled {
  suite::Suite suite;
  std::vector<suite::CompiledScenario> scenarios;
};

Compiled roce_ets() {
  auto loaded = suite::load_suite_file(std::string(QB_SOURCE_DIR) + "/configs/roce_ets.toml");
  EXPECT_TRUE(loaded.ok());
  Compiled c{std::move(*loaded), {}};
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(c.suite, warnings);
  EXPECT_TRUE(compiled.ok());
  c.scenarios = std::move(*compiled);
  return c;
}

// Each flow sent 1000 packets of 1020 wire bytes (1000 frame bytes).
ScenarioResult judged(const suite::CompiledScenario& c) {
  ScenarioResult s;
  for (const auto& flow : c.plan.flows) {
    FlowResult f;
    f.name = flow.name;
    f.counts.packets = 1000;
    f.counts.wire_bytes = 1'020'000;
    s.flows.push_back(f);
  }
  return s;
}

NicCheckResult named(const std::vector<NicCheckResult>& checks, std::string_view name) {
  for (const auto& c : checks) {
    if (c.name == name) return c;
  }
  throw std::runtime_error(std::string(name));
}

TEST(NicCounterChecks, NoCountersNoChecks) {
  const Compiled c = roce_ets();
  EXPECT_TRUE(nic_counter_checks(c.scenarios[0], judged(c.scenarios[0])).empty());
}

TEST(NicCounterChecks, BytesPerPriorityFromTheFlowsPriorities) {
  const Compiled c = roce_ets();
  const auto& sc = c.scenarios[0];
  // roce_ets's flows on priorities 5 (rpc), 0 (web) and 1 (bulk): the port counts each
  // priority's bytes in proportion to its flows.
  std::array<double, 8> flows{};
  for (const auto& flow : sc.plan.flows) flows[flow.priority] += 1.0;
  ASSERT_GT(flows[5], 0.0);
  ScenarioResult s = judged(sc);
  s.driver_stats = {{"nic.direction", 1.0}};
  for (int p = 0; p < 8; ++p) {
    s.driver_stats.emplace_back(fmt::format("nic.ethtool.tx_prio{}_bytes", p), flows[p] * 1e6);
  }
  const NicCheckResult ok = named(nic_counter_checks(sc, s), "priority_bytes");
  EXPECT_TRUE(ok.checked && ok.passed) << ok.detail;
  // Everything counted on priority 0: the marking did not land.
  for (auto& [name, value] : s.driver_stats) {
    if (name.starts_with("nic.ethtool.tx_prio")) {
      value = name == "nic.ethtool.tx_prio0_bytes" ? 1e7 : 0.0;
    }
  }
  const NicCheckResult wrong = named(nic_counter_checks(sc, s), "priority_bytes");
  EXPECT_FALSE(wrong.passed);
  const double share5 = flows[5] / static_cast<double>(sc.plan.flows.size());
  EXPECT_NE(wrong.detail.find(fmt::format("priority 5: the suite's flows of it sent {:.0f}% of the "
                                          "bytes, the NIC counted 0% there",
                                          share5 * 100.0)),
            std::string::npos)
      << wrong.detail;
}

}  // namespace
}  // namespace qb::judge
