// The decisions every rank of a job must take together, so that no rank runs, waits or exits
// alone: whether to start (every rank loaded the same suite and is ready) and the job's exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "qb/cluster/communicator.hpp"
#include "qb/common/result.hpp"

namespace qb::cluster {

/// What a rank brings to the start: the error that stops it, or what it loaded.
struct Readiness {
  std::optional<Error> error;
  std::string suite_hash;  // the suite file's content hash (Suite::config_hash)
  std::string suite_name;
  std::string driver;  // --driver: every rank must run the same one
  /// Set by rank 0 only: a rule the whole job breaks (e.g. the suite's hosts against the
  /// ranks), checked once rank 0 knows every rank is ready.
  std::optional<Error> job_error;
};

/// Rank 0 gathers every rank's readiness and decides: the first rank's error (named by rank
/// and host, its code kept), a driver or a suite whose content differs from rank 0's
/// (Errc::usage), the job error, or go. Every rank gets the same answer; only rank 0 should
/// print it.
Status agree_to_start(Communicator& comm, const Readiness& mine, const Wait& wait);

/// Every rank's `mine` to rank 0, which answers for all: ok, or the first rank's error (named by
/// rank and host, its code kept). The same answer on every rank.
Status agree_status(Communicator& comm, const Status& mine, const Wait& wait);

/// Every rank's `mine` on every rank, in rank order (this rank's included) — or, when any rank
/// brings an error, the first one's (named by rank and host, its code kept) on every rank.
Result<std::vector<std::string>> agree_all_gather(Communicator& comm,
                                                  const Result<std::string>& mine,
                                                  const Wait& wait);

/// The job's exit code on every rank: the highest of the ranks' codes (0 pass < 1 gate failed
/// < 2 bad input < 3 run-time trouble); 3 when a rank cannot be heard from.
int agree_exit_code(Communicator& comm, int mine, const Wait& wait);

}  // namespace qb::cluster
