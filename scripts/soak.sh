#!/usr/bin/env bash
# Soak test (not in CI): runs every shipped suite in a loop for a given time, on the simulator
# and on DPDK net_ring (every suite DPDK accepts: an Ethernet or RoCEv2 port and one sending
# host), and checks that what each run leaves behind and uses stays flat: peak RSS per suite and
# driver, open file descriptors (peak during a run), and the DPDK runtime directories under
# /var/run/dpdk (none left behind).
#   scripts/soak.sh [SECONDS=600] [QOSBENCH=build/apps/qosbench/qosbench]
# Env: QB_SOAK_DURATION (each run's --duration, default 5ms), QB_SOAK_TIMEOUT (s, default 60:
# a run still going then is a hang, killed and counted), QB_SOAK_RSS_GROWTH_PCT (default 10).
# Prints one line per suite and driver (first and last peak RSS, peak fds, runs, starved runs)
# and exits 1 when RSS grew beyond the allowance, fds grew, a runtime dir was left, a run hung or
# crashed. A DPDK run that exits 3 because other processes took its worker's CPU (an invalid
# measurement, "starved of CPU", or "no packet reached a receiver") is no leak: it is counted
# in the "starved" column and reported at the end, not as a failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-600}
bin=${2:-$root/build/apps/qosbench/qosbench}
duration=${QB_SOAK_DURATION:-5ms}
run_timeout=${QB_SOAK_TIMEOUT:-60}
growth_pct=${QB_SOAK_RSS_GROWTH_PCT:-10}
eal="--no-huge -m 512 --no-pci -l 0 --vdev net_ring0"
runtime_root=/var/run/dpdk
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

runtime_dirs() { find "$runtime_root" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }

declare -A first_rss last_rss max_fds first_fds runs starved
failures=0
starved_total=0
dirs_before=$(runtime_dirs)

# One run: peak RSS (KiB) from /usr/bin/time, peak fds sampled every 10 ms while it runs
# (0 for a run shorter than that).
soak_run() {  # key args...
  local key=$1
  shift
  /usr/bin/time -f "%M" -o "$work/rss" timeout -s INT -k 5 "$run_timeout" \
    "$bin" run "$@" --duration "$duration" --repetitions 1 --quiet --json "$work/r.json" \
    >"$work/out" 2>&1 &
  local pid=$! peak_fds=0 rc=0 child fds
  while kill -0 "$pid" 2>/dev/null; do
    child=$(pgrep -P "$(pgrep -P "$pid" | head -1)" 2>/dev/null | head -1 || true)
    if [[ -n "$child" && -d /proc/$child/fd ]]; then
      # The run may end while find lists its fds: not an error (set -e with pipefail).
      fds=$(find "/proc/$child/fd" -mindepth 1 2>/dev/null | wc -l || true)
      ((fds > peak_fds)) && peak_fds=$fds
    fi
    sleep 0.01
  done
  wait "$pid" || rc=$?
  # 0 passed, 1 a gate failed: both are complete runs; 3 with a starved worker: the machine's
  # doing, counted apart; 124/137 timeout; others errors.
  local starved_re='starved of CPU|to other processes; figures unreliable|no packet reached a receiver'
  if ((rc == 3)) && grep -qE "$starved_re" "$work/out"; then
    starved[$key]=$((${starved[$key]:-0} + 1))
    starved_total=$((starved_total + 1))
  elif ((rc != 0 && rc != 1)); then
    echo "soak: $key exit $rc: $(tail -2 "$work/out" | tr '\n' ' ')" >&2
    failures=$((failures + 1))
  fi
  local rss
  rss=$(tail -1 "$work/rss")
  [[ -z "${first_rss[$key]:-}" ]] && first_rss[$key]=$rss
  # The first run long enough to be sampled (0: it ended before the first 10 ms sample).
  if ((peak_fds > 0)) && [[ -z "${first_fds[$key]:-}" ]]; then first_fds[$key]=$peak_fds; fi
  last_rss[$key]=$rss
  if ((peak_fds > ${max_fds[$key]:-0})) || [[ -z "${max_fds[$key]:-}" ]]; then
    max_fds[$key]=$peak_fds
  fi
  runs[$key]=$((${runs[$key]:-0} + 1))
}

end=$((SECONDS + seconds))
loops=0
while ((SECONDS < end)); do
  for suite in "$root"/configs/*.toml; do
    name=$(basename "$suite" .toml)
    soak_run "$name/sim" "$suite" --driver sim
    # DPDK sends Ethernet frames from one host: InfiniBand and multi-host fabrics are refused.
    if grep -qE 'transport *= *"(eth|rocev2)"' "$suite" &&
      ! grep -qE '^hosts *= *([2-9]|[1-9][0-9]+)' "$suite"; then
      soak_run "$name/dpdk" "$suite" --driver dpdk --eal "$eal"
    fi
    ((SECONDS >= end)) && break
  done
  loops=$((loops + 1))
done
dirs_after=$(runtime_dirs)

printf '%-28s %5s %12s %12s %9s %9s %8s\n' "suite/driver" runs "rss0 KiB" "rss KiB" "fds0" \
  "fds max" starved
for key in $(printf '%s\n' "${!runs[@]}" | sort); do
  printf '%-28s %5s %12s %12s %9s %9s %8s\n' "$key" "${runs[$key]}" "${first_rss[$key]}" \
    "${last_rss[$key]}" "${first_fds[$key]:--}" "${max_fds[$key]}" "${starved[$key]:-0}"
  if ((last_rss[$key] * 100 > first_rss[$key] * (100 + growth_pct))); then
    echo "soak: $key: RSS grew from ${first_rss[$key]} to ${last_rss[$key]} KiB" >&2
    failures=$((failures + 1))
  fi
  if [[ -n "${first_fds[$key]:-}" ]] && ((max_fds[$key] > first_fds[$key] + 2)); then
    echo "soak: $key: open fds grew from ${first_fds[$key]} to ${max_fds[$key]}" >&2
    failures=$((failures + 1))
  fi
done
echo "soak: $loops loops in ${seconds}s; $runtime_root entries before $dirs_before, after $dirs_after"
if ((starved_total > 0)); then
  echo "soak: $starved_total DPDK run(s) exited 3 with a worker starved of CPU by other" \
    "processes (not a leak; their RSS and fds are in the table)"
fi
if ((dirs_after > dirs_before)); then
  echo "soak: DPDK runtime directories were left behind in $runtime_root" >&2
  failures=$((failures + 1))
fi
((failures == 0))
