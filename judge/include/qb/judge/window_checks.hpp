// What a run over a given window can judge, said before it runs (validate, explain, run): flows
// that start only after the window ends (not started: not judged), and share limits tighter
// than the sampling noise the window can resolve (with the duration that would resolve them).
#pragma once

#include <cstdint>
#include <vector>

#include "qb/common/warning.hpp"
#include "qb/suite/compile.hpp"

namespace qb::judge {

struct Window {
  int64_t warmup_ns = 0;
  int64_t duration_ns = 0;
  uint32_t repetitions = 1;
};

/// The scenario's own window (its warm-up, duration and repetitions).
Window window_of(const suite::Scenario& scenario);

std::vector<Warning> window_warnings(const suite::CompiledScenario& compiled, const Window& window);

}  // namespace qb::judge
