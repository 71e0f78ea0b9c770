#!/usr/bin/env bash
# Runs job_mpi_check.cpp's program as a three-rank MPI job on this machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../cluster/mpi_env.sh"
command -v mpirun >/dev/null || skip "mpirun not found (openmpi-bin, scripts/setup.sh)"
mpirun -np 1 true >/dev/null 2>&1 || skip "mpirun cannot start a job here"
timeout 100 mpirun -np 3 "$1"
