#include "qb/cluster/sweep.hpp"

#include "sweep_wire.hpp"

namespace qb::cluster {

engine::TaskSpread sweep_spread(Communicator& comm, Wait wait, std::string& problem) {
  engine::TaskSpread spread;
  spread.runs_here = [&comm](size_t task) { return task % comm.size() == comm.rank(); };
  spread.exchange = [&comm, wait, &problem](Result<std::vector<engine::RepetitionOutcome>> mine)
      -> Result<std::vector<engine::RepetitionOutcome>> {
    auto gathered = comm.gather(pack_outcomes(mine), 0, wait);
    if (!gathered) {
      problem = gathered.error().message;
      return mine;  // partial: this rank's own repetitions (or its own error)
    }
    std::vector<engine::RepetitionOutcome> all;
    for (uint32_t rank = 0; rank < gathered->size(); ++rank) {
      if (auto s = unpack_outcomes((*gathered)[rank], rank, all); !s) return std::move(s).error();
    }
    return all;  // rank 0: everyone's; the others: none (they sent theirs)
  };
  return spread;
}

}  // namespace qb::cluster
