// [eth] pfc: the priorities the suite thinks lossless (compared with the NIC's PFC by the real
// drivers, read by the counter checks), and its errors at their location.
#include <gtest/gtest.h>

#include <string_view>

#include "qb/suite/suite_loader.hpp"

namespace qb::suite {
namespace {

constexpr std::string_view kHead = "[port]\ntransport = \"rocev2\"\n[eth]\n";

TEST(EthPfc, ThePrioritiesGiven) {
  auto suite = load_suite_string(std::string(kHead) + "pfc = [3, 5]\n", "q.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const auto& eth = suite->scenarios.front().eth.qos;
  EXPECT_TRUE(eth.pfc_given);
  EXPECT_EQ(eth.pfc_enabled, (1 << 3) | (1 << 5));
  auto none = load_suite_string(std::string(kHead) + "pfc = []\n", "q.toml");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->scenarios.front().eth.qos.pfc_given);  // said: every priority lossy
  EXPECT_EQ(none->scenarios.front().eth.qos.pfc_enabled, 0);
  auto unsaid = load_suite_string(std::string(kHead) + "trust = \"pcp\"\n", "q.toml");
  ASSERT_TRUE(unsaid.ok());
  EXPECT_FALSE(unsaid->scenarios.front().eth.qos.pfc_given);
}

TEST(EthPfc, ErrorsAtTheElement) {
  auto bad = load_suite_string(std::string(kHead) + "pfc = [3, 8]\n", "q.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().where, "eth.pfc[1]");
  EXPECT_EQ(bad.error().loc.line, 4U);
  auto twice = load_suite_string(std::string(kHead) + "pfc = [3, 3]\n", "q.toml");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find("priority 3 twice"), std::string::npos);
  auto type = load_suite_string(std::string(kHead) + "pfc = 3\n", "q.toml");
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().where, "eth.pfc");
}

}  // namespace
}  // namespace qb::suite
