// Built without MPI: a process started by mpirun refuses to run the whole suite on its own.
#include <fmt/format.h>

#include "qb/cluster/job.hpp"

#ifndef QB_MPI_REASON
#define QB_MPI_REASON "MPI not found at configure time"
#endif

namespace qb::cluster {

bool mpi_built() {
  return false;
}

std::string mpi_status() {
  return "not built: " QB_MPI_REASON;
}

Result<std::unique_ptr<Communicator>> join_job() {
  const Launch launch = detect_launch();
  if (!launch.by_mpi) return std::unique_ptr<Communicator>{};
  return make_error(Errc::usage,
                    fmt::format("started by an MPI launcher ({}) but this qosbench has no MPI "
                                "support ({}); install libopenmpi-dev (scripts/setup.sh) and "
                                "rebuild, or run it without mpirun",
                                launch.evidence, QB_MPI_REASON));
}

}  // namespace qb::cluster
