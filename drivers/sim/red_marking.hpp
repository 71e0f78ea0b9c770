// RED ECN marking (docs/semantics.md, "Congestion"), shared by the one-switch model's switch and
// the graph model's switch egresses: mark with a probability rising linearly from min_bytes to
// max_bytes of the egress class, drawn from the caller's xorshift64* state.
#pragma once

#include <cstdint>

#include "qb/common/rng.hpp"
#include "qb/policies/congestion.hpp"

namespace qb::drv::sim {

/// The marking stream's seed of a repetition: the scenario's seed for the first (so a suite of
/// one repetition marks as it always did), a stream derived from it for each later one (so
/// repetitions sample the marking as they sample the workload, and a comparison sees its noise).
inline uint64_t marking_seed(uint64_t scenario_seed, uint32_t repetition) noexcept {
  return repetition == 0 ? scenario_seed : derive_seed(scenario_seed, repetition);
}

/// Whether a packet joining `queued_bytes` of a class marked by `red` is marked; advances
/// `random_state` (non-zero) only when a draw is needed.
inline bool red_marks(const policy::EcnMarking& red, int64_t queued_bytes,
                      uint64_t& random_state) noexcept {
  if (!red.enabled || queued_bytes <= red.min_bytes) return false;
  if (queued_bytes >= red.max_bytes) return true;
  const double probability = red.max_probability *
                             static_cast<double>(queued_bytes - red.min_bytes) /
                             static_cast<double>(red.max_bytes - red.min_bytes);
  random_state ^= random_state >> 12;
  random_state ^= random_state << 25;
  random_state ^= random_state >> 27;
  const uint64_t draw = (random_state * 0x2545F4914F6CDD1DULL) >> 11;  // 53 bits
  return static_cast<double>(draw) * 0x1.0p-53 < probability;
}

}  // namespace qb::drv::sim
