// A sweep spread over the ranks of a job: on a driver in virtual time (the simulator) every
// (scenario, repetition) is independent, so rank r runs tasks r, r + N, r + 2N, ... and rank 0
// merges every rank's outcomes in task order — the same results as one process with the same
// seeds.
#pragma once

#include "qb/cluster/communicator.hpp"
#include "qb/engine/run.hpp"

namespace qb::cluster {

/// The engine's TaskSpread over `comm` (which must outlive it, as must `problem`); rank 0
/// merges. A rank that cannot be heard from (it died, or the wait ended on a signal) does not
/// fail the run: rank 0 keeps what it has — the missing repetitions did not run, so the run is
/// incomplete — and `problem` says what happened.
engine::TaskSpread sweep_spread(Communicator& comm, Wait wait, std::string& problem);

}  // namespace qb::cluster
