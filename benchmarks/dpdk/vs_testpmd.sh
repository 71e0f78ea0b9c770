#!/usr/bin/env bash
# qosbench vs dpdk-testpmd --forward-mode=txonly on net_null: 64-byte frames, the same forwarding
# core, no hugepages, no root set-up. Each round runs testpmd, then qosbench with saturating
# flows, then qosbench with CBR-paced flows (offered above what a core can send), so machine load
# hits all three alike; the ratios per round and their medians are printed. qosbench runs the
# engine's FlowWorker on the DPDK driver (benchmarks/dpdk/qb_dpdk_txonly): per-flow generators,
# sequence numbers and Tx timestamps in every frame. Then scaling: Mpps with 1 and 2 worker
# cores on net_null (Tx only; testpmd with 1 and 2 forwarding cores beside it) and on net_ring
# (loopback: the same cores also receive and check every frame).
# -q: the product command instead: each round runs testpmd, then `qosbench run` of the shipped
# Tx-only suites benchmarks/dpdk/null_tx_saturate.toml and null_tx_paced.toml (8 flows of 64 B
# frames, EAL lcores 0-1, one worker on lcore 0; testpmd forwards on CPU 0 too); the Mpps is
# the sender results' tx_mpps (--json). No scaling part.
#   benchmarks/dpdk/vs_testpmd.sh [-b BUILD_DIR] [-s SECONDS] [-r ROUNDS] [-f FLOWS]
#                                 [-p FLOW_PPS] [-c CORE] [-S] [-q]   (-S: skip scaling)
set -euo pipefail
build=build-perf
seconds=3
rounds=5
flows=4
flow_pps=25e6
core=1
scaling=1
product=0
while getopts "b:s:r:f:p:c:Sq" opt; do
  case $opt in
    b) build=$OPTARG ;;
    s) seconds=$OPTARG ;;
    r) rounds=$OPTARG ;;
    f) flows=$OPTARG ;;
    p) flow_pps=$OPTARG ;;
    c) core=$OPTARG ;;
    S) scaling=0 ;;
    q) product=1; core=0 ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
txonly="$build/benchmarks/dpdk/qb_dpdk_txonly"
qosbench="$build/apps/qosbench/qosbench"
if (( product )); then
  [[ -x $qosbench ]] || { echo "error: $qosbench not built (ninja -C $build qosbench)" >&2; exit 3; }
else
  [[ -x $txonly ]] || { echo "error: $txonly not built (ninja -C $build qb_dpdk_txonly)" >&2; exit 3; }
fi
command -v dpdk-testpmd >/dev/null || { echo "error: dpdk-testpmd not found (apt-get install dpdk)" >&2; exit 3; }
other=$(( core == 0 ? 1 : 0 ))
prefix="qb-testpmd-$$"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT
eal_null=(--no-huge -m 512 --no-pci --vdev net_null0)

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# testpmd txonly Mpps: the median of its non-zero per-second Tx-pps (it runs a second longer
# than qosbench, timed from the start of forwarding: its first sample is partial).
# $1: forwarding cores (1 or 2); lcores: main on $other (prints only), forwarding on $core
# (and on $other for 2).
testpmd_mpps() {
  local n=$1 log lcores pid
  log=$(mktemp)
  if (( n == 1 )); then lcores="0@$other,1@$core"; else lcores="0@$other,1@$other,2@$core"; fi
  dpdk-testpmd "${eal_null[@]}" --file-prefix "$prefix" --no-telemetry --lcores "$lcores" \
    --main-lcore 0 -- --forward-mode=txonly --txpkts=60 --burst=32 --txq="$n" --rxq="$n" \
    --nb-cores="$n" --total-num-mbufs=16384 --stats-period 1 -a >"$log" 2>&1 &
  pid=$!
  # EAL and pool set-up take seconds on a loaded machine: time the run from its start.
  for ((i = 0; i < 300; ++i)); do
    grep -q 'forwards packets on' "$log" && break
    sleep 0.1
  done
  sleep "$(awk -v s="$seconds" 'BEGIN {print s + 1}')"
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "/var/run/dpdk/$prefix"
  local mpps
  mpps=$(grep -o 'Tx-pps: *[0-9]*' "$log" | awk '$2 > 0 {print $2 / 1e6}' | median)
  rm -f "$log"
  [[ -n $mpps && $mpps != 0 ]] || { echo "error: no Tx-pps from dpdk-testpmd" >&2; exit 3; }
  echo "$mpps"
}

# qosbench Mpps (Tx; with QB_KEY=rx_mpps received); extra arguments go to qb_dpdk_txonly.
qosbench_mpps() {
  local lcores=$1 vdev=$2 log mpps key=${QB_KEY:-qosbench_mpps}
  shift 2
  log=$(mktemp)
  mpps=$("$txonly" --seconds "$seconds" --flows "$flows" --bytes 64 "$@" -- --no-huge -m 512 \
    --no-pci -l "$lcores" --vdev "$vdev" 2>"$log" | awk -v k="$key" '$1 == k {print $2}')
  [[ -n $mpps ]] || { cat "$log" >&2; echo "error: qb_dpdk_txonly printed no rate" >&2; exit 3; }
  rm -f "$log"
  echo "$mpps"
}

# `qosbench run SUITE` (the product command, sender only): "<tx_mpps> <lost %>" from its results
# (lost %: the CPU time its worker lost to other processes; testpmd loses about as much in the
# same round but cannot say). A starved run exits 3 (invalid measurement): on a shared machine
# that is expected, and the side-by-side ratio is still what this script reports.
product_mpps() {
  local suite=$1 json log mpps lost rc=0
  json=$(mktemp)
  log=$(mktemp)
  "$qosbench" run "$suite" --driver dpdk --duration "${seconds}s" --json "$json" --quiet \
    >"$log" 2>&1 || rc=$?
  if ((rc != 0)) && ! { ((rc == 3)) && grep -q "starved of CPU" "$log"; }; then
    cat "$log" >&2
    echo "error: qosbench run $suite failed (exit $rc)" >&2
    exit 3
  fi
  mpps=$(grep -o '"tx_mpps": *[0-9.e+-]*' "$json" | awk '{print $2}')
  lost=$(grep -o '"lost_fraction": *[0-9.e+-]*' "$json" | awk '{printf "%.1f", 100 * $2}')
  rm -f "$json" "$log"
  [[ -n $mpps ]] || { echo "error: no tx_mpps in the results of $suite" >&2; exit 3; }
  echo "$mpps ${lost:-?}"
}

if (( product )); then
  echo "qosbench run (product command) vs testpmd txonly: net_null, 64 B frames, 8 flows,"
  echo "worker and testpmd forwarding on CPU $core, ${seconds}s per run, $rounds rounds, load $(cut -d' ' -f1-3 /proc/loadavg)"
  printf "%-6s %10s %14s %7s %7s %14s %7s %7s\n" round testpmd qb_saturate lost% ratio \
    qb_paced lost% ratio
  sat_ratios=()
  paced_ratios=()
  for ((r = 1; r <= rounds; ++r)); do
    t=$(testpmd_mpps 1)
    out=$(product_mpps "$here/null_tx_saturate.toml")
    read -r s s_lost <<<"$out"
    out=$(product_mpps "$here/null_tx_paced.toml")
    read -r p p_lost <<<"$out"
    rs=$(awk -v q="$s" -v t="$t" 'BEGIN {printf "%.3f", q / t}')
    rp=$(awk -v q="$p" -v t="$t" 'BEGIN {printf "%.3f", q / t}')
    sat_ratios+=("$rs")
    paced_ratios+=("$rp")
    printf "%-6s %10.2f %14.2f %7s %7s %14.2f %7s %7s\n" "$r" "$t" "$s" "$s_lost" "$rs" "$p" \
      "$p_lost" "$rp"
  done
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "median ratio qosbench run/testpmd, saturating flows: $(printf '%s\n' "${sat_ratios[@]}" | median)"
  echo "median ratio qosbench run/testpmd, CBR-paced flows:  $(printf '%s\n' "${paced_ratios[@]}" | median)"
  exit 0
fi

echo "net_null, 64 B frames, core $core, $flows flows, ${seconds}s per run, $rounds rounds"
printf "%-6s %10s %14s %7s %14s %7s\n" round testpmd qb_saturate ratio qb_paced ratio
sat_ratios=()
paced_ratios=()
for ((r = 1; r <= rounds; ++r)); do
  t=$(testpmd_mpps 1)
  s=$(qosbench_mpps "$core" net_null0)
  p=$(qosbench_mpps "$core" net_null0 --flow-pps "$flow_pps")
  rs=$(awk -v q="$s" -v t="$t" 'BEGIN {printf "%.3f", q / t}')
  rp=$(awk -v q="$p" -v t="$t" 'BEGIN {printf "%.3f", q / t}')
  sat_ratios+=("$rs")
  paced_ratios+=("$rp")
  printf "%-6s %10.2f %14.2f %7s %14.2f %7s\n" "$r" "$t" "$s" "$rs" "$p" "$rp"
done
echo "median ratio qosbench/testpmd, saturating flows:              $(printf '%s\n' "${sat_ratios[@]}" | median)"
echo "median ratio qosbench/testpmd, CBR-paced flows ($flow_pps pps each): $(printf '%s\n' "${paced_ratios[@]}" | median)"

(( scaling )) || exit 0
echo
echo "scaling (Mpps; saturating flows, 64 B; 1 worker on core $core, 2 workers on cores $other,$core)"
printf "%-44s %10s %10s\n" "" 1_worker 2_workers
t1=$(testpmd_mpps 1)
t2=$(testpmd_mpps 2)
printf "%-44s %10.2f %10.2f\n" "testpmd txonly, net_null (forwarding cores)" "$t1" "$t2"
q1=$(qosbench_mpps "$core" net_null0)
q2=$(qosbench_mpps "$other,$core" net_null0 --workers 2)
printf "%-44s %10.2f %10.2f\n" "qosbench Tx, net_null" "$q1" "$q2"
r1=$(QB_KEY=rx_mpps qosbench_mpps "$core" net_ring0 --rx)
r2=$(QB_KEY=rx_mpps qosbench_mpps "$other,$core" net_ring0 --rx --workers 2)
printf "%-44s %10.2f %10.2f\n" "qosbench Tx+Rx, net_ring loopback (received)" "$r1" "$r2"
