// Deterministic random numbers: the same seed gives the same stream on every platform.
// (std:: distributions are implementation-defined, so we derive variates from raw bits.)
#pragma once

#include <cmath>
#include <cstdint>

namespace qb {

/// SplitMix64: used to expand one seed into independent stream seeds.
constexpr uint64_t splitmix64(uint64_t& state) noexcept {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// A seed for stream `stream` derived from a base seed (flows, repetitions, scenarios).
constexpr uint64_t derive_seed(uint64_t base_seed, uint64_t stream) noexcept {
  uint64_t state = base_seed ^ (stream * 0xd1b54a32d192ed03ULL);
  splitmix64(state);
  return splitmix64(state);
}

/// xoshiro256** generator.
class Rng {
 public:
  explicit constexpr Rng(uint64_t seed = 1) noexcept {
    uint64_t state = seed;
    for (auto& word : s_) word = splitmix64(state);
  }

  constexpr uint64_t next_u64() noexcept {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1).
  double next_unit() noexcept { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [0, bound) (bound > 0), Lemire's multiply-shift without rejection bias
  /// worth caring about for bounds far below 2^64.
  uint64_t next_below(uint64_t bound) noexcept {
    __extension__ using U128 = unsigned __int128;
    return static_cast<uint64_t>((static_cast<U128>(next_u64()) * bound) >> 64);
  }

  /// Exponential variate with the given mean.
  double next_exponential(double mean) noexcept { return -mean * std::log1p(-next_unit()); }

 private:
  static constexpr uint64_t rotl(uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4]{};
};

}  // namespace qb
