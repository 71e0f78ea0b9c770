// A sweep spread over the ranks of a job: on a driver in virtual time (the simulator) every
// (scenario, repetition) is independent, so rank r runs tasks r, r + N, r + 2N, ... and rank 0
// merges every rank's outcomes in task order — the same results as one process with the same
// seeds.
#pragma once

#include "qb/cluster/communicator.hpp"
#include "qb/engine/run.hpp"

namespace qb::cluster {

/// The engine's TaskSpread over `comm` (which must outlive it); rank 0 merges.
engine::TaskSpread sweep_spread(Communicator& comm, Wait wait);

}  // namespace qb::cluster
