#!/usr/bin/env bash
# Side by side on net_null, 64-byte frames, one forwarding core each (the same core, one after
# the other): dpdk-testpmd --forward-mode=txonly vs qosbench's engine loop on the DPDK driver
# (per-flow generators, sequence numbers and timestamps in every frame). Prints both rates and
# qosbench/testpmd. No hugepages, no root set-up.
#   benchmarks/dpdk/vs_testpmd.sh [BUILD_DIR] [SECONDS] [CORE] [FLOWS] [SHAPER 0|1]
set -euo pipefail
build=${1:-build-dpdk}
seconds=${2:-5}
core=${3:-1}
flows=${4:-4}
shaper=${5:-0}
txonly="$build/benchmarks/dpdk/qb_dpdk_txonly"
[[ -x $txonly ]] || { echo "error: $txonly not built (cmake -DQB_WITH_DPDK=ON, ninja qb_dpdk_txonly)" >&2; exit 3; }
command -v dpdk-testpmd >/dev/null || { echo "error: dpdk-testpmd not found (apt-get install dpdk)" >&2; exit 3; }
main_core=$(( core == 0 ? 1 : 0 ))
prefix="qb-testpmd-$$"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT

# testpmd: the main lcore only prints stats; lcore $core forwards. 60 bytes + 4 FCS = 64.
log=$(mktemp)
dpdk-testpmd --no-huge -m 512 --no-pci --file-prefix "$prefix" --no-telemetry \
  -l "$main_core,$core" --main-lcore "$main_core" --vdev net_null0 -- \
  --forward-mode=txonly --txpkts=60 --total-num-mbufs=8192 --stats-period 1 -a \
  >"$log" 2>&1 &
pid=$!
sleep "$seconds"
kill -INT "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
testpmd_pps=$(grep -o 'Tx-pps: *[0-9]*' "$log" | awk '{print $2}' | tail -n 3 | sort -n | tail -n 1)
rm -f "$log"
[[ -n $testpmd_pps ]] || { echo "error: no Tx-pps from dpdk-testpmd" >&2; exit 3; }

qb_log=$(mktemp)
qb_mpps=$("$txonly" "$seconds" "$flows" 64 "$shaper" --no-huge -m 512 --no-pci -l "$core" \
  --vdev net_null0 2>"$qb_log" | awk '/^qosbench_mpps/ {print $2}')
[[ -n $qb_mpps ]] || { cat "$qb_log" >&2; echo "error: qb_dpdk_txonly printed no rate" >&2; exit 3; }
rm -f "$qb_log"

awk -v t="$testpmd_pps" -v q="$qb_mpps" -v f="$flows" -v s="$shaper" 'BEGIN {
  printf "testpmd txonly      %8.2f Mpps (net_null, 64 B, 1 core)\n", t / 1e6;
  printf "qosbench (%d flows, shaper %s) %8.2f Mpps (sequence + timestamps in every frame)\n", f, s, q;
  printf "ratio qosbench/testpmd %.3f\n", q / (t / 1e6) }'
