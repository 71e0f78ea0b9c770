// Joining a multi-host job: qosbench is an MPI program only when mpirun (or another MPI
// launcher) started it; otherwise it never touches MPI and runs exactly as a single process.
#pragma once

#include <memory>
#include <string>

#include "qb/cluster/communicator.hpp"
#include "qb/common/result.hpp"

namespace qb::cluster {

/// What the environment says about the launcher (Open MPI's OMPI_COMM_WORLD_SIZE, PMIx's
/// PMIX_RANK, MPICH/Hydra's PMI_SIZE).
struct Launch {
  bool by_mpi = false;
  std::string evidence;  // the variable that says so, e.g. "OMPI_COMM_WORLD_SIZE=3"
};
Launch detect_launch();

/// Whether this build has MPI ("built with Open MPI 4.1.4") or why not.
std::string mpi_status();
bool mpi_built();

/// Joins the job (MPI_Init): nullptr when not launched by an MPI launcher; Errc::usage when
/// launched by one but built without MPI (every rank would run the whole suite on its own).
/// The communicator finalises MPI when destroyed.
Result<std::unique_ptr<Communicator>> join_job();

}  // namespace qb::cluster
