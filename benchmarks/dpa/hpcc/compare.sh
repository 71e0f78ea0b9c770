#!/usr/bin/env bash
# Time HPCC's ns-3 simulator and qosbench on the same 16-to-1 DCQCN incast, alternately, and
# print the CPU seconds (user + system, whole process) per 60 ms simulated and their ratio.
#
#   compare.sh [-n RUNS] [-b BUILD_DIR] [-q QOSBENCH] [-s SCHEDULER] [--check]
#
#   -n RUNS      runs of each simulator (default 3); the medians are compared
#   -s SCHEDULER HPCC's event scheduler: Map (ns-3.17's default, what HPCC runs with), Heap,
#                Calendar or List (ns-3's SchedulerType, set through NS_GLOBAL_VALUE; the
#                results are the same, only the speed changes)
#   -b BUILD_DIR where build_hpcc.sh built HPCC (default /tmp/hpcc-build); runs go under it
#   -q QOSBENCH  the qosbench binary (default <repo>/build/apps/qosbench/qosbench); it is copied
#                into BUILD_DIR first, so a rebuild during the runs does not change it
#   --check      afterwards, one more (untimed) HPCC run with its packet trace of the switch,
#                summarised next to qosbench's results (agree.py)
#
# HPCC runs incast/config.txt (60 ms, tracing off, queue monitor outside the run) in
# BUILD_DIR/run; qosbench runs configs/incast_dcqcn.toml with repetitions = 1 (a copy in
# BUILD_DIR), --jobs 1. Odd runs start with HPCC, even runs with qosbench.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
die() { echo "compare.sh: $*" >&2; exit 1; }

runs=3
build=/tmp/hpcc-build
qosbench=$root/build/apps/qosbench/qosbench
check=0
scheduler=Map
while [[ $# -gt 0 ]]; do
  case $1 in
    -n) runs=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    -b) build=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    -q) qosbench=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    -s) scheduler=${2:-}; shift $(( $# > 1 ? 2 : 1 )) ;;
    --check) check=1; shift ;;
    *) die "usage: compare.sh [-n RUNS] [-b BUILD_DIR] [-q QOSBENCH] [-s SCHEDULER] [--check]" ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "-n wants a positive integer"
[[ $scheduler =~ ^(Map|Heap|Calendar|List)$ ]] || die "-s wants Map, Heap, Calendar or List"
[[ -x /usr/bin/time ]] || die "/usr/bin/time not found (apt-get install time)"
third=$build/obj/third
[[ -x $third ]] || die "no HPCC simulator at $third: run build_hpcc.sh HPCC_SOURCE $build first"
[[ -x $qosbench ]] || die "no qosbench at $qosbench: build it (flock /tmp/qb-build.lock cmake --build $root/build -j2 --target qosbench) or pass -q"
suite=$root/configs/incast_dcqcn.toml
[[ -f $suite ]] || die "no $suite"
grep -q '^duration = "60ms"' "$suite" || die "$suite no longer simulates 60 ms; the comparison assumes it"

# The inputs.
qb=$build/qosbench.snapshot
cp "$qosbench" "$qb"
sed 's/^repetitions = .*/repetitions = 1/' "$suite" > "$build/incast_dcqcn_rep1.toml"
grep -q '^repetitions = 1$' "$build/incast_dcqcn_rep1.toml" || die "could not set repetitions = 1"
run_dir=$build/run
rm -rf "$run_dir"
mkdir -p "$run_dir"
cp "$here"/incast/{config.txt,topology.txt,flow.txt,trace.txt} "$run_dir/"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# One timed run: prints "cpu user sys wall load1".
time_hpcc() {
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  (cd "$run_dir" && NS_GLOBAL_VALUE="SchedulerType=ns3::${scheduler}Scheduler" \
     /usr/bin/time -f '%U %S %e' -o "$build/time.hpcc" "$third" config.txt > out.txt 2> err.txt) ||
    { tail -5 "$run_dir/err.txt" >&2; die "HPCC's third failed (output in $run_dir)"; }
  grep -q '^Running Simulation' "$run_dir/out.txt" || die "HPCC did not run the simulation ($run_dir/out.txt)"
  read -r u s e < "$build/time.hpcc"
  echo "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $u $s $e $load"
}
time_qosbench() {
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f '%U %S %e' -o "$build/time.qb" "$qb" run "$build/incast_dcqcn_rep1.toml" --jobs 1 \
    --json "$build/qb.json" > "$build/qb.out" 2>&1 ||
    { tail -5 "$build/qb.out" >&2; die "qosbench failed (output in $build/qb.out)"; }
  python3 - "$build/qb.json" <<'EOF' || die "qosbench's results are not one 60 ms repetition"
import json, sys
sc = json.load(open(sys.argv[1]))["scenarios"][0]
ok = sc["repetitions_completed"] == 1 and sc["driver_stats"]["virtual_time_ns"] == 60e6
sys.exit(0 if ok else 1)
EOF
  read -r u s e < "$build/time.qb"
  echo "$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }') $u $s $e $load"
}

echo "compare.sh: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "  HPCC:     $third ($(cd "$run_dir" && pwd)/config.txt, ns3::${scheduler}Scheduler)"
if [[ $qosbench == "$root/build/apps/qosbench/qosbench" ]]; then
  echo "  qosbench: $qosbench (copied; repo $(git -C "$root" rev-parse --short HEAD 2> /dev/null || echo '?')$(git -C "$root" diff --quiet HEAD -- 2> /dev/null || echo ', working tree modified'))"
else
  echo "  qosbench: $qosbench (copied; given with -q)"
fi
printf '%-4s %-9s %8s %8s %8s %8s %6s\n' run simulator "cpu s" "user s" "sys s" "wall s" load1
hpcc_cpu=() qb_cpu=()
for ((i = 1; i <= runs; i++)); do
  if ((i % 2)); then order=(hpcc qosbench); else order=(qosbench hpcc); fi
  for sim in "${order[@]}"; do
    if [[ $sim == hpcc ]]; then r=$(time_hpcc); hpcc_cpu+=("${r%% *}")
    else r=$(time_qosbench); qb_cpu+=("${r%% *}"); fi
    read -r c u s e l <<< "$r"
    printf '%-4s %-9s %8.2f %8.2f %8.2f %8.2f %6s\n' "$i" "$sim" "$c" "$u" "$s" "$e" "$l"
  done
done
h=$(printf '%s\n' "${hpcc_cpu[@]}" | median)
q=$(printf '%s\n' "${qb_cpu[@]}" | median)
awk -v h="$h" -v q="$q" 'BEGIN {
  printf "median CPU s per 60 ms simulated: HPCC ns-3 %.3f (%.3fx real time), qosbench %.3f (%.3fx real time)\n", h, 0.06 / h, q, 0.06 / q
  printf "HPCC / qosbench CPU: %.1f\n", h / q }'
echo "HPCC's switch dropped $(grep -c 'Drop: ' "$run_dir/out.txt" || true) packets (headroom full) and the hosts received $(awk '$5 == 1' "$run_dir/pfc.txt" | wc -l) PFC pause frames"

if ((check)); then
  [[ -x $build/check_trace ]] || die "no $build/check_trace: run build_hpcc.sh"
  check_dir=$build/check
  rm -rf "$check_dir"
  cp -r "$run_dir" "$check_dir"
  sed -i 's/^ENABLE_TRACE 0$/ENABLE_TRACE 1/' "$check_dir/config.txt"
  grep -q '^ENABLE_TRACE 1$' "$check_dir/config.txt" || die "could not turn tracing on in $check_dir/config.txt"
  printf '1\n17\n' > "$check_dir/trace.txt"   # node 17: the switch; its port 17 leads to the receiver
  (cd "$check_dir" && "$third" config.txt > out.txt 2> err.txt) || die "HPCC's traced run failed ($check_dir)"
  "$build/check_trace" "$check_dir/mix.tr" 17 17 200000 60000000 > "$check_dir/summary.txt"
  echo
  python3 "$here/agree.py" "$build/qb.json" "$check_dir/summary.txt"
fi
