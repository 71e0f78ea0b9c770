// explain follows the joins (issue 25, item 2): each flow's expectation over the measured window
// is time-weighted over the epochs, which it lists; a flow that starts after the window is said
// to be not started; and a class another class starves is named with its cause.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "qb/reports/explain.hpp"
#include "qb/suite/compile.hpp"
#include "qb/suite/suite_loader.hpp"

namespace qb::report {
namespace {

struct Explained {
  suite::Suite suite;
  std::vector<suite::CompiledScenario> compiled;
};

Explained explained(const std::string& text) {
  Explained out;
  auto suite = suite::load_suite_string(text, "explain.toml");
  EXPECT_TRUE(suite.ok()) << suite.error().to_string();
  out.suite = std::move(*suite);
  std::vector<Warning> warnings;
  auto compiled = suite::compile_suite(out.suite, warnings);
  EXPECT_TRUE(compiled.ok()) << compiled.error().to_string();
  out.compiled = std::move(*compiled);
  return out;
}

const std::string kJoins =
    "[suite]\nwarmup = \"0s\"\nduration = \"1200us\"\n"
    "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
    "[[flow]]\nname = \"a\"\nsize = 65536\nrate = \"saturate\"\n"
    "[[flow]]\nname = \"b\"\nsize = 65536\nrate = \"saturate\"\nstart = \"500us\"\n"
    "[[flow]]\nname = \"late\"\nsize = 65536\nrate = \"saturate\"\nstart = \"5ms\"\n";

TEST(ExplainEpochs, ExpectationsAreTimeWeightedAndEpochsListed) {
  const Explained e = explained(kJoins);
  const auto doc = nlohmann::json::parse(explain_json(e.suite, e.compiled));
  const auto& scenario = doc["scenarios"][0];
  const auto& flows = scenario["flows"];
  // a: 100 for 500 us, then 50 for 700 us (late never starts in the window).
  EXPECT_NEAR(flows[0]["expected_bps"].get<double>(), (500.0 * 100 + 700.0 * 50) / 1200.0 * 1e9,
              1e3);
  EXPECT_NEAR(flows[1]["expected_bps"].get<double>(), 700.0 * 50 / 1200.0 * 1e9, 1e3);
  EXPECT_EQ(flows[2]["expected_bps"].get<double>(), 0.0);
  EXPECT_FALSE(flows[2]["started"].get<bool>());
  EXPECT_TRUE(flows[0]["started"].get<bool>());
  ASSERT_EQ(scenario["epochs"].size(), 3u);
  EXPECT_EQ(scenario["epochs"][1]["start_ns"].get<int64_t>(), 500'000);
  EXPECT_NEAR(scenario["epochs"][1]["flow_bps"][1].get<double>(), 50e9, 1e3);

  std::ostringstream text;
  print_explain(e.suite, e.compiled, text);
  EXPECT_NE(text.str().find("epochs (each flow's share while that set of flows is active):"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("not started: starts at 5.00 ms, after the window ends"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("after the window: not judged"), std::string::npos) << text.str();
}

TEST(ExplainEpochs, NamesWhatStarvesAClass) {
  const Explained e = explained(
      "[port]\nrate = \"100Gbps\"\ntransport = \"rocev2\"\nmtu = 4096\n"
      "[eth]\ntrust = \"dscp\"\n"
      "tsa = [\"ets\", \"ets\", \"ets\", \"ets\", \"ets\", \"strict\", \"ets\", \"ets\"]\n"
      "ets = [50, 50, 0, 0, 0, 0, 0, 0]\n"
      "[[flow]]\nname = \"bulk\"\nsize = 65536\nrate = \"saturate\"\ntx_tclass = \"low_latency\"\n"
      "[[flow]]\nname = \"voice\"\nsize = 256\nrate = \"1Gbps\"\ntx_tclass = \"best_effort\"\n");
  const auto doc = nlohmann::json::parse(explain_json(e.suite, e.compiled));
  const auto& shortfalls = doc["scenarios"][0]["shortfalls"];
  ASSERT_EQ(shortfalls.size(), 1u) << shortfalls.dump();
  const std::string cause = shortfalls[0].get<std::string>();
  EXPECT_NE(cause.find("TC5 (strict, eth.tsa[5])"), std::string::npos) << cause;
  EXPECT_NE(cause.find("flow 'voice'"), std::string::npos) << cause;
}

}  // namespace
}  // namespace qb::report
