// The rates a runtime programs: a program's SET_RATE is held to [QB_DPA_RATE_MIN,
// QB_DPA_RATE_LINE] (device_api.h), so a bad program slows or saturates its flow, never stops it.
#pragma once

#include <cstdint>

#include "qb_dpa/device_api.h"

namespace qb::dpa {

/// Holds `rate` to the programmable range; true when it had to move (zero included).
inline bool clamp_rate(uint32_t& rate) noexcept {
  if (rate < QB_DPA_RATE_MIN) {
    rate = QB_DPA_RATE_MIN;
    return true;
  }
  if (rate > QB_DPA_RATE_LINE) {
    rate = QB_DPA_RATE_LINE;
    return true;
  }
  return false;
}

}  // namespace qb::dpa
