#!/usr/bin/env bash
# A sweep spread over MPI ranks gives the results of one process: for each suite, `qosbench run
# --jobs 1` and `mpirun -np N qosbench run` (N = 2, 3) write results JSON that are equal but for
# the run's metadata (host, date, tool version, wall time), and exit alike.
#
# usage: sweep_equality_test.sh QOSBENCH SAME_RESULTS_DIFF SUITE...
# Exit: 0 pass, 1 fail, 77 skipped (no MPI).
set -u
qosbench=${1:?usage: sweep_equality_test.sh QOSBENCH SAME_RESULTS_DIFF SUITE...}
differ=${2:?}
shift 2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpi_env.sh"
mpi_skip_unless_usable "$qosbench"

work=$(mktemp -d /tmp/qb-sweep.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
for suite in "$@"; do
  name=$(basename "$suite" .toml)
  "$qosbench" run "$suite" --driver sim --jobs 1 --json "$work/$name.one.results.json" --quiet \
    >"$work/$name.one.stdout" 2>&1
  one_rc=$?
  for ranks in 2 3; do
    timeout 600 mpirun -np "$ranks" "$qosbench" run "$suite" --driver sim --jobs 1 \
      --json "$work/$name.np$ranks.results.json" --quiet >"$work/$name.np$ranks.stdout" 2>&1
    rc=$?
    if ((rc != one_rc)); then
      echo "FAIL: $name: exit $one_rc alone, $rc on $ranks ranks"
      cat "$work/$name.np$ranks.stdout"
      status=1
      continue
    fi
    # The differ compares <prefix>.results.json, .explain.json (absent here) and .stdout.
    if python3 "$differ" "$work/$name.one" "$work/$name.np$ranks"; then
      echo "same: $name on $ranks ranks (exit $rc)"
    else
      echo "FAIL: $name: results on $ranks ranks differ from one process"
      status=1
    fi
  done
done
exit $status
