#include "results_invariants.hpp"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace qb::report {
namespace {

using judge::Results;
using judge::ScenarioResult;

// The first broken invariant, with its path and what the writer would have written.
class Checker {
 public:
  explicit Checker(const std::string& source_name) : source_(source_name) {}

  // A rate or byte figure: finite (or NaN where a figure is undefined) and not negative.
  void not_negative(double value, const std::string& path) {
    if (value < 0.0 || std::isinf(value))
      fail(path,
           fmt::format(
               "{} is not a measured figure (the writer never writes a negative or infinite one)",
               value));
  }
  void not_negative(int64_t value, const std::string& path) {
    if (value < 0)
      fail(path, fmt::format("{} is negative (a time the writer measured is >= 0)", value));
  }
  void require(bool holds, const std::string& path, std::string why) {
    if (!holds) fail(path, std::move(why));
  }
  Status status() const { return error_ ? Status(*error_) : Status{}; }

 private:
  void fail(const std::string& path, std::string why) {
    if (!error_)
      error_ = make_error(Errc::invalid_config, "inconsistent results file: " + why, path,
                          SourceLoc{source_});
  }
  std::string source_;
  std::optional<Error> error_;
};

// A [topology]'s graph names its own nodes and channels: a link to an unknown node, or a path
// through a channel no link has, is an edited file (the drawing would have nothing to draw).
void check_topology(const judge::TopologyResult& t, const std::string& at, Checker& check) {
  std::unordered_set<std::string> nodes;
  for (size_t n = 0; n < t.nodes.size(); ++n) {
    check.require(nodes.insert(t.nodes[n].name).second, fmt::format("{}.nodes[{}].name", at, n),
                  fmt::format("the node \"{}\" is listed twice", t.nodes[n].name));
  }
  std::unordered_set<std::string> channels;
  for (size_t l = 0; l < t.links.size(); ++l) {
    const judge::TopologyLink& link = t.links[l];
    for (size_t e = 0; e < link.ends.size(); ++e) {
      check.require(nodes.contains(link.ends[e]), fmt::format("{}.links[{}].ends[{}]", at, l, e),
                    fmt::format("a link to \"{}\", which is not a node", link.ends[e]));
    }
    for (size_t c = 0; c < link.channels.size(); ++c) {
      check.require(channels.insert(link.channels[c]).second,
                    fmt::format("{}.links[{}].channels[{}]", at, l, c),
                    fmt::format("the channel \"{}\" is listed twice", link.channels[c]));
    }
    check.not_negative(link.rate_bps, fmt::format("{}.links[{}].rate_bps", at, l));
    check.not_negative(link.delay_ns, fmt::format("{}.links[{}].delay_ns", at, l));
  }
  for (size_t p = 0; p < t.paths.size(); ++p) {
    for (size_t h = 0; h < t.paths[p].hops.size(); ++h) {
      const std::string& channel = t.paths[p].hops[h].channel;
      check.require(channels.contains(channel),
                    fmt::format("{}.paths[{}].hops[{}].channel", at, p, h),
                    fmt::format("a hop over \"{}\", which no link has", channel));
    }
  }
}

void check_scenario(const ScenarioResult& s, const std::string& at, Checker& check) {
  check.require(
      s.repetitions_completed <= s.repetitions, at + ".repetitions_completed",
      fmt::format("{} repetitions completed of {}", s.repetitions_completed, s.repetitions));
  check.require(uint64_t{s.repetitions_completed} + s.repetitions_partial <= s.repetitions,
                at + ".repetitions_partial",
                fmt::format("{} completed and {} partial repetitions of {}",
                            s.repetitions_completed, s.repetitions_partial, s.repetitions));
  check.not_negative(s.warmup_ns, at + ".warmup_ns");
  check.require(s.duration_ns > 0, at + ".duration_ns",
                fmt::format("a duration of {} ns", s.duration_ns));
  check.not_negative(s.bin_ns, at + ".bin_ns");
  check.not_negative(s.wall_seconds, at + ".wall_seconds");
  check.not_negative(s.capacity_bps, at + ".capacity_bps");
  if (s.repetitions_partial != 0 && !s.measured_ns_reps.empty()) {
    check.require(
        s.measured_ns_reps.size() == uint64_t{s.repetitions_completed} + s.repetitions_partial,
        at + ".measured_ns_reps",
        fmt::format("{} measured times for {} measured repetitions", s.measured_ns_reps.size(),
                    s.repetitions_completed + s.repetitions_partial));
  }
  for (size_t r = 0; r < s.measured_ns_reps.size(); ++r) {
    const std::string path = fmt::format("{}.measured_ns_reps[{}]", at, r);
    check.require(s.measured_ns_reps[r] >= 0 && s.measured_ns_reps[r] <= s.duration_ns, path,
                  fmt::format("a measured time of {} ns outside 0 .. the duration ({} ns)",
                              s.measured_ns_reps[r], s.duration_ns));
  }
  for (size_t f = 0; f < s.flows.size(); ++f) {
    const judge::FlowResult& flow = s.flows[f];
    const std::string path = fmt::format("{}.flows[{}]", at, f);
    check.not_negative(flow.expected_bps, path + ".expected_bps");
    check.not_negative(flow.measured_bps, path + ".measured_bps");
    check.not_negative(flow.measured_payload_bps, path + ".measured_payload_bps");
    for (size_t r = 0; r < flow.measured_bps_reps.size(); ++r) {
      check.not_negative(flow.measured_bps_reps[r],
                         fmt::format("{}.measured_bps_reps[{}]", path, r));
    }
    check.require(
        !(flow.error < -1.0), path + ".error",
        fmt::format("an error of {} (a measured rate is >= 0: error >= -100%)", flow.error));
    for (size_t b = 0; b < flow.series_bps.size(); ++b) {
      check.not_negative(flow.series_bps[b], fmt::format("{}.series_bps[{}]", path, b));
    }
  }
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const std::string path = fmt::format("{}.groups[{}]", at, g);
    check.not_negative(s.groups[g].expected_bps, path + ".expected_bps");
    check.not_negative(s.groups[g].measured_bps, path + ".measured_bps");
  }
  for (size_t q = 0; q < s.queue_depth.size(); ++q) {
    const judge::QueueDepthSeries& series = s.queue_depth[q];
    const std::string path = fmt::format("{}.queue_depth[{}]", at, q);
    for (size_t b = 0; b < series.max_bytes.size(); ++b) {
      check.not_negative(series.max_bytes[b], fmt::format("{}.max_bytes[{}]", path, b));
    }
    for (size_t b = 0; b < series.mean_bytes.size(); ++b) {
      check.not_negative(series.mean_bytes[b], fmt::format("{}.mean_bytes[{}]", path, b));
    }
  }
  check_topology(s.topology, at + ".topology", check);
  const double jain = s.fairness.jain;
  check.require(std::isnan(jain) || (jain >= 0.0 && jain <= 1.0 + 1e-9), at + ".fairness.jain",
                fmt::format("a Jain index of {} (it is within 0..1)", jain));
  // A scenario passes only when every judgement made held.
  for (size_t g = 0; g < s.gates.size(); ++g) {
    const judge::GateResult& gate = s.gates[g];
    check.require(
        !(s.passed && gate.judged && !gate.passed), at + ".passed",
        fmt::format("passed is true, yet its judgement {} (gates[{}]) failed", gate.name, g));
  }
}

}  // namespace

Status check_results_invariants(const Results& results, const std::string& source_name) {
  Checker check(source_name);
  check.not_negative(results.wall_seconds, "wall_seconds");
  for (size_t s = 0; s < results.scenarios.size(); ++s) {
    const ScenarioResult& scenario = results.scenarios[s];
    const std::string at = fmt::format("scenarios[{}]", s);
    check_scenario(scenario, at, check);
    // The run passes only when every scenario passed, the run completed, and no measurement was
    // invalid (a starved worker): an edited `passed` must not print PASSED beside `invalid`.
    check.require(!(results.passed && !scenario.passed), "passed",
                  fmt::format("passed is true, yet scenario \"{}\" failed", scenario.name));
    check.require(!(results.passed && scenario.starvation.invalid), "passed",
                  fmt::format("passed is true, yet scenario \"{}\" is an invalid measurement "
                              "({}.starvation.invalid)",
                              scenario.name, at));
  }
  check.require(!(results.interrupted && results.complete), "complete",
                "complete is true, yet the run was interrupted (interrupted: true)");
  check.require(!(results.passed && !results.complete), "passed",
                "passed is true, yet the run is incomplete (complete: false)");
  check.require(!(results.passed && !results.nic_left_changed.empty()), "passed",
                "passed is true, yet the run left a NIC changed (nic_left_changed)");
  return check.status();
}

}  // namespace qb::report
