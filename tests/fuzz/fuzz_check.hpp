// What every fuzz target asserts with: a broken promise stops the fuzzer on the input that
// broke it (a trap, so it reports a crash with that input, in builds with or without NDEBUG).
#pragma once

namespace qb::fuzz {

inline void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace qb::fuzz
