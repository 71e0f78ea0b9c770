#!/usr/bin/env bash
# policy::TreeScheduler vs DPDK's rte_sched per packet (benchmarks/rte_sched_bench.cpp: 256
# leaves in 16 groups, 4194-byte packets, closed-loop bursts of 32, both saturating). Each
# round runs both sides (the order alternates between rounds, so machine load hits both
# alike), each with 5 repetitions pinned to one core; a side's figure is its median CPU ns per
# packet, the round's ratio is ours / rte_sched, and the median ratio over rounds is printed
# for the uncapped tree (capped:0) and the one with binding caps (capped:1).
#   benchmarks/sched_vs_rte_sched.sh [-b BUILD_DIR] [-r ROUNDS] [-c CORE]
set -euo pipefail
build=build
rounds=5
core=1
while getopts "b:r:c:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    r) rounds=$OPTARG ;;
    c) core=$OPTARG ;;
    *) sed -n '2,9p' "$0" >&2; exit 2 ;;
  esac
done
bench="$build/benchmarks/rte_sched_bench"
[[ -x $bench ]] || { echo "error: $bench not built (needs libdpdk: apt-get install dpdk-dev; ninja -C $build rte_sched_bench)" >&2; exit 3; }

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# Median CPU ns per packet of one benchmark ($1: its name).
ns_per_packet() {
  local json
  json=$(mktemp)
  taskset -c "$core" "$bench" --benchmark_filter="^$1\$" --benchmark_repetitions=5 \
    --benchmark_report_aggregates_only=true --benchmark_out="$json" --benchmark_out_format=json \
    >/dev/null 2>&1
  python3 - "$json" "$1" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))
for b in data["benchmarks"]:
    if b.get("aggregate_name") == "median":
        print(f"{1e9 / b['items_per_second']:.2f}")
        break
PY
  rm -f "$json"
}

for capped in 0 1; do
  ratios=() ours_all=() rte_all=()
  for ((r = 1; r <= rounds; r++)); do
    if ((r % 2)); then
      ours=$(ns_per_packet "BM_TreeScheduler/capped:$capped")
      rte=$(ns_per_packet "BM_RteSched/capped:$capped")
    else
      rte=$(ns_per_packet "BM_RteSched/capped:$capped")
      ours=$(ns_per_packet "BM_TreeScheduler/capped:$capped")
    fi
    ratio=$(awk -v a="$ours" -v b="$rte" 'BEGIN {printf "%.3f", a / b}')
    echo "capped:$capped round $r: TreeScheduler $ours ns/pkt, rte_sched $rte ns/pkt, ratio $ratio"
    ratios+=("$ratio") ours_all+=("$ours") rte_all+=("$rte")
  done
  echo "capped:$capped median: TreeScheduler $(printf '%s\n' "${ours_all[@]}" | median) ns/pkt," \
    "rte_sched $(printf '%s\n' "${rte_all[@]}" | median) ns/pkt," \
    "ratio (ours / rte_sched) $(printf '%s\n' "${ratios[@]}" | median)"
done
