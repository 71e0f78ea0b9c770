#include "qb/generators/arrival_process.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "qb/common/units.hpp"

namespace qb::gen {

namespace {

const char* kind_name(ArrivalSpec::Kind kind) noexcept {
  switch (kind) {
    case ArrivalSpec::Kind::saturate:
      return "saturate";
    case ArrivalSpec::Kind::cbr:
      return "cbr";
    case ArrivalSpec::Kind::poisson:
      return "poisson";
    case ArrivalSpec::Kind::onoff:
      return "onoff";
  }
  return "?";
}

bool positive_finite(double x) noexcept {
  return x > 0.0 && std::isfinite(x);
}

/// Floor division for a possibly negative numerator and a positive divisor.
int64_t floor_div(int64_t a, int64_t b) noexcept {
  const int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

}  // namespace

double ArrivalSpec::mean_messages_per_s(double mean_message_bytes) const noexcept {
  if (kind == Kind::saturate) return std::numeric_limits<double>::infinity();
  const double while_sending =
      rate_pps > 0.0 ? rate_pps : rate_bps / (8.0 * mean_message_bytes);
  if (kind != Kind::onoff) return while_sending;
  if (on_ns + off_ns <= 0) return 0.0;
  return while_sending * (static_cast<double>(on_ns) / static_cast<double>(on_ns + off_ns));
}

Status ArrivalSpec::validate() const {
  const char* name = kind_name(kind);
  if (kind == Kind::saturate) {
    if (outstanding == 0) {
      return make_error(Errc::invalid_config,
                        "saturate needs at least 1 outstanding message per QP");
    }
    if (rate_bps != 0.0 || rate_pps != 0.0) {
      return make_error(Errc::invalid_config,
                        "saturate takes no rate (it keeps `outstanding` messages in flight); "
                        "use cbr, poisson or onoff for a rate");
    }
  } else {
    if (std::isnan(rate_bps) || std::isnan(rate_pps) || rate_bps < 0.0 || rate_pps < 0.0 ||
        std::isinf(rate_bps) || std::isinf(rate_pps)) {
      return make_error(Errc::invalid_config,
                        fmt::format("{} rate must be a finite positive number", name));
    }
    if (rate_bps > 0.0 && rate_pps > 0.0) {
      return make_error(
          Errc::invalid_config,
          fmt::format("{} takes either a bit rate or a message rate, not both", name));
    }
    if (rate_bps == 0.0 && rate_pps == 0.0) {
      return make_error(Errc::invalid_config,
                        fmt::format("{} needs a rate > 0 (bit/s or messages/s)", name));
    }
  }
  if (kind == Kind::onoff) {
    if (on_ns <= 0) {
      return make_error(Errc::invalid_config, "onoff needs an on duration > 0");
    }
    if (off_ns < 0) {
      return make_error(Errc::invalid_config, "onoff off duration must be >= 0");
    }
    if (off_ns > std::numeric_limits<int64_t>::max() - on_ns) {
      return make_error(Errc::invalid_config, "onoff period (on + off) is too long");
    }
  } else if (on_ns != 0 || off_ns != 0) {
    return make_error(Errc::invalid_config,
                      fmt::format("on/off durations only apply to onoff, not {}", name));
  }
  return {};
}

ArrivalProcess::ArrivalProcess(const ArrivalSpec& spec, double mean_message_bytes) : spec_(spec) {
  if (spec.kind == ArrivalSpec::Kind::saturate) return;
  if (positive_finite(spec.rate_bps)) {
    ns_per_byte_ = 8e9 / spec.rate_bps;
    mean_gap_ns_ = mean_message_bytes * ns_per_byte_;
  } else if (positive_finite(spec.rate_pps)) {
    mean_gap_ns_ = 1e9 / spec.rate_pps;
  }
  // An invalid spec (validate() says why) schedules nothing rather than looping or crashing.
  usable_ = ns_per_byte_ > 0.0 || mean_gap_ns_ > 0.0;
  if (spec.kind == ArrivalSpec::Kind::poisson) usable_ = positive_finite(mean_gap_ns_);
  if (spec.kind == ArrivalSpec::Kind::onoff) {
    usable_ = usable_ && spec.on_ns > 0 && spec.off_ns >= 0 &&
              spec.off_ns <= std::numeric_limits<int64_t>::max() - spec.on_ns;
  }
  cbr_ = usable_ && spec.kind == ArrivalSpec::Kind::cbr;
  if (cbr_) {
    cbr_per_byte_ = ns_per_byte_ > 0.0;
    cbr_gap_ = FixedGap::from_ns(cbr_per_byte_ ? ns_per_byte_ : mean_gap_ns_);
  }
}

ArrivalProcess::FixedGap ArrivalProcess::FixedGap::from_ns(double gap_ns) noexcept {
  FixedGap gap;
  if (!(gap_ns < kMaxGapNs)) {
    gap.whole_ns = static_cast<int64_t>(kMaxGapNs);  // "never" after the first departure
    return gap;
  }
  const double whole = std::floor(gap_ns);
  gap.whole_ns = static_cast<int64_t>(whole);
  gap.fraction = static_cast<uint64_t>(std::llround((gap_ns - whole) * 0x1p32));
  if (gap.fraction > kFractionMask) {  // rounded up to a whole ns
    gap.fraction = 0;
    ++gap.whole_ns;
  }
  return gap;
}

int64_t ArrivalProcess::first_ns(int64_t start_ns, Rng& rng) noexcept {
  carry_ns_ = 0.0;
  cbr_carry_ = 0;
  if (spec_.kind == ArrivalSpec::Kind::saturate) return start_ns;
  if (!usable_) return kNever;
  switch (spec_.kind) {
    case ArrivalSpec::Kind::cbr:
      return start_ns;
    // A stationary Poisson stream: the first arrival is one exponential gap after the start.
    case ArrivalSpec::Kind::poisson:
      return advance(start_ns, rng.next_exponential(mean_gap_ns_));
    case ArrivalSpec::Kind::onoff: {
      const int64_t period_ns = spec_.on_ns + spec_.off_ns;
      const int64_t window = floor_div(start_ns, period_ns);
      const int64_t offset_ns = start_ns - window * period_ns;
      if (offset_ns < spec_.on_ns) return start_ns;
      if (window >= kNever / period_ns - 1) return kNever;
      return (window + 1) * period_ns;
    }
    case ArrivalSpec::Kind::saturate:
      break;
  }
  return kNever;
}

int64_t ArrivalProcess::next_ns_not_cbr(int64_t prev_ns, uint32_t message_bytes,
                                        Rng& rng) noexcept {
  if (!usable_) return kNever;
  switch (spec_.kind) {
    case ArrivalSpec::Kind::saturate:
      return kNever;
    case ArrivalSpec::Kind::cbr:  // usable cbr takes next_ns()'s inline path
      return advance_cbr(prev_ns, message_bytes);
    // Gaps independent of the sizes (a true Poisson process of messages); for a bit rate the
    // mean gap is that of the mean message size, so the offered bit/s is the same as CBR's.
    case ArrivalSpec::Kind::poisson:
      return advance(prev_ns, rng.next_exponential(mean_gap_ns_));
    case ArrivalSpec::Kind::onoff: {
      // CBR on a clock that only runs during on windows [k*period, k*period + on): a gap that
      // crosses the end of a window continues at the start of the next one. The remainder is
      // carried (not dropped), so the long-run rate is exactly rate * on / (on + off).
      const int64_t on_ns = spec_.on_ns;
      const int64_t period_ns = on_ns + spec_.off_ns;
      int64_t window = floor_div(prev_ns, period_ns);
      const int64_t offset_ns = std::min(prev_ns - window * period_ns, on_ns);
      const double position_ns =
          static_cast<double>(offset_ns) + carry_ns_ + cbr_gap_ns(message_bytes);
      if (!(position_ns < kMaxGapNs)) return kNever;
      const auto on = static_cast<double>(on_ns);
      const double windows_ahead = std::floor(position_ns / on);
      double in_window_ns = position_ns - windows_ahead * on;
      if (in_window_ns >= on) in_window_ns = 0.0;  // rounding at an exact multiple
      if (in_window_ns < 0.0) in_window_ns = 0.0;
      if (windows_ahead >= static_cast<double>(kNever / period_ns - window - 1)) return kNever;
      window += static_cast<int64_t>(windows_ahead);
      const auto whole_ns = static_cast<int64_t>(in_window_ns);
      carry_ns_ = in_window_ns - static_cast<double>(whole_ns);
      return window * period_ns + whole_ns;
    }
  }
  return kNever;
}

}  // namespace qb::gen
