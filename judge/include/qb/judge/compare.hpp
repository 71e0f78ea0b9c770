// Baseline comparison: per flow, group and scenario metric, the change between two result
// files, a Mann-Whitney U test over the repetitions, and a noise threshold. A regression is a
// change beyond the threshold in the bad direction that is also statistically significant (or
// far beyond the repetitions' spread); such a change that neither can judge is INCONCLUSIVE.
#pragma once

#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/judge/results.hpp"
#include "qb/judge/statistics.hpp"

namespace qb::judge {

struct MetricComparison {
  std::string scenario;
  std::string kind;     // "flow", "group" or "scenario"
  std::string subject;  // flow or group name; the scenario name for scenario metrics
  std::string metric;   // "measured_bps", "abs_error", "latency_p50_ns", "latency_p99_ns",
                        // "latency_p999_ns", "jain"
  bool higher_is_better = true;
  double baseline = 0.0;  // mean over repetitions
  double current = 0.0;
  double change = 0.0;   // current / baseline - 1 (for abs_error: current - baseline)
  double p_value = 1.0;  // two-sided Mann-Whitney U; 1 when there are too few repetitions
  /// p_value adjusted for testing many metrics at once (Benjamini-Hochberg over the metrics
  /// whose values can reach p < alpha at all; see docs/ci-gating.md); 1 for the others.
  /// `significant` is p_adjusted < alpha (p_value < alpha with the correction turned off).
  double p_adjusted = 1.0;
  /// The smallest p-value any arrangement of these pooled values could give (1 when they
  /// are all equal): a metric with min_p_value >= alpha is no test and not counted.
  double min_p_value = 1.0;
  /// Throughput, share error and Jain only (not the bucketed latency percentiles): the means
  /// are apart by more than 10 times the larger spread of the repetitions (see
  /// separated_beyond_spread), a change too clear to need the test, which has no power at 2-3
  /// repetitions. `significant` also holds then.
  bool separated = false;
  bool significant = false;
  bool regression = false;
  bool improvement = false;
  /// A change beyond the threshold in the bad direction that nothing here can judge: the test
  /// has no power at these repetition counts (min_p_value(n, m) >= alpha) and the spread rule
  /// does not separate the means (1 repetition a side, or spreads overlapping the change).
  bool inconclusive = false;
  /// Completed repetitions only: an interrupted repetition's figures are left out.
  std::vector<double> baseline_reps;
  std::vector<double> current_reps;
};

struct ComparisonOptions {
  double threshold = 0.05;  // relative change treated as noise (0.05 = 5 %)
  double alpha = 0.05;      // significance level of the test
  /// Compare files whose config_hash differs (the suite file was edited); scenario, flow and
  /// group names must still match.
  bool allow_config_change = false;
  /// Control the false discovery rate over all metrics (Benjamini-Hochberg). Off: every
  /// metric is tested at alpha alone, and a suite with many flows raises false alarms.
  bool correct_multiple = true;
  /// INCONCLUSIVE metrics do not fail the comparison (they are still listed).
  bool allow_inconclusive = false;
};

struct Comparison {
  std::string suite;
  std::string baseline_label;  // file names (or "baseline"/"current")
  std::string current_label;
  ComparisonOptions options;
  std::vector<MetricComparison> metrics;
  size_t regressions = 0;
  size_t improvements = 0;
  /// Things the reader of a comparison must know (too few repetitions for any significance,
  /// an incomplete run, a changed config), in plain sentences.
  std::vector<std::string> notes;
  size_t inconclusive = 0;
  size_t tested = 0;  // metrics that could reach p < alpha: the count of the correction
  /// Metrics flagged by the spread rule alone (the test could not reach alpha for them).
  size_t spread_decided = 0;
  /// Both runs deterministic with equal seeds (deterministic_pair): every change beyond the
  /// threshold is a regression or an improvement, no test.
  bool exact = false;
  bool regressed() const noexcept { return regressions != 0; }
  /// INCONCLUSIVE metrics that count (not allowed by the options).
  bool undecided() const noexcept { return inconclusive != 0 && !options.allow_inconclusive; }
  /// The comparison fails the gate: a regression, or a change nothing could judge.
  bool failed() const noexcept { return regressed() || undecided(); }
  /// "REGRESSED", "INCONCLUSIVE" or "NO REGRESSION".
  const char* verdict() const noexcept;
};

/// Errc::invalid_config when the files cannot be compared: another schema, another suite
/// (name or config hash), or scenarios/flows that do not match.
Result<Comparison> compare_results(const Results& baseline, const Results& current,
                                   const ComparisonOptions& options);

/// The part of compare_results' compatibility check that needs no current results: the schema,
/// the suite name and the config hash. `run --baseline` calls it before running anything.
/// Notes (a config change that is allowed) are appended to `notes` when given.
Status check_comparable(const Results& baseline, const std::string& schema,
                        const std::string& suite, const std::string& config_hash,
                        const ComparisonOptions& options,
                        std::vector<std::string>* notes = nullptr);

}  // namespace qb::judge
