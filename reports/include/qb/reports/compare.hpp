// Baseline comparison: per flow, group and scenario metric, the change between two result
// files, a Mann-Whitney U test over the repetitions, and a noise threshold. A regression is a
// change beyond the threshold in the bad direction that is also statistically significant.
#pragma once

#include <string>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/reports/results.hpp"

namespace qb::report {

struct MetricComparison {
  std::string scenario;
  std::string kind;     // "flow", "group" or "scenario"
  std::string subject;  // flow or group name; the scenario name for scenario metrics
  std::string metric;   // "measured_bps", "abs_error", "latency_p50_ns", "latency_p99_ns",
                        // "latency_p999_ns", "jain"
  bool higher_is_better = true;
  double baseline = 0.0;  // mean over repetitions
  double current = 0.0;
  double change = 0.0;    // current / baseline - 1 (for abs_error: current - baseline)
  double p_value = 1.0;   // two-sided Mann-Whitney U; 1 when there are too few repetitions
  bool significant = false;
  bool regression = false;
  bool improvement = false;
  std::vector<double> baseline_reps;
  std::vector<double> current_reps;
};

struct ComparisonOptions {
  double threshold = 0.05;  // relative change treated as noise (0.05 = 5 %)
  double alpha = 0.05;      // significance level of the test
};

struct Comparison {
  std::string suite;
  std::string baseline_label;  // file names (or "baseline"/"current")
  std::string current_label;
  ComparisonOptions options;
  std::vector<MetricComparison> metrics;
  size_t regressions = 0;
  size_t improvements = 0;
  bool regressed() const noexcept { return regressions != 0; }
};

/// Errc::invalid_config when the files cannot be compared: another schema, another suite
/// (name or config hash), or scenarios/flows that do not match.
Result<Comparison> compare_results(const Results& baseline, const Results& current,
                                   const ComparisonOptions& options);

}  // namespace qb::report
