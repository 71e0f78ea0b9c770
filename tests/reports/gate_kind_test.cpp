// A gate's kind and bound are fields: the console, HTML and JUnit renderers write the value and
// threshold by them, whatever the gate is called; the reader derives both for the gates judge
// writes (the results JSON names gates only).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "qb/reports/console_report.hpp"
#include "qb/reports/html_report.hpp"
#include "qb/reports/json_results.hpp"
#include "qb/reports/junit.hpp"
#include "qb/reports/results_reader.hpp"
#include "results_fixture.hpp"

namespace qb::report {
namespace {

Results with_gate(GateResult gate) {
  Results r = testing::sample_results();
  r.scenarios[0].gates = {std::move(gate)};
  return r;
}

std::string console(const Results& r) {
  std::ostringstream out;
  print_console(r, out);
  return out.str();
}

TEST(GateKind, RenderersFollowTheKindAndBoundNotTheName) {
  // A name that says nothing: only the fields can tell the renderers what it is.
  const Results ratio = with_gate(
      gate_result("custom", true, 0.25, 0.5, "", "", GateKind::ratio, GateBound::at_least));
  EXPECT_NE(console(ratio).find("custom                       25.0000% >= 50.0000%"),
            std::string::npos)
      << console(ratio);
  EXPECT_NE(render_html_report(ratio).find(">≥ 50%<"), std::string::npos);
  EXPECT_NE(run_junit_xml(ratio).find("measured 25.0000% &gt;= 50.0000%"), std::string::npos);

  const Results index = with_gate(
      gate_result("custom", true, 0.25, 0.5, "", "", GateKind::index, GateBound::at_most));
  EXPECT_NE(console(index).find("0.250000 <= 0.500000"), std::string::npos) << console(index);
  EXPECT_NE(render_html_report(index).find(">≤ 0.5<"), std::string::npos);
  EXPECT_NE(run_junit_xml(index).find("measured 0.250000 &lt;= 0.500000"), std::string::npos);

  const Results duration = with_gate(
      gate_result("custom", false, 250000, 200000, "", "", GateKind::duration, GateBound::at_most));
  // Failed: the relation that holds, then the limit (never "250 us <= 200 us").
  EXPECT_NE(console(duration).find("FAIL custom                       250.00 us > 200.00 us "
                                   "(limit <= 200.00 us)"),
            std::string::npos)
      << console(duration);
  EXPECT_EQ(console(duration).find("250.00 us <= 200.00 us"), std::string::npos);
  EXPECT_NE(
      run_junit_xml(duration).find("measured 250.00 us &gt; 200.00 us (limit &lt;= 200.00 us)"),
      std::string::npos);
  const Results low = with_gate(
      gate_result("custom", false, 0.25, 0.5, "", "", GateKind::index, GateBound::at_least));
  EXPECT_NE(console(low).find("0.250000 < 0.500000 (limit >= 0.500000)"), std::string::npos)
      << console(low);
}

// What the reader derives for files without "kind"/"bound" (written before them):
// GateFields.FilesWithoutThemDeriveThemFromNameAndUnit (gate_fields_test.cpp).

}  // namespace
}  // namespace qb::report
