#!/usr/bin/env bash
# qosbench run --driver verbs on the fake ConnectX with a recorded machine (nic_root: a sysfs
# tree shaped like a ConnectX's, the DCB answer, ethtool -S output; tests/nic/fixtures):
#  - a port left at mlx5's defaults (PCP trust) fails configs/roce_ets.toml (DSCP trust) with
#    exit 3 before any QP, naming the keys and the NIC's values, with the dcb commands;
#  - nic_qos = "off" runs it anyway;
#  - a port set as the suite says runs, and the results carry the counters and their checks.
set -uo pipefail
qb="${1:?usage: verbs_nic_state_cli_test.sh QOSBENCH}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fixtures="$repo/tests/nic/fixtures"
work="$(mktemp -d /tmp/qb-nic-cli.XXXXXX)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { timeout 120 "$qb" run "$repo/configs/roce_ets.toml" --driver verbs --duration 5ms \
          --repetitions 1 --interval 0 --driver-option provider=fake "$@"; }

run --driver-option "nic_root=$fixtures/pcp_defaults" --json "$work/a.json" 2>"$work/a.err"
rc=$?
cat "$work/a.err"
[[ $rc == 3 ]] || fail "a port in PCP trust: exit $rc, not 3"
grep -q 'eth.trust: the suite says "dscp", the NIC has "pcp"' "$work/a.err" || fail "eth.trust not named"
grep -q 'eth.tc_max_rate' "$work/a.err" || fail "eth.tc_max_rate not named"
grep -q 'dcb ets set dev ens1f0np0 prio-tc 0:0 1:1 2:2' "$work/a.err" || fail "no dcb command"
[[ ! -e "$work/a.json" ]] || fail "results written for a run that never started"

run --driver-option "nic_root=$fixtures/pcp_defaults" --driver-option nic_qos=off \
    --json "$work/b.json" 2>"$work/b.err"
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { cat "$work/b.err"; fail "nic_qos=off: exit $rc"; }

run --driver-option "nic_root=$fixtures/roce_ets" --json "$work/c.json" --html "$work/c.html" \
    >"$work/c.out" 2>"$work/c.err"
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { cat "$work/c.err"; fail "a port set as the suite says: exit $rc"; }
grep -q "matches the suite's \[eth\]" "$work/c.err" || fail "no match note"
python3 - "$work/c.json" <<'PY' || exit 1
import json, sys
s = json.load(open(sys.argv[1]))["scenarios"][0]
stats = dict(s["driver_stats"])
assert stats["nic.counters_read"] > 0, stats
assert "nic.rdma.np_cnp_sent" in stats and "nic.ethtool.tx_prio3_pause" in stats, stats
names = [c["name"] for c in s["nic_checks"]]
assert names == ["priority_bytes", "cnp_vs_ecn", "pause_on_lossy", "discards_on_lossless",
                 "retransmissions"], names
# The fake's run is loopback: bytes per priority are not checked there; the suite gives no pfc.
checks = {c["name"]: c for c in s["nic_checks"]}
assert not checks["priority_bytes"]["checked"] and "loopback" in checks["priority_bytes"]["detail"]
assert not checks["pause_on_lossy"]["checked"]
assert checks["retransmissions"]["checked"] and checks["retransmissions"]["passed"]
PY
grep -q "NIC counters (deltas per repetition" "$work/c.out" || fail "no console summary"
grep -q "SKIP priority_bytes   loopback" "$work/c.out" || fail "no check lines on the console"
grep -q "NIC counters (deltas per repetition) and their reconciliation" "$work/c.html" ||
  fail "no NIC counters section in the HTML report"
echo ok
