# Sourced by the MPI tests: how they launch a job on this one machine, and their skip (77) and
# fail (1) exits. Open MPI refuses root unless told (CI runs as root); --oversubscribe: more
# ranks than cores; shared memory between the ranks (vader) without the single-copy mechanism,
# which containers often forbid (ptrace).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# No network interfaces are needed between ranks on one host: keep the OOB off odd ones.
export OMPI_MCA_oob_tcp_if_include=lo

# The sanitizer pass (scripts/sanitize.sh, build-asan): Open MPI dlopens its components and
# unloads them at MPI_Finalize, so what they allocate at start is reported as leaked from
# "<unknown module>", which no suppression can name. Under mpirun leaks are not checked (the
# last option wins); address and UB errors still are, and the same code's tests outside
# mpirun (qb_cluster_tests, every single-process run) keep the leak check.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

mpi_skip_unless_usable() {  # $1: qosbench
  command -v mpirun >/dev/null || skip "mpirun not found (openmpi-bin, scripts/setup.sh)"
  "$1" drivers | grep -q "^mpi .*built with" || skip "this qosbench is built without MPI"
  mpirun -np 1 true >/dev/null 2>&1 || skip "mpirun cannot start a job here: $(mpirun -np 1 true 2>&1 | head -3)"
}
