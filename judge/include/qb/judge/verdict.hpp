// The run's verdict in words, from its judged gates: what did not hold and what was not judged,
// so the last line of the console and the HTML verdict never say more than was judged.
#pragma once

#include "qb/judge/results.hpp"

namespace qb::judge {

/// From the results' gates, flows and completeness (and for a file without a stored verdict,
/// the same from what it holds).
Verdict verdict_of(const Results& results);

}  // namespace qb::judge
