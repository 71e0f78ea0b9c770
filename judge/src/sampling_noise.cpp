#include "qb/judge/sampling_noise.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace qb::judge {
namespace {

// Its share, while it runs, is what it offers: its own arrivals decide what it sends. Judged on
// the oracle's shares (every epoch it is active in), not on a time-weighted mean, which is
// below the offer for a flow that joined late.
bool offered_limited(const suite::CompiledScenario& compiled, size_t f) noexcept {
  const double offered = compiled.offered_bps[f];
  if (!std::isfinite(offered)) return false;
  if (compiled.epochs.empty()) return compiled.expected.flow_bps[f] >= offered * (1.0 - 1e-9);
  for (const suite::ExpectationEpoch& epoch : compiled.epochs) {
    if (epoch.flow_bps[f] > 0.0 && epoch.flow_bps[f] < offered * (1.0 - 1e-9)) return false;
  }
  return true;
}

// The regularised incomplete beta function I_x(a, b), by its continued fraction (modified
// Lentz), for the Student t distribution below.
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incomplete_beta(b, a, 1.0 - x);
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x)) /
                       a;
  constexpr double kTiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
  double f = d;
  for (int m = 1; m <= 300; ++m) {
    for (const bool odd : {false, true}) {
      const double numerator =
          odd ? -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0))
              : m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
      d = 1.0 + numerator * d;
      d = 1.0 / (std::fabs(d) < kTiny ? kTiny : d);
      c = 1.0 + numerator / c;
      c = std::fabs(c) < kTiny ? kTiny : c;
      f *= c * d;
    }
    if (std::fabs(c * d - 1.0) < 1e-14) break;
  }
  return front * f;
}

// P(|T| > t) for Student's t with `dof` degrees of freedom.
double student_two_sided_tail(double t, double dof) {
  return incomplete_beta(dof / 2.0, 0.5, dof / (dof + t * t));
}

}  // namespace

double student_quantile(size_t dof, double confidence) {
  const double tail = 1.0 - confidence;
  double low = 0.0, high = 1e7;
  for (int i = 0; i < 300 && high - low > 1e-9 * std::max(1.0, high); ++i) {
    const double mid = 0.5 * (low + high);
    if (student_two_sided_tail(mid, static_cast<double>(std::max<size_t>(dof, 1))) > tail) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return high;
}

double noise_quantile(size_t judged, double confidence) {
  const double tail = (1.0 - confidence) / static_cast<double>(std::max<size_t>(judged, 1));
  // P(|N(0,1)| > z) = erfc(z / sqrt 2): decreasing in z; bisection to well below 1e-6.
  double low = 0.0, high = 40.0;
  for (int i = 0; i < 200 && high - low > 1e-9; ++i) {
    const double mid = 0.5 * (low + high);
    if (std::erfc(mid / std::sqrt(2.0)) > tail) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return high;
}

std::vector<double> model_noise(const suite::CompiledScenario& compiled, const NoiseInput& input) {
  const size_t flows = compiled.plan.flows.size();
  std::vector<double> noise(flows, 0.0);
  std::vector<bool> held(flows, false);
  double pooled_variance_bps2 = 0.0;  // absolute noise the offered-load flows leave
  double held_expected_bps = 0.0;
  const double span_s = static_cast<double>(std::max<int64_t>(input.span_ns, 1)) * 1e-9;
  for (size_t f = 0; f < flows; ++f) {
    const double expected = input.expected_bps[f];
    const double active_s = static_cast<double>(std::max<int64_t>(input.active_ns[f], 0)) * 1e-9;
    const double wire_bits = compiled.mean_wire_bytes[f] * 8.0;
    if (!(expected > 0.0) || !(active_s > 0.0) || !(wire_bits > 0.0)) continue;
    // Messages expected in the span: the expectation is over the whole span. The receiver
    // counts packets, so the window's edges cut at one packet, not one message.
    const double messages = std::max(expected * span_s / wire_bits, 1.0);
    const double packet_bits = compiled.mean_packet_wire_bytes[f] * 8.0;
    const double packets =
        packet_bits > 0.0 ? std::max(expected * span_s / packet_bits, 1.0) : messages;
    const double granularity = 1.0 / packets;  // one packet more or less
    if (!offered_limited(compiled, f)) {
      held[f] = true;
      held_expected_bps += expected;
      noise[f] = granularity;
      continue;
    }
    const gen::ArrivalSpec& arrival = compiled.scenario->flows[compiled.flow_spec[f]].arrival;
    const double cv = compiled.wire_bytes_cv[f];
    double variance = granularity * granularity;
    switch (arrival.kind) {
      case gen::ArrivalSpec::Kind::poisson:
        variance += (1.0 + cv * cv) / messages;
        break;
      case gen::ArrivalSpec::Kind::cbr:
        // A bit rate spaces messages by their size: the bytes are exact but for the window's
        // edges; a message rate leaves the sizes to chance.
        if (!(arrival.rate_bps > 0.0)) variance += cv * cv / messages;
        break;
      case gen::ArrivalSpec::Kind::onoff:
        // Its on windows are counted exactly in the expectation (expectation_window.cpp):
        // only the sizes are left to chance, as for CBR.
        if (!(arrival.rate_bps > 0.0)) variance += cv * cv / messages;
        break;
      case gen::ArrivalSpec::Kind::saturate:
        break;
    }
    noise[f] = std::sqrt(variance);
    pooled_variance_bps2 += (noise[f] * expected) * (noise[f] * expected);
  }
  if (held_expected_bps > 0.0 && pooled_variance_bps2 > 0.0) {
    const double pooled_bps = std::sqrt(pooled_variance_bps2);
    for (size_t f = 0; f < flows; ++f) {
      if (!held[f]) continue;
      const double absorbed = pooled_bps / held_expected_bps;  // relative, same for each
      noise[f] = std::sqrt(noise[f] * noise[f] + absorbed * absorbed);
    }
  }
  return noise;
}

double noise_of_mean(double model_noise_one, std::span<const double> reps_bps, double mean_bps) {
  const size_t n = reps_bps.size();
  double noise = model_noise_one / std::sqrt(static_cast<double>(std::max<size_t>(n, 1)));
  if (n >= 2 && mean_bps > 0.0) {
    double sum_squares = 0.0;
    for (const double rep : reps_bps) sum_squares += (rep - mean_bps) * (rep - mean_bps);
    // A standard error from a few repetitions is itself uncertain: widened by Student's t over
    // the normal quantile (at 99 %: x24.7 for 2 repetitions, x3.9 for 3, x1.3 for 10), so z
    // times it is the t interval.
    const double standard_error =
        std::sqrt(sum_squares / static_cast<double>(n - 1) / static_cast<double>(n));
    const double widening = student_quantile(n - 1) / noise_quantile(1);
    noise = std::max(noise, standard_error * widening / mean_bps);
  }
  return noise;
}

double noise_of_sum(std::span<const double> noise, std::span<const double> expected_bps) {
  double variance = 0.0, total = 0.0;
  for (size_t i = 0; i < noise.size() && i < expected_bps.size(); ++i) {
    variance += (noise[i] * expected_bps[i]) * (noise[i] * expected_bps[i]);
    total += expected_bps[i];
  }
  return total > 0.0 ? std::sqrt(variance) / total : 0.0;
}

int64_t span_for_noise(int64_t span_ns, double noise_now, double target) {
  if (!(target > 0.0) || !(noise_now > target)) return span_ns;
  const double needed = static_cast<double>(span_ns) * (noise_now / target) * (noise_now / target);
  if (!(needed < static_cast<double>(std::numeric_limits<int64_t>::max()))) {
    return std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(std::ceil(needed));
}

}  // namespace qb::judge
