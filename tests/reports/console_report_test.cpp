// The console summary: the worst flow's and group's error keep their sign (fairness stores
// magnitudes; a starved flow is -100 %, not +100 %).
#include "qb/reports/console_report.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "results_fixture.hpp"

namespace qb::report {
namespace {

TEST(ConsoleReport, WorstErrorsKeepTheirSign) {
  Results results = testing::sample_results();
  ScenarioResult& s = results.scenarios[0];
  s.flows[2].measured_bps = 0.0;
  s.flows[2].error = -1.0;
  s.fairness.worst_flow = s.flows[2].name;
  s.fairness.worst_flow_error = 1.0;
  s.groups[1].error = -0.25;
  s.fairness.worst_group = s.groups[1].name;
  s.fairness.worst_group_error = 0.25;
  std::ostringstream out;
  print_console(results, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("worst flow error -100.000% (" + s.flows[2].name + ")"), std::string::npos)
      << text;
  EXPECT_NE(text.find("worst group error -25.000% (" + s.groups[1].name + ")"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("+100.000%"), std::string::npos) << text;
}

TEST(ConsoleReport, ALossyFabricShowsItsDropsAndRepairs) {
  Results results = testing::sample_results();
  std::ostringstream plain;
  print_console(results, plain);
  EXPECT_EQ(plain.str().find("lossy fabric"), std::string::npos) << plain.str();

  results.scenarios[0].driver_stats = {{"nacks", 7},
                                       {"retransmit_timeouts", 1},
                                       {"retransmitted_packets", 40},
                                       {"retransmitted_wire_bytes", 166400},
                                       {"switch_drops", 12.5}};
  std::ostringstream out;
  print_console(results, out);
  EXPECT_NE(out.str().find("lossy fabric (per repetition): 12 packets dropped at the switch, 7 "
                           "NACKs, 1 timer go-backs, 40 packets (166400 wire bytes) sent again"),
            std::string::npos)
      << out.str();
}

}  // namespace
}  // namespace qb::report
