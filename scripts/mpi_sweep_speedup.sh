#!/usr/bin/env bash
# How much faster a simulator sweep runs spread over MPI ranks (docs/multi-host.md): the
# suite's wall time with `qosbench run --jobs 1` in one process, then under
# `mpirun -np N ... --jobs 1` for each N given; rounds alternate, the median of each is kept,
# and the speed-up is one process's median over the job's. The product command is what is
# timed (mpirun's own start-up included).
#
# usage: scripts/mpi_sweep_speedup.sh [-r ROUNDS] SUITE.toml [N ...]   (default N: 1 2 4)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
qosbench=${QOSBENCH:-$root/build/apps/qosbench/qosbench}
rounds=3
if [[ ${1:-} == -r ]]; then rounds=$2; shift 2; fi
suite=${1:?usage: mpi_sweep_speedup.sh [-r ROUNDS] SUITE.toml [N ...]}
shift
ranks=("$@")
((${#ranks[@]})) || ranks=(1 2 4)
source "$root/tests/cluster/mpi_env.sh"

wall() {  # the command's wall time in seconds
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

declare -A times
for ((round = 1; round <= rounds; ++round)); do
  times[one]+="$(wall "$qosbench" run "$suite" --jobs 1 --quiet) "
  for n in "${ranks[@]}"; do
    times[$n]+="$(wall mpirun -np "$n" "$qosbench" run "$suite" --jobs 1 --quiet) "
  done
done
one=$(median ${times[one]})
printf 'suite %s, %d rounds, %d cores, load %s\n' "$suite" "$rounds" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %8.2f s\n' "one process --jobs 1" "$one"
for n in "${ranks[@]}"; do
  t=$(median ${times[$n]})
  printf '%-22s %8.2f s   speed-up %.2fx\n' "mpirun -np $n" "$t" "$(echo "$one / $t" | bc -l)"
done
