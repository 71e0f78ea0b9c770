// The memory a run will need, estimated before anything is compiled or run, and the bound it
// must fit in. A run keeps, per flow instance: latency histograms (fixed layout, a few pages
// written), a throughput series of at most kMaxSeriesBins bins per repetition kept, and per
// repetition in flight its workers' counters; the results (JSON, HTML) grow with flows x bins.
// Flow count (sum of every [[flow]]'s count) x repetitions is the factor nothing else bounds.
#pragma once

#include <cstdint>
#include <string>

#include "qb/common/result.hpp"
#include "qb/drivers/backend.hpp"
#include "qb/suite/suite.hpp"

namespace qb::engine {

struct RunOptions;

/// Most bins of a throughput series (per flow, per repetition): a finer bin is coarsened.
inline constexpr int64_t kMaxSeriesBins = 1000;

/// The bin a run uses for a scenario: the suite's bin (at most the duration), coarsened so
/// that the duration has at most kMaxSeriesBins bins.
int64_t series_bin_ns(int64_t bin_ns, int64_t duration_ns) noexcept;

/// Estimated bytes a run of `suite` with `options` on a driver with `caps` needs (see
/// run_memory.cpp for each term and how its constants were measured).
uint64_t estimate_run_bytes(const suite::Suite& suite, const RunOptions& options,
                            const drv::Capabilities& caps);

/// The bound: half of the physical memory (sysconf), so that the run, the page cache and the
/// rest of the machine fit.
uint64_t run_memory_bound_bytes() noexcept;

/// Errc::invalid_config (exit 2) when the estimate exceeds `bound_bytes`, naming the key that
/// drives it (the largest flow[i].count, or repetitions) with its file:line:col.
Status check_run_memory(const suite::Suite& suite, const RunOptions& options,
                        const drv::Capabilities& caps, uint64_t bound_bytes);

}  // namespace qb::engine
