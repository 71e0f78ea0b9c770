#!/usr/bin/env bash
# A sweep spread over MPI ranks gives the results of one process: for each suite, `qosbench run
# --jobs 1` and `mpirun -np N qosbench run` (N = 2, 3) write results JSON that are equal but for
# the run's metadata (host, date, tool version, wall time), and exit alike; and all the suites
# in one job (`mpirun -np 2 qosbench run SUITE... --out DIR`) give each suite's results again.
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
  echo "$one_rc" >"$work/$name.one.rc"
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
# Every suite in one job: DIR/<suite file name>.json each, equal to the suite run alone.
timeout 900 mpirun -np 2 "$qosbench" run "$@" --driver sim --jobs 1 --out "$work/all" --quiet \
  >"$work/all.stdout" 2>&1
all_rc=$?
worst_rc=0
for suite in "$@"; do
  name=$(basename "$suite" .toml)
  # Only the results are compared: the job's console holds every suite's verdict.
  cp "$work/$name.one.results.json" "$work/$name.alone.results.json"
  if [[ ! -s "$work/all/$name.json" ]]; then
    echo "FAIL: the job of every suite wrote no $name.json"
    status=1
    continue
  fi
  cp "$work/all/$name.json" "$work/$name.together.results.json"
  if python3 "$differ" "$work/$name.alone" "$work/$name.together"; then
    echo "same: $name in a job of $# suites on 2 ranks"
  else
    echo "FAIL: $name: results in the job of every suite differ from one process"
    status=1
  fi
done
for rc_file in "$work"/*.one.rc; do
  rc=$(cat "$rc_file")
  ((rc > worst_rc)) && worst_rc=$rc
done
if ((all_rc != worst_rc)); then
  echo "FAIL: the job of every suite exited $all_rc, the worst suite alone $worst_rc"
  cat "$work/all.stdout"
  status=1
fi
exit $status
