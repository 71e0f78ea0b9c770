#include "qb/reports/junit.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "gate_format.hpp"
#include "markup_escape.hpp"
#include "qb/common/units.hpp"

namespace qb::report {
namespace {

std::string format_number(double value) {
  return std::isfinite(value) ? fmt::format("{:.6g}", value) : std::string("n/a");
}

// A compared metric's figure: rates and durations with units, errors as percentages.
std::string metric_figure(const MetricComparison& m, double value) {
  if (!std::isfinite(value)) return "n/a";
  if (m.metric == "measured_bps") return format_rate_bps(value);
  if (m.metric == "abs_error") return fmt::format("{:.4f}%", value * 100.0);
  if (m.metric.starts_with("latency")) return format_duration_ns(value);
  return format_number(value);
}

struct Case {
  std::string classname;
  std::string name;
  std::string failure;  // message; empty: passed
  std::string error;    // message of an <error>; empty: none
  std::string body;     // details: the <failure> text, or <system-out> when passed
  std::string skipped;  // message of a <skipped>: a judgement not made; empty: none
  const char* type = "gate";
};

struct Suite {
  std::string name;
  double time_s = 0.0;
  std::string timestamp;
  std::string hostname;
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<Case> cases;
};

void append_suite(std::string& out, const Suite& suite, size_t& tests, size_t& failures,
                  size_t& errors) {
  size_t suite_failures = 0, suite_errors = 0, suite_skipped = 0;
  for (const Case& c : suite.cases) {
    suite_failures += c.failure.empty() ? 0 : 1;
    suite_errors += c.error.empty() ? 0 : 1;
    suite_skipped += c.skipped.empty() ? 0 : 1;
  }
  tests += suite.cases.size();
  failures += suite_failures;
  errors += suite_errors;
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\"",
      xml_escape(suite.name), suite.cases.size(), suite_failures, suite_errors, suite_skipped,
      std::isfinite(suite.time_s) ? suite.time_s : 0.0);
  if (!suite.timestamp.empty())
    out += fmt::format(" timestamp=\"{}\"", xml_escape(suite.timestamp));
  if (!suite.hostname.empty()) out += fmt::format(" hostname=\"{}\"", xml_escape(suite.hostname));
  out += ">\n";
  if (!suite.properties.empty()) {
    out += "    <properties>\n";
    for (const auto& [name, value] : suite.properties) {
      out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(name),
                         xml_escape(value));
    }
    out += "    </properties>\n";
  }
  for (const Case& c : suite.cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"0\"",
                       xml_escape(c.classname), xml_escape(c.name));
    if (c.failure.empty() && c.error.empty() && c.body.empty() && c.skipped.empty()) {
      out += "/>\n";
      continue;
    }
    out += ">\n";
    if (!c.skipped.empty()) {
      out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c.skipped));
    } else if (!c.error.empty()) {
      out += fmt::format("      <error message=\"{}\" type=\"incomplete\">{}</error>\n",
                         xml_escape(c.error), escape_markup(c.body, false));
    } else if (!c.failure.empty()) {
      out += fmt::format("      <failure message=\"{}\" type=\"{}\">{}</failure>\n",
                         xml_escape(c.failure), c.type, escape_markup(c.body, false));
    } else {
      out += fmt::format("      <system-out>{}</system-out>\n", escape_markup(c.body, false));
    }
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n";
}

std::string document(const std::string& name, const std::vector<Suite>& suites) {
  std::string body;
  size_t tests = 0, failures = 0, errors = 0;
  double time_s = 0.0;
  for (const Suite& suite : suites) {
    append_suite(body, suite, tests, failures, errors);
    if (std::isfinite(suite.time_s)) time_s += suite.time_s;
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"{}\" tests=\"{}\" "
      "failures=\"{}\" errors=\"{}\" time=\"{:.3f}\">\n{}</testsuites>\n",
      xml_escape(name), tests, failures, errors, time_s, body);
}

// "suite.scenario", or the suite's name alone when its one scenario is named like it (a suite
// file without [[scenario]] tables): CI lists would read "two groups.two groups" otherwise.
std::string scenario_label(const std::string& suite, const std::string& scenario) {
  return scenario == suite ? suite : fmt::format("{}.{}", suite, scenario);
}

// Thresholds are written in percent everywhere people read them (console, JUnit, HTML).
std::string threshold_percent(double threshold) {
  return format_number(threshold * 100.0) + "%";
}

Case metric_case(const std::string& classname, const MetricComparison& m, double threshold,
                 bool allow_inconclusive) {
  Case c;
  c.classname = classname;
  c.type = "regression";
  c.name = m.kind == "scenario" ? m.metric : fmt::format("{} {} {}", m.kind, m.subject, m.metric);
  const std::string change = !std::isfinite(m.change) ? std::string("n/a")
                             : m.metric == "abs_error"
                                 ? fmt::format("{:+.4f} percentage points", m.change * 100.0)
                                 : fmt::format("{:+.2f}%", m.change * 100.0);
  const std::string figures = fmt::format(
      "baseline {}, current {}, change {}, p = {:.4g}, q = {:.4g}, threshold {:.2f}% ({} is "
      "better)",
      metric_figure(m, m.baseline), metric_figure(m, m.current), change, m.p_value, m.p_adjusted,
      threshold * 100.0, m.higher_is_better ? "higher" : "lower");
  if (m.regression || (m.inconclusive && !allow_inconclusive)) {
    c.failure =
        (m.regression ? "regression: " : "inconclusive (too few repetitions to judge): ") + figures;
    std::string reps = "baseline repetitions:";
    for (double v : m.baseline_reps) reps += " " + format_number(v);
    reps += "\ncurrent repetitions:";
    for (double v : m.current_reps) reps += " " + format_number(v);
    c.body = reps + "\n";
  } else {
    c.body = (m.improvement ? "improved: " : "") + figures + "\n";
  }
  return c;
}

// One suite per scenario of the comparison, in the order the metrics come.
std::vector<Suite> comparison_suites(const Comparison& comparison) {
  std::vector<Suite> suites;
  std::map<std::string, size_t> index;
  for (const MetricComparison& m : comparison.metrics) {
    const std::string classname = scenario_label(comparison.suite, m.scenario) + ".compare";
    auto [it, added] = index.emplace(m.scenario, suites.size());
    if (added) {
      Suite suite;
      suite.name = classname;
      suite.properties = {{"baseline", comparison.baseline_label},
                          {"current", comparison.current_label},
                          {"threshold", threshold_percent(comparison.options.threshold)},
                          {"alpha", format_number(comparison.options.alpha)},
                          {"test", "two-sided Mann-Whitney U over repetitions"},
                          {"correction", comparison.options.correct_multiple
                                             ? "Benjamini-Hochberg over the testable metrics"
                                             : "none"},
                          {"tested", std::to_string(comparison.tested)}};
      for (size_t i = 0; i < comparison.notes.size(); ++i) {
        suite.properties.emplace_back(fmt::format("note{}", i + 1), comparison.notes[i]);
      }
      suites.push_back(std::move(suite));
    }
    suites[it->second].cases.push_back(metric_case(classname, m, comparison.options.threshold,
                                                   comparison.options.allow_inconclusive));
  }
  return suites;
}

}  // namespace

std::string xml_escape(std::string_view text) {
  return escape_markup(text, true);
}

std::string run_junit_xml(const Results& results, const Comparison* comparison) {
  std::vector<Suite> suites;
  for (const ScenarioResult& scenario : results.scenarios) {
    Suite suite;
    suite.name = scenario_label(results.suite, scenario.name);
    suite.time_s = scenario.wall_seconds;
    suite.timestamp = results.date_utc;
    suite.hostname = results.host;
    suite.properties = {{"driver", results.driver},
                        {"seed", std::to_string(scenario.seed)},
                        {"config_hash", results.config_hash},
                        {"suite_file", results.suite_file},
                        {"tool_version", results.tool_version},
                        {"clock", results.clock},
                        {"repetitions", fmt::format("{}/{}", scenario.repetitions_completed,
                                                    scenario.repetitions)}};
    for (const GateResult& gate : scenario.gates) {
      Case c;
      c.classname = suite.name;
      c.name = gate.name;
      const std::string figures = "measured " + format_gate_relation(gate);
      const std::string detail = gate.detail.empty() ? std::string() : ": " + gate.detail;
      if (!gate.judged) {
        c.skipped = "not judged: " + gate.detail;
      } else if (!gate.passed) {
        c.failure = figures + detail;
        // The same units as the message (ratios in percent), not the JSON's raw fractions.
        c.body = fmt::format("gate {} failed\nvalue: {}\nlimit: {} {}\n{}", gate.name,
                             format_gate_value(gate, gate.value),
                             gate.bound == GateBound::at_least ? ">=" : "<=",
                             format_gate_value(gate, gate.threshold),
                             gate.detail.empty() ? "" : "detail: " + gate.detail + "\n");
      } else {
        c.body = figures + detail + "\n";
      }
      suite.cases.push_back(std::move(c));
    }
    if (!results.complete) {
      Case c;
      c.classname = suite.name;
      c.name = "complete";
      c.error = fmt::format("the run was interrupted: {} of {} repetitions completed",
                            scenario.repetitions_completed, scenario.repetitions);
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  if (comparison != nullptr) {
    for (Suite& suite : comparison_suites(*comparison)) suites.push_back(std::move(suite));
  }
  return document("qosbench: " + results.suite, suites);
}

std::string compare_junit_xml(const Comparison& comparison) {
  return document("qosbench compare: " + comparison.suite, comparison_suites(comparison));
}

}  // namespace qb::report
