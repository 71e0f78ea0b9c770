// How far a flow's measured rate may stray from its expectation by chance alone, so that a share
// judgement fails on what the policy did, not on how few messages a window holds. The model and
// what the confidence means: docs/ci-gating.md, "Sampling noise".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "qb/suite/compile.hpp"

namespace qb::judge {

/// Each noise-aware judgement holds at this confidence over all its rows: a scenario whose flows
/// all got their expectation fails a given share judgement by chance with at most 1 %.
inline constexpr double kNoiseConfidence = 0.99;

/// The two-sided normal quantile for `judged` simultaneous comparisons at `confidence`
/// (Bonferroni): z with P(|N(0,1)| > z) = (1 - confidence) / judged.
double noise_quantile(size_t judged, double confidence = kNoiseConfidence);

/// The two-sided quantile of Student's t with `dof` degrees of freedom at `confidence`.
double student_quantile(size_t dof, double confidence = kNoiseConfidence);

/// What the noise of each flow instance is computed from over one measured span.
struct NoiseInput {
  std::vector<double> expected_bps;  // per flow: its expectation over the span (wire bit/s)
  std::vector<int64_t> active_ns;    // per flow: the part of the span it was sending
  int64_t span_ns = 0;               // the span measured (a repetition's window, or a part)
};

/// Per flow instance: the relative standard uncertainty (1 sigma) of its rate measured over one
/// span, from the arrival process and the message sizes alone:
///  - poisson: sqrt(1 + cv^2) / sqrt(N), N the messages expected in the span, cv that of the
///    wire bytes per message;
///  - cbr: the sizes' cv / sqrt(N) when the rate is in messages/s (0 when in bit/s: gaps follow
///    the sizes), plus one packet of window granularity (1 / P, P the packets in the span);
///  - onoff: as cbr (its on windows inside the span are in its expectation exactly:
///    expectation_window.hpp);
///  - a flow held below what it offers (saturating, capped, or a share smaller than its load):
///    one packet of granularity, plus its part of the noise the offered-load flows leave to be
///    redistributed (their absolute noise pooled, shared in proportion to the held flows'
///    expectations).
/// Flows with no expectation (not started) get 0.
std::vector<double> model_noise(const suite::CompiledScenario& compiled, const NoiseInput& input);

/// The relative standard uncertainty of a mean over repetitions: the model's for one span over
/// sqrt(n), or the repetitions' own standard error when larger (n >= 2), widened by
/// student_quantile(n - 1) / noise_quantile(1) for how little a few repetitions say.
double noise_of_mean(double model_noise_one, std::span<const double> reps_bps, double mean_bps);

/// The relative uncertainty of a sum of flows with relative uncertainties `noise` and
/// expectations `expected_bps` (independent: absolute uncertainties added in quadrature).
double noise_of_sum(std::span<const double> noise, std::span<const double> expected_bps);

/// The window needed for a relative noise `noise_now` measured over `span_ns` to fall to
/// `target` (noise falls with the square root of the span): span * (noise_now / target)^2.
int64_t span_for_noise(int64_t span_ns, double noise_now, double target);

}  // namespace qb::judge
