#!/usr/bin/env bash
# Every shipped suite on the simulator for seeds 1..N (default 10), at its own duration and at
# --duration 50ms: prints one line per run whose verdict is not PASSED, then the counts. Issue
# 25's check that sampling noise fails no shipped suite (docs/ci-gating.md, "Sampling noise").
#   scripts/seed_sweep.sh [-n SEEDS] [-b QOSBENCH] [SUITE.toml ...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seeds=10 bin="$root/build/apps/qosbench/qosbench"
while getopts "n:b:" opt; do
  case "$opt" in
    n) seeds=$OPTARG ;;
    b) bin=$OPTARG ;;
    *) echo "usage: $0 [-n SEEDS] [-b QOSBENCH] [SUITE.toml ...]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
suites=("$@")
((${#suites[@]})) || suites=("$root"/configs/*.toml)
runs=0 failed=0
for suite in "${suites[@]}"; do
  for duration in own 50ms; do
    for ((seed = 1; seed <= seeds; ++seed)); do
      args=(run "$suite" --driver sim --jobs 1 --quiet --seed "$seed" --json /dev/null)
      [[ "$duration" == own ]] || args+=(--duration "$duration")
      runs=$((runs + 1))
      if ! out=$("$bin" "${args[@]}" 2>&1); then
        failed=$((failed + 1))
        echo "$(basename "$suite") seed $seed duration $duration: $(grep -E '^(PASSED|FAILED)' <<<"$out" | tail -1)"
      fi
    done
  done
done
echo "seed sweep: $runs runs, $failed not passed"
((failed == 0))
