// An overloaded DPA: events that arrived at a full DPA thread were dropped (the emulator counts
// them, docs/dpa.md "Queue and drops"). A program that missed many of its events did not see
// the run it is judged on, so, as for a starved worker (engine/starvation.hpp), a run says so
// past one bound and is an invalid measurement (exit 3) past another.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace qb::dpa {

/// Dropped events above this fraction of the events posted: a warning, figures unreliable.
inline constexpr double kDropWarnFraction = 0.01;
/// Dropped events above this fraction: the measurement is invalid (exit 3).
inline constexpr double kDropInvalidFraction = 0.10;

/// What one DPA (the senders' or the receiver's) dropped over a repetition.
struct DpaDrops {
  bool present = false;   // a program ran
  bool receiver = false;  // the receiver NIC's DPA (receiver_program), else the senders'
  uint64_t handled = 0;   // events the program took
  uint64_t dropped = 0;   // events that found their thread full

  /// dropped / (handled + dropped); 0 when nothing was posted.
  double dropped_fraction() const noexcept {
    const uint64_t posted = handled + dropped;
    return posted > 0 ? static_cast<double>(dropped) / static_cast<double>(posted) : 0.0;
  }
  bool unreliable() const noexcept { return dropped_fraction() > kDropWarnFraction; }
  bool invalid() const noexcept { return dropped_fraction() > kDropInvalidFraction; }
  /// Keeps the worse of two (DPAs or repetitions): the larger fraction dropped.
  void keep_worse(const DpaDrops& other) noexcept {
    if (!other.present) return;
    if (!present || other.dropped_fraction() > dropped_fraction()) *this = other;
  }
};

/// The worse DPA of one repetition, from its driver stats (`dpa_events`,
/// `dpa_dropped_events`, `receiver_dpa_*`); present = false when no program ran.
DpaDrops dpa_drops_of(std::span<const std::pair<std::string, double>> driver_stats);

/// "scenario \"x\": the senders' DPA dropped 990 of 1000 events (99.0 %) ...": for drops
/// above kDropWarnFraction; says "an invalid measurement" above kDropInvalidFraction.
std::string dpa_drops_message(std::string_view scenario, const DpaDrops& drops);

}  // namespace qb::dpa
