// JUnit XML: well-formed whatever the names contain, one case per gate or compared metric,
// counts that add up, failures that carry the measured value, the threshold and the detail.
#include "qb/reports/junit.hpp"

#include <gtest/gtest.h>

#include "results_fixture.hpp"
#include "xml_check.hpp"

namespace qb::report {
namespace {

using qb::testing::parse_xml;
using qb::testing::XmlElement;

size_t count_attr(const XmlElement& e, const char* key) {
  return static_cast<size_t>(std::stoul(e.attr(key)));
}

TEST(XmlEscape, MarkupControlCharactersAndBadUtf8) {
  EXPECT_EQ(xml_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(xml_escape("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
  EXPECT_EQ(xml_escape(std::string("a\0b\x1b", 4)),
            "a\xEF\xBF\xBD"
            "b\xEF\xBF\xBD");
  EXPECT_EQ(xml_escape("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(xml_escape("\xC3"), "\xEF\xBF\xBD");                  // truncated sequence
  EXPECT_EQ(xml_escape("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong '/'
  EXPECT_EQ(xml_escape("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(xml_escape("\xEF\xBF\xBE"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // U+FFFE
}

TEST(Junit, RunHasOneCasePerGateWithPropertiesAndFailures) {
  const Results results = testing::sample_results(5);
  const std::string xml = run_junit_xml(results);
  const auto root = parse_xml(xml);
  EXPECT_EQ(root->name, "testsuites");
  EXPECT_EQ(count_attr(*root, "tests"), 2u);
  EXPECT_EQ(count_attr(*root, "failures"), 1u);
  EXPECT_EQ(count_attr(*root, "errors"), 0u);
  const auto suites = root->all("testsuite");
  ASSERT_EQ(suites.size(), 1u);
  // The scenario is named like its suite: the name is not repeated.
  EXPECT_EQ(suites[0]->attr("name"), "two groups");
  EXPECT_EQ(suites[0]->attr("hostname"), "host \"quoted\" <x>");
  std::map<std::string, std::string> properties;
  for (const auto* p : suites[0]->all("property")) properties[p->attr("name")] = p->attr("value");
  EXPECT_EQ(properties["driver"], "sim");
  EXPECT_EQ(properties["seed"], "7");
  EXPECT_EQ(properties["config_hash"], "0123456789abcdef");
  const auto cases = suites[0]->all("testcase");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]->attr("classname"), "two groups");
  EXPECT_EQ(cases[0]->attr("name"), "max_share_error");
  EXPECT_EQ(cases[0]->child("failure"), nullptr);
  EXPECT_EQ(cases[1]->attr("name"), "latency.p99[g1-qp]");
  const XmlElement* failure = cases[1]->child("failure");
  ASSERT_NE(failure, nullptr);
  const std::string message = failure->attr("message");
  // The relation that holds, then the limit; the body in the same units.
  EXPECT_NE(message.find("measured 250.00 us > 200.00 us (limit <= 200.00 us)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("1000 samples & <more>"), std::string::npos) << message;
  EXPECT_NE(failure->text.find("limit: <= 200.00 us"), std::string::npos) << failure->text;
}

TEST(Junit, ScenarioNamesOtherThanTheSuitesAreKept) {
  Results results = testing::sample_results(5);
  results.scenarios[0].name = "incast";
  const auto root = parse_xml(run_junit_xml(results));
  EXPECT_EQ(root->all("testsuite")[0]->attr("name"), "two groups.incast");
  EXPECT_EQ(root->all("testcase")[0]->attr("classname"), "two groups.incast");
}

TEST(Junit, HostileNamesStayWellFormed) {
  Results results = testing::sample_results(5);
  results.suite = "<suite name=\"x\">&amp;]]>";
  results.scenarios[0].name = "s'\"<>&\x01\xFF";
  results.scenarios[0].gates[0].name = "max_share_error</testcase><testcase name=\"evil\">";
  results.scenarios[0].gates[1].detail = "a\nb\tc\r<![CDATA[x]]>";
  results.scenarios[0].gates[1].passed = true;
  const auto root = parse_xml(run_junit_xml(results));
  const auto cases = root->all("testcase");
  ASSERT_EQ(cases.size(), 2u);
  EXPECT_EQ(cases[0]->attr("name"), "max_share_error</testcase><testcase name=\"evil\">");
  EXPECT_EQ(cases[0]->attr("classname"),
            "<suite name=\"x\">&amp;]]>.s'\"<>&\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(count_attr(*root, "failures"), 0u);
}

TEST(Junit, IncompleteRunAddsAnError) {
  Results results = testing::sample_results(5);
  results.complete = false;
  results.scenarios[0].repetitions_completed = 2;
  const auto root = parse_xml(run_junit_xml(results));
  EXPECT_EQ(count_attr(*root, "tests"), 3u);
  EXPECT_EQ(count_attr(*root, "errors"), 1u);
  const auto errors = root->all("error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0]->attr("message").find("2 of 5"), std::string::npos);
}

TEST(Junit, CompareHasOneCasePerMetricAndFailsOnRegressions) {
  auto comparison =
      compare_results(testing::sample_results(5), testing::sample_results(5, 0.9), {});
  ASSERT_TRUE(comparison);
  const auto root = parse_xml(compare_junit_xml(*comparison));
  EXPECT_EQ(count_attr(*root, "tests"), comparison->metrics.size());
  EXPECT_EQ(count_attr(*root, "failures"), comparison->regressions);
  const auto cases = root->all("testcase");
  ASSERT_EQ(cases.size(), comparison->metrics.size());
  size_t failures = 0;
  for (const auto* c : cases) {
    EXPECT_EQ(c->attr("classname"), "two groups.compare");
    if (const XmlElement* failure = c->child("failure")) {
      ++failures;
      EXPECT_EQ(failure->attr("type"), "regression");
      EXPECT_NE(failure->attr("message").find("p = 0.007937"), std::string::npos)
          << failure->attr("message");
    }
  }
  EXPECT_EQ(failures, 4u);
  bool found = false;
  for (const auto* c : cases) {
    if (c->attr("name") == "flow g2-qp measured_bps") {
      found = true;
      ASSERT_NE(c->child("failure"), nullptr);
      EXPECT_NE(c->child("failure")->attr("message").find("-10.00%"), std::string::npos);
    }
  }
  EXPECT_TRUE(found);
}

TEST(Junit, RunWithComparisonCarriesBoth) {
  const Results current = testing::sample_results(5, 0.9);
  auto comparison = compare_results(testing::sample_results(5), current, {});
  ASSERT_TRUE(comparison);
  const auto root = parse_xml(run_junit_xml(current, &*comparison));
  EXPECT_EQ(root->all("testsuite").size(), 2u);
  EXPECT_EQ(count_attr(*root, "tests"), 2u + comparison->metrics.size());
  EXPECT_EQ(count_attr(*root, "failures"), 1u + comparison->regressions);
  size_t sum_tests = 0;
  for (const auto* suite : root->all("testsuite")) {
    EXPECT_EQ(count_attr(*suite, "tests"), suite->all("testcase").size());
    EXPECT_EQ(count_attr(*suite, "failures"), suite->all("failure").size());
    sum_tests += count_attr(*suite, "tests");
  }
  EXPECT_EQ(sum_tests, count_attr(*root, "tests"));
}

TEST(XmlChecker, RejectsMalformedDocuments) {
  // The checker itself must catch what it is meant to catch.
  for (const char* bad : {"<a>", "<a></b>", "<a x=1/>", "<a>&foo;</a>", "<a x=\"<\"/>",
                          "<a>\x01</a>", "<a/><b/>", "<a x=\"1\" x=\"2\"/>", "<a>&</a>"}) {
    EXPECT_THROW(parse_xml(bad), std::runtime_error) << bad;
  }
  EXPECT_NO_THROW(parse_xml("<?xml version=\"1.0\"?>\n<a x='1'><b/>t&amp;&#10;</a>\n"));
}

}  // namespace
}  // namespace qb::report
