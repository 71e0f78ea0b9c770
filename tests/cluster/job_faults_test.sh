#!/usr/bin/env bash
# Faults of an MPI job (docs/multi-host.md): every rank ends, with one message from rank 0 and
# nothing half-written.
#   1. ranks given different suite files: exit 2 on every rank, one message naming rank 1;
#      ranks given different drivers: the same.
#   2. a suite file rank 1 cannot read: exit 2, one message naming rank 1 and the file.
#   2b. one rank per host with verbs (the fake, real time): rank 1's driver cannot open (a peer
#      in a job): the other ranks, waiting for its QPs in the exchange, hear of it; exit 2, one
#      message naming rank 1 once, no results (when the verbs driver is built).
#   3. a rank killed mid-run: the job ends within seconds; rank 0 writes the repetitions it
#      has, marked incomplete (mpirun gives it odls_base_sigkill_timeout to do so).
#   4. Ctrl-C on mpirun: every rank ends, no temporary results file is left behind.
#
# usage: job_faults_test.sh QOSBENCH SUITE.toml
# Exit: 0 pass, 1 fail, 77 skipped (no MPI).
set -u
qosbench=${1:?usage: job_faults_test.sh QOSBENCH SUITE.toml}
suite=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpi_env.sh"
mpi_skip_unless_usable "$qosbench"
work=$(mktemp -d /tmp/qb-mpi-faults.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

# A second suite: the same flows, another seed (another content hash).
sed 's/^seed = 5$/seed = 6/' "$suite" >other.toml
cmp -s "$suite" other.toml && fail "could not make a different suite from $suite"

echo "1. different suite files"
timeout 120 mpirun -np 1 "$qosbench" run "$suite" --json one.json : \
  -np 1 "$qosbench" run other.toml --json one.json >mismatch.out 2>&1
rc=$?
((rc == 2)) || { cat mismatch.out; fail "exit $rc for different suites, not 2"; }
n=$(grep -c "rank 1 .*loaded a different suite file than rank 0" mismatch.out)
((n == 1)) || { cat mismatch.out; fail "expected one message naming rank 1, got $n"; }
[[ ! -e one.json ]] || fail "a refused job wrote results"

echo "1b. different drivers (they make different collectives: refused before any)"
timeout 120 mpirun -np 1 "$qosbench" run "$suite" --driver sim --json one.json : \
  -np 1 "$qosbench" run "$suite" --driver dpdk >drivers.out 2>&1
rc=$?
((rc == 2)) || { cat drivers.out; fail "exit $rc for different drivers, not 2"; }
grep -q "rank 1 (.*) runs driver 'dpdk' and rank 0 driver 'sim'" drivers.out ||
  { cat drivers.out; fail "the message does not name rank 1 and both drivers"; }
[[ ! -e one.json ]] || fail "a refused job wrote results"

echo "2. a suite file rank 1 cannot read"
timeout 120 mpirun -np 1 "$qosbench" run "$suite" : \
  -np 1 "$qosbench" run "$work/missing.toml" >missing.out 2>&1
rc=$?
((rc == 2)) || { cat missing.out; fail "exit $rc for a missing file on rank 1, not 2"; }
grep -q "on rank 1 (.*): cannot open suite file '$work/missing.toml'" missing.out ||
  { cat missing.out; fail "the message does not name rank 1 and the file"; }

echo "2b. verbs: rank 1's driver cannot open, the others wait in the QP exchange"
if "$qosbench" drivers | grep -q "^verbs .*built"; then
  host_suite=$here/../../configs/two_host_incast.toml
  verbs=(--driver verbs --driver-option provider=fake --driver-option fake_timing=instant
    --repetitions 2 --duration 20ms)
  timeout 120 mpirun -np 1 "$qosbench" run "$host_suite" "${verbs[@]}" --json verbs.json : \
    -np 1 "$qosbench" run "$host_suite" "${verbs[@]}" --driver-option peer=elsewhere:1 : \
    -np 1 "$qosbench" run "$host_suite" "${verbs[@]}" >verbs.out 2>&1
  rc=$?
  ((rc == 2)) || { cat verbs.out; fail "exit $rc for rank 1's refused driver, not 2"; }
  grep -q "^error: .*on rank 1 (.*): driver open failed: verbs: in an MPI job" verbs.out ||
    { cat verbs.out; fail "the message does not name rank 1 and its driver's error"; }
  (($(grep -o "on rank" verbs.out | wc -l) == 1)) ||
    { cat verbs.out; fail "the error names a rank more than once"; }
  [[ ! -e verbs.json ]] || fail "a job whose start failed wrote results"
else
  echo "skipped: this qosbench is built without the verbs driver"
fi

echo "3. a rank killed mid-run"
# Long enough that rank 1 is killed while it runs: 5 s of simulated time per repetition.
sed 's/^duration = "20ms"$/duration = "5s"/' "$suite" >long.toml
start=$(date +%s)
OMPI_MCA_odls_base_sigkill_timeout=10 timeout 120 mpirun -np 1 "$qosbench" run long.toml \
  --jobs 1 --json killed.json --quiet : -np 1 timeout -s KILL 1 "$qosbench" run long.toml \
  --jobs 1 --quiet >killed.out 2>&1
rc=$?
took=$(($(date +%s) - start))
((rc != 0)) || { cat killed.out; fail "a job that lost a rank exited 0"; }
((took <= 60)) || fail "the job took ${took}s to end after a rank died"
grep -q "rank 1" killed.out || { cat killed.out; fail "nothing names the rank that died"; }
[[ -s killed.json ]] || { cat killed.out; fail "rank 0 wrote no partial results"; }
python3 - killed.json <<'PY' || fail "the partial results are not marked incomplete"
import json, sys
sys.exit(0 if json.load(open(sys.argv[1]))["complete"] is False else 1)
PY

echo "4. Ctrl-C on mpirun"
OMPI_MCA_odls_base_sigkill_timeout=2 mpirun -np 2 "$qosbench" run long.toml --jobs 1 \
  --json interrupted.json --quiet >interrupted.out 2>&1 &
job=$!
sleep 2
start=$(date +%s)
kill -INT "$job"
for _ in $(seq 300); do kill -0 "$job" 2>/dev/null || break; sleep 0.1; done
kill -0 "$job" 2>/dev/null && { kill -KILL "$job"; fail "mpirun still runs 30 s after Ctrl-C"; }
wait "$job"
echo "   ended $(($(date +%s) - start)) s after Ctrl-C (exit $?)"
pgrep -f "qosbench run long.toml" >/dev/null && fail "a rank outlived mpirun"
leftovers=$(find . -name '*.tmp*' -o -name '.*interrupted*' | head -3)
[[ -z $leftovers ]] || fail "temporary files left: $leftovers"
echo "PASS"
