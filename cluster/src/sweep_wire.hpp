// What one rank sends rank 0 at the end of a run: its repetitions' outcomes, or the error that
// stopped it (then rank 0 reports that error, naming the rank).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "qb/common/result.hpp"
#include "qb/engine/run.hpp"

namespace qb::cluster {

std::string pack_outcomes(const Result<std::vector<engine::RepetitionOutcome>>& mine);
/// Appends rank `rank`'s outcomes to `all`; its error (or unreadable bytes) as an Error
/// naming the rank.
Status unpack_outcomes(std::string_view bytes, uint32_t rank,
                       std::vector<engine::RepetitionOutcome>& all);

}  // namespace qb::cluster
