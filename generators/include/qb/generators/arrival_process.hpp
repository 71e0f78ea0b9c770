// Arrival processes: when does a flow post its next message?
//   saturate: keep `outstanding` messages in flight (an RDMA application's send window);
//   cbr:      constant rate in bit/s (of message payload) or messages/s;
//   poisson:  exponential gaps with the same mean as cbr;
//   onoff:    cbr during `on_ns`, silent during `off_ns`, repeating (phase starts "on" at t=0).
//             The cbr clock runs only during on windows: a gap that crosses the end of a window
//             continues at the start of the next, so the long-run rate is rate * on / (on + off).
// All cbr gaps are whole ns with the fraction carried: after N messages the schedule is within
// 1 ns of the exact sum of the gaps. Cbr keeps the fraction exactly, in 2^-32 ns; its gap is
// rounded once, to 2^-33 ns (per byte for a bit rate), so 8.6e9 messages (of 1 byte) drift by
// at most 1 ns more. Poisson gaps do not depend on the message sizes (a bit
// rate uses the mean message size); cbr bit-rate gaps are those of the message just sent.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "qb/common/result.hpp"
#include "qb/common/rng.hpp"

namespace qb::gen {

struct ArrivalSpec {
  enum class Kind { saturate, cbr, poisson, onoff };
  Kind kind = Kind::saturate;
  /// For cbr/poisson/onoff: the rate while sending. Exactly one of the two is > 0.
  double rate_bps = 0.0;      // payload bits per second
  double rate_pps = 0.0;      // messages per second
  int64_t on_ns = 0;          // onoff only
  int64_t off_ns = 0;         // onoff only
  uint32_t outstanding = 16;  // saturate: messages kept in flight per QP

  bool saturating() const noexcept { return kind == Kind::saturate; }
  /// Long-run mean messages per second for a given mean message size (on/off: times the duty
  /// cycle); +infinity for saturate. The one formula every expectation of offered load uses.
  double mean_messages_per_s(double mean_message_bytes) const noexcept;
  Status validate() const;
};

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

/// Produces scheduled departure times (ns since the start of the run) for non-saturating flows.
/// The schedule is independent of when messages actually leave, so latency measured from it
/// includes any stall of the sender (coordinated omission is not hidden).
class ArrivalProcess {
 public:
  ArrivalProcess(const ArrivalSpec& spec, double mean_message_bytes);

  /// The first departure at or after start_ns (start_ns itself for cbr and saturate, one
  /// exponential gap later for poisson, the next on window for onoff). Restarts the carry.
  /// An invalid spec gives kNever here and in next_ns.
  int64_t first_ns(int64_t start_ns, Rng& rng) noexcept;
  /// The departure after one at prev_ns (the previous value this returned), for a message of
  /// the given size.
  /// Returns kNever for saturate (saturating flows are driven by their window instead).
  /// CBR is inline: a paced DPDK worker calls this once per frame.
  int64_t next_ns(int64_t prev_ns, uint32_t message_bytes, Rng& rng) noexcept {
    if (cbr_) [[likely]]
      return advance_cbr(prev_ns, message_bytes);
    return next_ns_not_cbr(prev_ns, message_bytes, rng);
  }

 private:
  // Gaps beyond this (~127 years) mean "never": keeps the int64 arithmetic far from overflow.
  static constexpr double kMaxGapNs = 4e18;
  static constexpr int kFractionBits = 32;
  static constexpr uint64_t kFractionMask = (uint64_t{1} << kFractionBits) - 1;

  /// A gap in ns as whole ns and 2^-32 ns (the fraction < 2^32).
  struct FixedGap {
    int64_t whole_ns = 0;
    uint64_t fraction = 0;
    static FixedGap from_ns(double gap_ns) noexcept;
  };

  ArrivalSpec spec_;
  double mean_gap_ns_ = 0.0;  // pps-based gap
  double ns_per_byte_ = 0.0;  // bps-based gap = bytes * ns_per_byte
  double carry_ns_ = 0.0;     // fractional ns carried so poisson and onoff do not drift
  bool usable_ = false;       // false for an invalid spec: nothing is scheduled
  bool cbr_ = false;          // usable and cbr: next_ns() takes the inline path
  // cbr: an integer schedule (a 1-cycle carry chain; a double one costs ~25 cycles per
  // message, which a paced DPDK worker pays per frame).
  bool cbr_per_byte_ = false;  // the gap is bytes * cbr_gap_ (a bit rate), else cbr_gap_
  FixedGap cbr_gap_;
  uint64_t cbr_carry_ = 0;  // fraction of a ns carried, in 2^-32 ns

  int64_t next_ns_not_cbr(int64_t prev_ns, uint32_t message_bytes, Rng& rng) noexcept;
  int64_t advance_cbr(int64_t prev_ns, uint32_t message_bytes) noexcept {
    int64_t whole_ns = cbr_gap_.whole_ns;
    uint64_t fraction = cbr_gap_.fraction;
    if (cbr_per_byte_) {
      // Fractions < 2^32 times sizes < 2^32 fit 64 bits; whole ns are checked.
      if (__builtin_mul_overflow(whole_ns, static_cast<int64_t>(message_bytes), &whole_ns)) {
        return kNever;
      }
      fraction *= message_bytes;
      whole_ns += static_cast<int64_t>(fraction >> kFractionBits);
      fraction &= kFractionMask;
    }
    const uint64_t carried = cbr_carry_ + fraction;
    cbr_carry_ = carried & kFractionMask;
    whole_ns += static_cast<int64_t>(carried >> kFractionBits);
    if (whole_ns >= static_cast<int64_t>(kMaxGapNs) || prev_ns > kNever - whole_ns) return kNever;
    return prev_ns + whole_ns;
  }
  double cbr_gap_ns(uint32_t message_bytes) const noexcept {
    return ns_per_byte_ > 0.0 ? static_cast<double>(message_bytes) * ns_per_byte_ : mean_gap_ns_;
  }
  int64_t advance(int64_t prev_ns, double gap_ns) noexcept {
    // Departures are whole ns; the fraction is carried so that after N gaps the schedule is
    // within 1 ns of the exact sum (a 3 Mpps flow keeps its 333.33 ns average).
    const double total_ns = carry_ns_ + gap_ns;
    if (!(total_ns < kMaxGapNs)) return kNever;
    const auto whole_ns = static_cast<int64_t>(total_ns);
    carry_ns_ = total_ns - static_cast<double>(whole_ns);
    if (prev_ns > kNever - whole_ns) return kNever;
    return prev_ns + whole_ns;
  }
};

}  // namespace qb::gen
