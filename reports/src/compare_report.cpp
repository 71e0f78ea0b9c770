#include "qb/reports/compare_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "qb/common/units.hpp"

namespace qb::report {

namespace {

std::string format_value(const std::string& metric, double value) {
  if (!std::isfinite(value)) return "-";
  if (metric == "measured_bps") return format_rate_bps(value);
  if (metric == "abs_error") return fmt::format("{:.3f}%", value * 100.0);
  if (metric.starts_with("latency")) return format_duration_ns(value);
  return fmt::format("{:.5f}", value);
}

std::string format_change(const MetricComparison& m) {
  if (!std::isfinite(m.change)) return m.change > 0 ? "+inf" : "-";
  // abs_error changes are differences of two error ratios: percentage points.
  if (m.metric == "abs_error") return fmt::format("{:+.3f}pp", m.change * 100.0);
  return fmt::format("{:+.2f}%", m.change * 100.0);
}

double bad_change(const MetricComparison& m) {
  return m.higher_is_better ? -m.change : m.change;
}

const char* verdict(const MetricComparison& m, double threshold) {
  if (m.regression) return "REGRESSION";
  if (m.inconclusive) return "INCONCLUSIVE";
  if (m.improvement) return "improved";
  // Beyond the threshold but within what the repetitions' spread explains.
  if (std::fabs(m.change) > threshold) return "not sig.";
  return "ok";
}

// Aggregates first among equals: a scenario's Jain and the groups say more than one flow.
int kind_order(const MetricComparison& m) {
  return m.kind == "scenario" ? 0 : m.kind == "group" ? 1 : 2;
}

int severity(const MetricComparison& m, double threshold) {
  if (m.regression) return 0;
  if (m.inconclusive) return 1;
  if (m.improvement) return 2;
  return std::fabs(m.change) > threshold ? 3 : 4;
}

}  // namespace

void print_comparison(const Comparison& comparison, std::ostream& out, size_t max_rows) {
  if (comparison.exact) {
    fmt::print(out,
               "compare \"{}\": {} -> {} (threshold {:.2f}%; exact: deterministic runs, same "
               "seeds)\n",
               comparison.suite, comparison.baseline_label, comparison.current_label,
               comparison.options.threshold * 100.0);
    fmt::print(out, "{} metrics compared; {} changed beyond the threshold\n",
               comparison.metrics.size(), comparison.regressions + comparison.improvements);
  } else {
    fmt::print(out,
               "compare \"{}\": {} -> {} (threshold {:.2f}%, alpha {}, Mann-Whitney U over "
               "repetitions)\n",
               comparison.suite, comparison.baseline_label, comparison.current_label,
               comparison.options.threshold * 100.0, comparison.options.alpha);
    // Every flagged row is explained by one of the two counts.
    fmt::print(out,
               "{} of {} metrics vary enough to be tested{}; {} more decided by the spread rule "
               "(means apart by more than {:g} times the repetitions' spread)\n",
               comparison.tested, comparison.metrics.size(),
               comparison.options.correct_multiple && comparison.tested > 1
                   ? " (q: p adjusted for testing them all, Benjamini-Hochberg)"
                   : "",
               comparison.spread_decided, judge::kSpreadSeparationFactor);
  }
  for (const auto& note : comparison.notes) fmt::print(out, "note: {}\n", note);

  std::vector<const MetricComparison*> rows;
  for (const auto& m : comparison.metrics) rows.push_back(&m);
  // Regressions first, then improvements, then the rest by the size of the bad change.
  const double threshold = comparison.options.threshold;
  std::stable_sort(rows.begin(), rows.end(),
                   [&](const MetricComparison* a, const MetricComparison* b) {
                     if (severity(*a, threshold) != severity(*b, threshold)) {
                       return severity(*a, threshold) < severity(*b, threshold);
                     }
                     if (bad_change(*a) != bad_change(*b)) return bad_change(*a) > bad_change(*b);
                     return kind_order(*a) < kind_order(*b);
                   });
  bool multi_scenario = false;
  for (const auto* m : rows)
    multi_scenario = multi_scenario || m->scenario != rows.front()->scenario;

  constexpr const char* kRow = "  {:<10} {:<28} {:<16} {:>16} {:>16} {:>10} {:>8} {:>8}\n";
  fmt::print(out, kRow, "verdict", "subject", "metric", "baseline", "current", "change", "p", "q");
  size_t shown = 0, hidden = 0;
  for (const auto* m : rows) {
    if (severity(*m, threshold) == 4 && shown >= max_rows) {
      ++hidden;
      continue;
    }
    ++shown;
    std::string subject =
        m->kind == "scenario" ? m->subject : fmt::format("{} {}", m->kind, m->subject);
    if (multi_scenario && m->kind != "scenario") subject = m->scenario + ": " + subject;
    fmt::print(out, kRow, verdict(*m, threshold), subject, m->metric,
               format_value(m->metric, m->baseline), format_value(m->metric, m->current),
               format_change(*m), fmt::format("{:.3g}", m->p_value),
               fmt::format("{:.3g}", m->p_adjusted));
  }
  if (hidden != 0) fmt::print(out, "  ... and {} more metrics within noise\n", hidden);
  const std::string inconclusive =
      comparison.inconclusive == 0 ? "" : fmt::format(", {} inconclusive", comparison.inconclusive);
  fmt::print(out, "{}: {} regression{}{}, {} improvement{}, {} metrics compared\n",
             comparison.verdict(), comparison.regressions, comparison.regressions == 1 ? "" : "s",
             inconclusive, comparison.improvements, comparison.improvements == 1 ? "" : "s",
             comparison.metrics.size());
}

std::string comparison_to_json(const Comparison& comparison, int indent) {
  using Json = nlohmann::ordered_json;
  const auto number = [](double v) { return std::isfinite(v) ? Json(v) : Json(nullptr); };
  const auto numbers = [&](const std::vector<double>& values) {
    Json out = Json::array();
    for (double v : values) out.push_back(number(v));
    return out;
  };
  Json metrics = Json::array();
  for (const auto& m : comparison.metrics) {
    metrics.push_back(Json{{"scenario", m.scenario},
                           {"kind", m.kind},
                           {"subject", m.subject},
                           {"metric", m.metric},
                           {"higher_is_better", m.higher_is_better},
                           {"baseline", number(m.baseline)},
                           {"current", number(m.current)},
                           {"change", number(m.change)},
                           {"p_value", number(m.p_value)},
                           {"p_adjusted", number(m.p_adjusted)},
                           {"min_p_value", number(m.min_p_value)},
                           {"separated", m.separated},
                           {"significant", m.significant},
                           {"regression", m.regression},
                           {"improvement", m.improvement},
                           {"inconclusive", m.inconclusive},
                           {"baseline_reps", numbers(m.baseline_reps)},
                           {"current_reps", numbers(m.current_reps)}});
  }
  Json root{{"schema", "qosbench.compare/1"},
            {"suite", comparison.suite},
            {"baseline", comparison.baseline_label},
            {"current", comparison.current_label},
            {"threshold", comparison.options.threshold},
            {"alpha", comparison.options.alpha},
            {"correction", comparison.options.correct_multiple ? "benjamini-hochberg" : "none"},
            {"tested", comparison.tested},
            {"spread_decided", comparison.spread_decided},
            {"exact", comparison.exact},
            {"allow_inconclusive", comparison.options.allow_inconclusive},
            {"verdict", comparison.verdict()},
            {"regressed", comparison.regressed()},
            {"regressions", comparison.regressions},
            {"inconclusive", comparison.inconclusive},
            {"improvements", comparison.improvements},
            {"notes", comparison.notes},
            {"metrics", std::move(metrics)}};
  return root.dump(indent) + "\n";
}

}  // namespace qb::report
