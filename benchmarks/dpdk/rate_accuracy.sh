#!/usr/bin/env bash
# Rate accuracy of qosbench on DPDK's net_ring loopback (no NIC, no hugepages), measured by the
# receive side over a 1 s window after 100 ms of warm-up, judged by `qosbench run` itself:
#  1. CBR flows (per-flow TSC pacing) at 1, 5 and 10 Mpps in total, and a mix of sizes:
#     each flow's measured rate vs its target, and the total. Target: within 0.5 %.
#  2. The software-shaped 70/30 tree with g2 capped at 4 Gbit/s (DWRR + token bucket of the
#     simulator's scheduler, in front of the Tx queue, paced at the port rate), on a 25 Gbit/s
#     and a 100 Gbit/s port, 1518-byte frames (and the same tree without the cap, where the
#     DWRR weights alone decide): each flow vs the oracle. Target: within 2 %. Each saturating
#     flow keeps 128 frames in flight: the shaper's queues must stay deeper than the link time
#     it makes up after a late loop (a 256-frame Tx ring), or they drain and the link idles.
# One worker core (Tx and Rx on it); the figures move with machine load, so run it on a quiet
# machine or look at several runs.
#  3. The man-page suite itself (configs/mlx5_two_groups.toml on Ethernet: 8 saturating flows
#     of 4096-byte frames, 70/30 with g2 capped at 4096 Mbit/s) at 100 Gbit/s: each flow vs the
#     oracle. Target: within 2 %.
# Each case prints the CPU the worker lost to other processes: a shaper loses that share of
# the link (it cannot send while descheduled), so a loaded machine's figures are not its own.
#   benchmarks/dpdk/rate_accuracy.sh [-b BUILD_DIR] [-c CORE] [-d DURATION] [-o cbr|tree|manpage]
set -euo pipefail
build=build-perf
core=1
duration=1s
only=""
while getopts "b:c:d:o:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    c) core=$OPTARG ;;
    d) duration=$OPTARG ;;
    o) only=$OPTARG ;;
    *) sed -n '2,12p' "$0" >&2; exit 2 ;;
  esac
done
qosbench="$build/apps/qosbench/qosbench"
[[ -x $qosbench ]] || { echo "error: $qosbench not built (ninja -C $build qosbench)" >&2; exit 3; }
command -v python3 >/dev/null || { echo "error: python3 is needed to read the results" >&2; exit 3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# $1 name, $2 limit (fraction), $3 port rate, $4 shaper (true/false), $5... suite body.
run_case() {
  local name=$1 limit=$2 rate=$3 shaper=$4
  shift 4
  {
    printf '[suite]\nname = "%s"\nseed = 1\nwarmup = "100ms"\nduration = "%s"\n' "$name" "$duration"
    printf '[driver]\nname = "dpdk"\n[driver.dpdk]\n'
    printf 'eal = ["--no-huge", "-m", "512", "--no-pci", "-l", "%s", "--vdev", "net_ring0"]\n' "$core"
    printf 'tx_port = "net_ring0"\nsoftware_shaper = %s\n' "$shaper"
    printf '[port]\nrate = "%s"\ntransport = "eth"\nmtu = 1500\n' "$rate"
    printf '%s\n' "$@"
  } >"$work/suite.toml"
  judge "$name" "$limit" "$work/suite.toml"
}

# $1 name, $2 limit (fraction), $3 suite file, $4... extra qosbench options.
judge() {
  local name=$1 limit=$2 suite=$3
  shift 3
  if ! "$qosbench" run "$suite" --json "$work/out.json" --quiet "$@" >"$work/log" 2>&1; then
    # exit 1 is a gate; there are none here, so anything else is a failure to run
    grep -q '"complete": true' "$work/out.json" 2>/dev/null || { cat "$work/log" >&2; exit 3; }
  fi
  python3 - "$work/out.json" "$name" "$limit" <<'EOF'
import json, sys
results, name, limit = json.load(open(sys.argv[1])), sys.argv[2], float(sys.argv[3])
s = results["scenarios"][0]
print(f"{name}")
print(f"  {'flow':<10} {'expected':>14} {'measured':>14} {'error':>9} {'Mpps':>8} {'p99 lat':>10}")
worst = 0.0
for f in s["flows"]:
    mpps = f["packets"] / (s["duration_ns"] / 1e9) / 1e6
    p99 = f.get("latency_ns", {}).get("p99", 0) / 1e3
    print(f"  {f['name']:<10} {f['expected_bps'] / 1e9:>9.4f} Gb/s {f['measured_bps'] / 1e9:>9.4f} Gb/s "
          f"{f['error'] * 100:>+8.3f}% {mpps:>8.3f} {p99:>8.1f}us")
    worst = max(worst, abs(f["error"]))
exp = sum(f["expected_bps"] for f in s["flows"])
meas = sum(f["measured_bps"] for f in s["flows"])
pkts = sum(f["packets"] for f in s["flows"]) / (s["duration_ns"] / 1e9) / 1e6
total = meas / exp - 1
print(f"  {'total':<10} {exp / 1e9:>9.4f} Gb/s {meas / 1e9:>9.4f} Gb/s {total * 100:>+8.3f}% {pkts:>8.3f}")
verdict = "ok" if worst <= limit else "MISSED"
print(f"  worst flow error {worst * 100:.3f}% (target {limit * 100:.1f}%): {verdict}")
# A software shaper cannot send while its core is taken: the link time passes unused.
lost = s.get("starvation", {}).get("lost_fraction", 0.0)
print(f"  the worker lost {lost * 100:.2f}% of its CPU to other processes"
      + ("" if lost <= 0.01 else ": figures unreliable, run it on a quiet core"))
EOF
}

cbr() {  # name count size rate
  printf '[[flow]]\nname = "%s"\ncount = %s\nsize = %s\nrate = "%s"\n' "$@"
}

if [[ -z $only || $only == cbr ]]; then
echo "== CBR flows on net_ring, ${duration} measured, 1 core (Tx + Rx)"
run_case "4 x 0.25 Mpps, 64 B (1 Mpps)" 0.005 100Gbps false "$(cbr c 4 64 0.25Mpps)"
run_case "4 x 1.25 Mpps, 64 B (5 Mpps)" 0.005 100Gbps false "$(cbr c 4 64 1.25Mpps)"
run_case "4 x 2.5 Mpps, 64 B (10 Mpps)" 0.005 100Gbps false "$(cbr c 4 64 2.5Mpps)"
run_case "mixed: 2 x 3 Mpps 64 B, 512 B at 1 Mpps, 2 x 1518 B at 5 Gbit/s (7.8 Mpps)" 0.005 \
  100Gbps false "$(cbr s 2 64 3Mpps)" "$(cbr m 1 512 1Mpps)" "$(cbr l 2 1518 5Gbps)"
fi

tree() {  # cap
  cat <<EOF
[[sched.node]]
name = "root"
[[sched.leaf]]
name = "g1"
parent = "root"
bw_share = 7
[[sched.leaf]]
name = "g2"
parent = "root"
bw_share = 3
${1:+max_avg_bw = \"$1\"}
[[flow]]
name = "g1"
count = 2
leaf = "g1"
size = 1518
rate = "saturate"
outstanding = 128
[[flow]]
name = "g2"
count = 2
leaf = "g2"
size = 1518
rate = "saturate"
outstanding = 128
EOF
}
if [[ -z $only || $only == tree ]]; then
echo "== software-shaped 70/30 tree, g2 capped at 4 Gbit/s, on net_ring, ${duration} measured"
run_case "25 Gbit/s port (2.03 Mpps of 1518 B)" 0.02 25Gbps true "$(tree 4Gbps)"
run_case "100 Gbit/s port (8.1 Mpps of 1518 B)" 0.02 100Gbps true "$(tree 4Gbps)"
run_case "no cap (DWRR 70/30 alone), 25 Gbit/s port" 0.02 25Gbps true "$(tree "")"
fi

if [[ -z $only || $only == manpage ]]; then
echo "== the man-page suite on Ethernet at 100 Gbit/s (4096-byte frames, 2.6 Mpps), ${duration} measured"
root=$(cd "$(dirname "$0")/../.." && pwd)
sed 's/^transport = "rocev2".*/transport = "eth"/' "$root/configs/mlx5_two_groups.toml" >"$work/manpage.toml"
judge "configs/mlx5_two_groups.toml, transport eth" 0.02 "$work/manpage.toml" --driver dpdk \
  --eal "--no-huge -m 1024 --no-pci -l $core --vdev net_ring0" --repetitions 1 \
  --duration "$duration"
fi
