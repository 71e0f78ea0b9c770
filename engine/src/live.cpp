#include "qb/engine/live.hpp"

#include <algorithm>

namespace qb::engine {

int64_t default_live_interval_ns(int64_t duration_ns) noexcept {
  constexpr int64_t kMinNs = 1'000;
  constexpr int64_t kMaxNs = 1'000'000'000;
  const int64_t tenth_ns = duration_ns / 10;
  if (tenth_ns >= kMaxNs) return kMaxNs;
  // The largest 1, 2 or 5 x 10^k not above a tenth of the window.
  int64_t best_ns = kMinNs;
  for (int64_t decade = kMinNs; decade <= kMaxNs; decade *= 10) {
    for (const int64_t step : {1, 2, 5}) {
      if (decade * step <= tenth_ns) best_ns = decade * step;
    }
  }
  return std::min(best_ns, kMaxNs);
}

double RunProgress::fraction() const noexcept {
  const int64_t planned = planned_ns();
  if (planned <= 0) return 0.0;
  return std::clamp(static_cast<double>(covered_ns()) / static_cast<double>(planned), 0.0, 1.0);
}

}  // namespace qb::engine
