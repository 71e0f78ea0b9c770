// The host clock the ranks of a multi-host job compare: CLOCK_MONOTONIC in ns. Rank 0 measures
// every rank's offset to it (cluster/), and a sender on another host than the receiver stamps
// its frames in the receiver's clock by taking its offset off, so one-way latency across hosts
// means what it does on one host, within the offset's bound.
#pragma once

#include <cstdint>

namespace qb {

/// CLOCK_MONOTONIC in ns, plus QB_TEST_CLOCK_SKEW_NS when that is set, running faster by
/// QB_TEST_CLOCK_DRIFT_PPM from its first read when that is (both read once): a test on one
/// machine lets a rank stand for a host whose clock is that far ahead, or drifts, to check that
/// the skew is measured and taken off and the drift measured. Unset (always, outside tests):
/// the plain clock.
int64_t job_clock_ns() noexcept;

}  // namespace qb
