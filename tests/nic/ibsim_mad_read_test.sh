#!/usr/bin/env bash
# The [ib] check's MAD reads on a simulated fabric: ibsim, OpenSM programs the CA ports from a
# conformance opensm.conf, then qb_nic_ib_mad_read (libibmad under libumad2sim, attached as
# Hca2) reads Hca2's own port and must find the tables that file gives; against another file
# it must find differences. VLHighLimit is not compared: ibsim does not store it (docs/
# opensm-sim.md). Skips (77) without ibsim, opensm or libumad2sim.
set -euo pipefail
reader="${1:?usage: ibsim_mad_read_test.sh READER}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
umad2sim=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
for tool in ibsim opensm timeout; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool not installed (apt-get install ibsim-utils opensm)"; exit 77; }
done
[[ -r "$umad2sim" ]] || { echo "skipped: $umad2sim missing (libumad2sim0)"; exit 77; }

work="$(mktemp -d /tmp/qb-ibsim-mad.XXXXXX)"
export IBSIM_SOCKNAME="qbmad$$"
ibsim_pid=""
cleanup() {
  local rc=$?
  if [[ -n "$ibsim_pid" ]]; then
    kill -TERM "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT

timeout -k 2 120 ibsim -s -n "$repo/tests/conformance/fabrics/one-switch-3ca.net" </dev/null >"$work/ibsim.log" 2>&1 &
ibsim_pid=$!
for _ in $(seq 200); do grep -q "Network simulator ready" "$work/ibsim.log" && break; sleep 0.05; done
grep -q "Network simulator ready" "$work/ibsim.log" || { cat "$work/ibsim.log"; exit 1; }

conf="$repo/tests/conformance/configs/doc-example.conf"
SIM_HOST=Hca1 timeout -k 2 30 env LD_PRELOAD="$umad2sim" \
  opensm --once -Q -F "$conf" -f "$work/opensm.log" >"$work/opensm.out" 2>&1 ||
  { tail -20 "$work/opensm.log"; exit 1; }
grep -q "SUBNET UP" "$work/opensm.log" || { tail -20 "$work/opensm.log"; exit 1; }

read_port() { SIM_HOST=Hca2 timeout -k 2 30 env LD_PRELOAD="$umad2sim" "$reader" ibsim0 1 "$@"; }
echo "== the file OpenSM programmed: no difference expected"
read_port "$conf" --ignore ib.high_limit
echo "== another file: differences expected"
if read_port "$repo/tests/conformance/configs/defaults.conf" --ignore ib.high_limit; then
  echo "FAIL: the defaults' tables were found on a port programmed from doc-example.conf"
  exit 1
fi
echo "ok"
