#!/usr/bin/env bash
# Time HPCC's ns-3 and qosbench on HPCC's 320-host fat tree with DCQCN
# (configs/fabrics/hpcc_fat_tree_dcqcn.toml: a 16-to-1 incast and a permutation), one scenario
# at a time, and print CPU seconds (user + system), max RSS and the CPU ratio per scenario.
#
#   compare_fat_tree.sh HPCC_SOURCE [-b BUILD_DIR] [-q QOSBENCH] [-s SCHEDULER] [--qosbench-only]
#
#   HPCC_SOURCE  a checkout or git mirror of alibaba-edu/High-Precision-Congestion-Control (its
#                simulation/mix/fat.txt is the topology; nothing of it is copied here)
#   -b BUILD_DIR where build_hpcc.sh built HPCC (default /tmp/hpcc-build); runs go under it
#   -q QOSBENCH  the qosbench binary (default <repo>/build/apps/qosbench/qosbench)
#   -s SCHEDULER HPCC's ns-3 scheduler: Map (its default), Heap, Calendar or List
#   --qosbench-only  time qosbench alone (no HPCC build needed)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)
die() { echo "compare_fat_tree.sh: $*" >&2; exit 1; }

[[ $# -ge 1 ]] || die "usage: compare_fat_tree.sh HPCC_SOURCE [-b BUILD_DIR] [-q QOSBENCH] [-s SCHEDULER] [--qosbench-only]"
source_path=$1
shift
build=/tmp/hpcc-build
qosbench=$root/build/apps/qosbench/qosbench
scheduler=Map
qb_only=0
while [[ $# -gt 0 ]]; do
  case $1 in
    -b) build=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    -q) qosbench=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    -s) scheduler=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    --qosbench-only) qb_only=1; shift ;;
    *) die "unknown argument $1" ;;
  esac
done
[[ $scheduler =~ ^(Map|Heap|Calendar|List)$ ]] || die "-s wants Map, Heap, Calendar or List"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
[[ -x $qosbench ]] || die "no qosbench at $qosbench"
third=$build/obj/third
((qb_only)) || [[ -x $third ]] || die "no HPCC simulator at $third: run build_hpcc.sh HPCC_SOURCE $build first"

work=$build/fat_tree
mkdir -p "$work"
if [[ -f $source_path/simulation/mix/fat.txt ]]; then
  cp "$source_path/simulation/mix/fat.txt" "$work/fat.txt"
else
  git -C "$source_path" show HEAD:simulation/mix/fat.txt > "$work/fat.txt" ||
    die "no simulation/mix/fat.txt in $source_path"
fi
qb=$work/qosbench.snapshot
cp "$qosbench" "$qb"
python3 "$here/gen_fat_tree.py" "$qb" "$root/configs/fabrics/hpcc_fat_tree_dcqcn.toml" \
  "$work/fat.txt" "$work/runs"

# Prints "cpu_s max_rss_kb wall_s".
timed() {
  local out=$1
  shift
  /usr/bin/time -f '%U %S %M %e' -o "$out.time" "$@" > "$out.out" 2> "$out.err" || {
    local rc=$?
    # qosbench exits 1 when a gate fails: still a complete run.
    [[ $rc == 1 && $1 == "$qb" ]] || { tail -5 "$out.err" >&2; die "$* failed ($rc)"; }
  }
  read -r u s m e < "$out.time"
  echo "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $m $e"
}

echo "compare_fat_tree.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %-9s %8s %10s %8s\n' scenario simulator "cpu s" "max RSS MB" "wall s"
for scenario in incast permutation; do
  read -r qc qm qe <<< "$(timed "$work/qb.$scenario" "$qb" run "$work/runs/$scenario.toml" --jobs 1 \
    --json "$work/qb.$scenario.json")"
  printf '%-12s %-9s %8.2f %10.1f %8.2f\n' "$scenario" qosbench "$qc" "$(awk -v m="$qm" 'BEGIN { print m / 1024 }')" "$qe"
  ((qb_only)) && continue
  read -r hc hm he <<< "$(cd "$work/runs/$scenario" && NS_GLOBAL_VALUE="SchedulerType=ns3::${scheduler}Scheduler" \
    timed "$work/hpcc.$scenario" "$third" config.txt)"
  printf '%-12s %-9s %8.2f %10.1f %8.2f\n' "$scenario" "HPCC" "$hc" "$(awk -v m="$hm" 'BEGIN { print m / 1024 }')" "$he"
  awk -v h="$hc" -v q="$qc" -v s="$scenario" 'BEGIN { printf "%-12s HPCC / qosbench CPU: %.1f\n", s, h / q }'
done
