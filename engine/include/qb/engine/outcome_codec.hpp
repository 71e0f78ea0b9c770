// One repetition's outcome as bytes, so that a process of a multi-host run (cluster/) can hand
// what it measured to the process that merges and judges. Exact: every counter, series bin,
// histogram (min, max, sum included) and driver statistic comes back bit for bit.
#pragma once

#include <string>
#include <string_view>

#include "qb/common/result.hpp"
#include "qb/engine/run.hpp"

namespace qb::engine {

std::string encode_outcome(const RepetitionOutcome& outcome);
/// Errc::runtime for bytes that are not an encoded outcome (truncated, another version, a
/// histogram no histogram can be).
Result<RepetitionOutcome> decode_outcome(std::string_view bytes);

}  // namespace qb::engine
