// Relative gate limits are percentages where people write them ("1%"), as the console, the
// report and `compare --threshold 5` show them; a bare number keeps meaning the fraction it
// meant (0.01 = 1 %) and draws a warning at its value naming the "%" spelling.
#include <gtest/gtest.h>

#include <string>

#include "qb/suite/suite_loader.hpp"

namespace qb::suite {
namespace {

std::string with_gates(const std::string& gates) {
  return R"([suite]
name = "p"
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "a"
parent = "root"
[[flow]]
name = "f"
leaf = "a"
size = 4096
rate = "saturate"
[gates]
)" + gates;
}
// [gates] is on line 13: its first key is on line 14.
constexpr uint32_t kFirstGateLine = 14;

TEST(GatePercent, PercentStringsAreFractionsInsideWithoutWarnings) {
  auto suite = load_suite_string(with_gates("max_share_error = \"1%\"\n"
                                            "max_group_share_error = \"0.5 %\"\n"
                                            "max_cap_overshoot = \"0.25%\"\n"
                                            "convergence_tolerance = \"10%\"\n"
                                            "min_jain = 0.99\n"),
                                 "p.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const GateSpec& g = suite->scenarios[0].gates;
  EXPECT_DOUBLE_EQ(*g.max_share_error, 0.01);
  EXPECT_DOUBLE_EQ(*g.max_group_share_error, 0.005);
  EXPECT_DOUBLE_EQ(*g.max_cap_overshoot, 0.0025);
  EXPECT_DOUBLE_EQ(g.convergence_tolerance, 0.1);
  EXPECT_DOUBLE_EQ(*g.min_jain, 0.99);
  EXPECT_TRUE(suite->warnings.empty()) << suite->warnings[0].message;
}

TEST(GatePercent, ABareNumberStaysAFractionAndWarnsAtItsValue) {
  auto suite = load_suite_string(
      with_gates("max_share_error = 0.01\nmax_cap_overshoot = 0.005\nmin_jain = 0.99\n"), "p.toml");
  ASSERT_TRUE(suite.ok()) << suite.error().to_string();
  const GateSpec& g = suite->scenarios[0].gates;
  EXPECT_DOUBLE_EQ(*g.max_share_error, 0.01);  // the same judgement as before
  EXPECT_DOUBLE_EQ(*g.max_cap_overshoot, 0.005);
  ASSERT_EQ(suite->warnings.size(), 2u) << "min_jain is an index: no warning";
  const Warning& w = suite->warnings[0];
  EXPECT_EQ(w.where, "gates.max_share_error");
  EXPECT_EQ(w.loc.file, "p.toml");
  EXPECT_EQ(w.loc.line, kFirstGateLine);
  EXPECT_EQ(w.loc.column, 19u);  // the value's column
  EXPECT_NE(w.message.find("fraction (1%)"), std::string::npos) << w.message;
  EXPECT_NE(w.message.find("max_share_error = \"1%\""), std::string::npos) << w.message;
  EXPECT_NE(suite->warnings[1].message.find("max_cap_overshoot = \"0.5%\""), std::string::npos)
      << suite->warnings[1].message;
  EXPECT_EQ(suite->warnings[1].loc.line, kFirstGateLine + 1);
}

TEST(GatePercent, MalformedPercentagesAreErrorsAtTheirValue) {
  for (const char* bad : {"\"1\"", "\"one%\"", "\"%\"", "\"1%%\"", "\"-1%\"", "\"1e999%\""}) {
    SCOPED_TRACE(bad);
    auto suite =
        load_suite_string(with_gates(std::string("max_share_error = ") + bad + "\n"), "p.toml");
    ASSERT_FALSE(suite.ok());
    EXPECT_EQ(suite.error().code, Errc::invalid_config);
    EXPECT_EQ(suite.error().where, "gates.max_share_error");
    EXPECT_EQ(suite.error().loc.line, kFirstGateLine);
  }
  auto over = load_suite_string(with_gates("convergence_tolerance = \"150%\"\n"), "p.toml");
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("at most 100%"), std::string::npos)
      << over.error().to_string();
}

}  // namespace
}  // namespace qb::suite
