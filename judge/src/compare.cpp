#include "qb/judge/compare.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string_view>

#include "qb/common/units.hpp"

namespace qb::judge {
namespace {

std::vector<double> finite_only(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

double mean(const std::vector<double>& values, double fallback) {
  if (values.empty()) return fallback;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

std::vector<double> as_doubles(const std::vector<int64_t>& values) {
  return {values.begin(), values.end()};
}

// |rep / expected - 1| per repetition: the share error, whose sign does not matter.
std::vector<double> abs_errors(const std::vector<double>& reps, double expected_bps) {
  std::vector<double> out;
  for (double rep : reps) out.push_back(std::fabs(rep / expected_bps - 1.0));
  return out;
}

struct Sample {
  std::vector<double> reps;
  double summary = 0.0;  // the file's own figure, used when it has no repetitions
};

// The completed repetitions of a scenario's per-repetition array: the writer puts partial
// (interrupted) repetitions after the completed ones, so they are its tail.
struct RepCounts {
  size_t completed = 0;
  size_t partial = 0;
};

template <class T>
std::vector<T> completed_only(const std::vector<T>& reps, RepCounts counts) {
  if (counts.partial == 0 || reps.size() != counts.completed + counts.partial) return reps;
  return {reps.begin(), reps.begin() + static_cast<std::ptrdiff_t>(counts.completed)};
}

class Comparer {
 public:
  explicit Comparer(Comparison& out) : out_(out) {}

  void add(const std::string& scenario, const char* kind, const std::string& subject,
           const char* metric, bool higher_is_better, bool absolute_change, const Sample& base,
           const Sample& cur) {
    MetricComparison m;
    m.scenario = scenario;
    m.kind = kind;
    m.subject = subject;
    m.metric = metric;
    m.higher_is_better = higher_is_better;
    m.baseline_reps = finite_only(base.reps);
    m.current_reps = finite_only(cur.reps);
    m.baseline = mean(m.baseline_reps, base.summary);
    m.current = mean(m.current_reps, cur.summary);
    if (absolute_change) {
      m.change = m.current - m.baseline;
    } else if (m.baseline != 0.0) {
      m.change = m.current / m.baseline - 1.0;
    } else {
      m.change = m.current == 0.0
                     ? 0.0
                     : std::copysign(std::numeric_limits<double>::infinity(), m.current);
    }
    const MannWhitney test = mann_whitney_u(m.baseline_reps, m.current_reps);
    m.p_value = test.p_value;
    m.min_p_value = test.min_p_value;
    // Not for latency percentiles: they come from bucketed histograms, so two repetitions often
    // give the same bucket (no spread) while another seed gives the next one (4 of 768 imix
    // percentiles moved > 5 % that way between seeds 1 and 2).
    const bool quantized = std::string_view(metric).starts_with("latency_");
    m.separated = !quantized && separated_beyond_spread(m.baseline_reps, m.current_reps);
    out_.metrics.push_back(std::move(m));
  }

  // measured_bps, abs_error and the latency percentiles of one flow or group.
  // Per-repetition arrays are cut to the completed repetitions (base_counts, cur_counts).
  template <class Subject>
  void add_rates_and_latency(const std::string& scenario, const char* kind, const Subject& base,
                             const Subject& cur, RepCounts base_counts, RepCounts cur_counts) {
    const std::vector<double> base_bps = completed_only(base.measured_bps_reps, base_counts);
    const std::vector<double> cur_bps = completed_only(cur.measured_bps_reps, cur_counts);
    add(scenario, kind, base.name, "measured_bps", true, false, {base_bps, base.measured_bps},
        {cur_bps, cur.measured_bps});
    if (base.expected_bps > 0.0 && cur.expected_bps > 0.0) {
      add(scenario, kind, base.name, "abs_error", false, true,
          {abs_errors(base_bps, base.expected_bps), std::fabs(base.error)},
          {abs_errors(cur_bps, cur.expected_bps), std::fabs(cur.error)});
    }
    // A subject without latency samples on either side has no percentiles to compare.
    if (base.latency.count == 0 || cur.latency.count == 0) return;
    const auto latency = [&](const char* metric, const std::vector<int64_t>& b, int64_t b_summary,
                             const std::vector<int64_t>& c, int64_t c_summary) {
      add(scenario, kind, base.name, metric, false, false,
          {as_doubles(completed_only(b, base_counts)), static_cast<double>(b_summary)},
          {as_doubles(completed_only(c, cur_counts)), static_cast<double>(c_summary)});
    };
    latency("latency_p50_ns", base.latency_reps.p50_ns, base.latency.p50_ns,
            cur.latency_reps.p50_ns, cur.latency.p50_ns);
    latency("latency_p99_ns", base.latency_reps.p99_ns, base.latency.p99_ns,
            cur.latency_reps.p99_ns, cur.latency.p99_ns);
    latency("latency_p999_ns", base.latency_reps.p999_ns, base.latency.p999_ns,
            cur.latency_reps.p999_ns, cur.latency.p999_ns);
  }

 private:
  Comparison& out_;
};

// Many metrics tested at once: at alpha = 0.05 one in twenty unchanged metrics would look
// significant. Benjamini-Hochberg keeps the expected share of false discoveries at alpha.
// A metric whose pooled values cannot give p < alpha in any arrangement (identical
// repetitions on both sides, as the deterministic simulator gives) can never be a discovery
// and is not counted (Tarone's observation for discrete tests; the permutation test is
// conditional on the pooled values, so leaving them out keeps the guarantee).
void judge_metrics(Comparison& out) {
  const ComparisonOptions& options = out.options;
  if (out.exact) {
    // Same code, same seed, virtual time: the same figures. Any change is the code's; one
    // beyond the threshold counts without a test (there is no sampling to test against).
    for (auto& m : out.metrics) {
      const double bad = m.higher_is_better ? -m.change : m.change;
      m.significant = std::isfinite(bad) ? std::fabs(bad) > options.threshold : m.change != 0.0;
      m.regression = m.significant && (bad > options.threshold || (!std::isfinite(bad) && bad > 0));
      m.improvement = m.significant && !m.regression;
      out.regressions += m.regression ? 1 : 0;
      out.improvements += m.improvement ? 1 : 0;
    }
    return;
  }
  std::vector<MetricComparison*> tested;
  for (auto& m : out.metrics) {
    if (m.min_p_value < options.alpha) tested.push_back(&m);
  }
  out.tested = tested.size();
  if (options.correct_multiple) {
    std::vector<double> p_values;
    for (const auto* m : tested) p_values.push_back(m->p_value);
    const std::vector<double> adjusted = benjamini_hochberg(p_values);
    for (size_t i = 0; i < tested.size(); ++i) tested[i]->p_adjusted = adjusted[i];
  } else {
    for (auto* m : tested) m->p_adjusted = m->p_value;
  }
  for (auto& m : out.metrics) {
    // The spread rule decides where the test cannot (2-3 repetitions: p >= 0.1 always).
    m.significant = m.p_adjusted < options.alpha || m.separated;
    const double bad = m.higher_is_better ? -m.change : m.change;
    m.regression = m.significant && bad > options.threshold;
    m.improvement = m.significant && -bad > options.threshold;
    // A bad change beyond the threshold is "not significant" only when a test that could have
    // flagged it at these repetition counts did not. Otherwise nothing here can tell (1
    // repetition a side; 2-3 whose spreads are more than a tenth of the change; bucketed
    // latency percentiles, which the spread rule does not separate): INCONCLUSIVE, never a
    // silent pass.
    const bool test_has_power =
        min_p_value(m.baseline_reps.size(), m.current_reps.size()) < options.alpha;
    m.inconclusive =
        !m.significant && !test_has_power && std::isfinite(bad) && bad > options.threshold;
    out.regressions += m.regression ? 1 : 0;
    out.improvements += m.improvement ? 1 : 0;
    out.inconclusive += m.inconclusive ? 1 : 0;
    out.spread_decided += m.separated && m.min_p_value >= options.alpha ? 1 : 0;
  }
}

// Both runs deterministic (a virtual clock: the simulator) on the same driver with the same
// seeds and repetitions: their figures are exact, not samples.
bool deterministic_pair(const Results& baseline, const Results& current) {
  if (baseline.clock != "virtual" || current.clock != "virtual" ||
      baseline.driver != current.driver || baseline.scenarios.size() != current.scenarios.size()) {
    return false;
  }
  for (size_t s = 0; s < baseline.scenarios.size(); ++s) {
    const ScenarioResult& base = baseline.scenarios[s];
    const ScenarioResult& cur = current.scenarios[s];
    if (base.seed != cur.seed || base.repetitions_completed != cur.repetitions_completed ||
        base.repetitions_partial != 0 || cur.repetitions_partial != 0) {
      return false;
    }
  }
  return true;
}

Error incompatible(std::string message) {
  return make_error(Errc::invalid_config, "cannot compare: " + std::move(message));
}

// The names of `items` as a set; a duplicate name makes the files ambiguous to match.
template <class Item>
Result<std::map<std::string, const Item*>> by_name(const std::vector<Item>& items, const char* what,
                                                   const std::string& label) {
  std::map<std::string, const Item*> out;
  for (const Item& item : items) {
    if (!out.emplace(item.name, &item).second) {
      return incompatible(fmt::format("{} has two {}s named \"{}\"", label, what, item.name));
    }
  }
  return out;
}

// Both files must describe the same things: the same names, whatever their order.
template <class Item>
Result<std::map<std::string, const Item*>> matching(const std::vector<Item>& base,
                                                    const std::vector<Item>& cur, const char* what,
                                                    const std::string& where) {
  auto base_map = by_name(base, what, "the baseline" + where);
  if (!base_map) return std::move(base_map).error();
  auto cur_map = by_name(cur, what, "the current run" + where);
  if (!cur_map) return std::move(cur_map).error();
  for (const auto& [name, item] : *base_map) {
    if (!cur_map->contains(name)) {
      return incompatible(fmt::format("{} \"{}\" is in the baseline{} but not in the current run",
                                      what, name, where));
    }
  }
  for (const auto& [name, item] : *cur_map) {
    if (!base_map->contains(name)) {
      return incompatible(fmt::format("{} \"{}\" is in the current run{} but not in the baseline",
                                      what, name, where));
    }
  }
  return cur_map;
}

}  // namespace

Status check_comparable(const Results& baseline, const std::string& schema,
                        const std::string& suite, const std::string& config_hash,
                        const ComparisonOptions& options, std::vector<std::string>* notes) {
  if (baseline.schema != schema) {
    return incompatible(fmt::format("the baseline has schema \"{}\", the current run \"{}\"",
                                    baseline.schema, schema));
  }
  if (baseline.suite != suite) {
    return incompatible(fmt::format("the baseline is suite \"{}\", the current run suite \"{}\"",
                                    baseline.suite, suite));
  }
  if (baseline.config_hash != config_hash) {
    if (!options.allow_config_change) {
      return incompatible(fmt::format(
          "the suite file changed (config hash {} in the baseline, {} now): record a new "
          "baseline, or allow it with --allow-config-change",
          baseline.config_hash, config_hash));
    }
    if (notes != nullptr) {
      notes->push_back(fmt::format("the suite file changed (config hash {} -> {})",
                                   baseline.config_hash, config_hash));
    }
  }
  return {};
}

Result<Comparison> compare_results(const Results& baseline, const Results& current,
                                   const ComparisonOptions& options) {
  if (!(options.threshold >= 0.0) || !(options.alpha > 0.0 && options.alpha <= 1.0)) {
    return make_error(Errc::usage, fmt::format("threshold must be >= 0 and alpha in (0, 1], got "
                                               "{} and {}",
                                               options.threshold, options.alpha));
  }
  Comparison out;
  out.suite = current.suite;
  out.baseline_label = "baseline";
  out.current_label = "current";
  out.options = options;
  if (auto ok = check_comparable(baseline, current.schema, current.suite, current.config_hash,
                                 options, &out.notes);
      !ok) {
    return std::move(ok).error();
  }
  if (!baseline.complete) out.notes.push_back("the baseline run is incomplete (interrupted)");
  if (!current.complete) out.notes.push_back("the current run is incomplete (interrupted)");
  if (baseline.driver != current.driver) {
    out.notes.push_back(fmt::format("the drivers differ: \"{}\" in the baseline, \"{}\" now",
                                    baseline.driver, current.driver));
  }
  out.exact = deterministic_pair(baseline, current);
  if (out.exact) {
    out.notes.push_back(
        "exact comparison: both runs are the deterministic simulator (virtual time) with the "
        "same seeds, so equal code gives equal figures; every change beyond the threshold "
        "counts, with no statistical test");
  }

  auto scenarios = matching(baseline.scenarios, current.scenarios, "scenario", "");
  if (!scenarios) return std::move(scenarios).error();
  Comparer comparer(out);
  for (const ScenarioResult& base : baseline.scenarios) {
    const ScenarioResult& cur = *scenarios->at(base.name);
    const std::string where = fmt::format(" (scenario \"{}\")", base.name);
    auto flows = matching(base.flows, cur.flows, "flow", where);
    if (!flows) return std::move(flows).error();
    auto groups = matching(base.groups, cur.groups, "group", where);
    if (!groups) return std::move(groups).error();

    const RepCounts base_counts{base.repetitions_completed, base.repetitions_partial};
    const RepCounts cur_counts{cur.repetitions_completed, cur.repetitions_partial};
    for (const auto& [label, counts] :
         {std::pair{"baseline", base_counts}, std::pair{"current run", cur_counts}}) {
      if (counts.partial == 0) continue;
      // Cut short, their rates are over less time and their latency over fewer samples.
      out.notes.push_back(fmt::format(
          "scenario \"{}\": the {}'s {} interrupted (partial) repetition{} left out of the "
          "statistics; {} completed repetition{} compared",
          base.name, label, counts.partial, counts.partial == 1 ? " is" : "s are", counts.completed,
          counts.completed == 1 ? " is" : "s are"));
    }
    const size_t base_reps = base.repetitions_completed, cur_reps = cur.repetitions_completed;
    if (!out.exact && min_p_value(base_reps, cur_reps) >= options.alpha) {
      out.notes.push_back(fmt::format(
          "scenario \"{}\": with {} and {} repetitions the smallest possible p-value is {:.3g}, "
          "not below alpha {}: the test cannot flag a change; only a change beyond 10 times the "
          "repetitions' spread can (use 5 or more repetitions for noisy metrics)",
          base.name, base_reps, cur_reps, min_p_value(base_reps, cur_reps), options.alpha));
    }
    for (const FlowResult& flow : base.flows) {
      comparer.add_rates_and_latency(base.name, "flow", flow, *flows->at(flow.name), base_counts,
                                     cur_counts);
    }
    for (const GroupResult& group : base.groups) {
      comparer.add_rates_and_latency(base.name, "group", group, *groups->at(group.name),
                                     base_counts, cur_counts);
    }
    comparer.add(base.name, "scenario", base.name, "jain", true, false,
                 {completed_only(base.fairness.jain_reps, base_counts), base.fairness.jain},
                 {completed_only(cur.fairness.jain_reps, cur_counts), cur.fairness.jain});
  }
  judge_metrics(out);
  if (out.inconclusive != 0) {
    out.notes.push_back(fmt::format(
        "{} metric{} changed beyond the threshold in the bad direction where neither the test "
        "(too few repetitions) nor the spread rule can decide: INCONCLUSIVE{}",
        out.inconclusive, out.inconclusive == 1 ? "" : "s",
        options.allow_inconclusive
            ? " (allowed by --allow-inconclusive)"
            : "; run more repetitions (5 or more a side give the test power), or accept it "
              "with --allow-inconclusive"));
  }
  return out;
}

const char* Comparison::verdict() const noexcept {
  if (regressed()) return "REGRESSED";
  if (undecided()) return "INCONCLUSIVE";
  return "NO REGRESSION";
}

}  // namespace qb::judge
