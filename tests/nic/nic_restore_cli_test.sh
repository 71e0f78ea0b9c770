#!/usr/bin/env bash
# qosbench run --apply-qos and nic-restore on a fake port a process can program: a copy of the
# recorded ConnectX machine (tests/nic/fixtures/pcp_defaults, PCP trust) made to take settings
# (dcb/<netdev>.takes-sets, qb/nic/recorded.hpp), configs/roce_ets.toml (DSCP trust):
#  1. --apply-qos conflicts (a --driver-option nic_qos=off, the suite's nic_qos = "off", the
#     sim driver) are exit 2 naming both;
#  2. a run with --apply-qos programs the port and puts it back (a check run then sees PCP);
#  3. kill -9 mid-run leaves the port as the suite set it and the journal: a check run stops
#     with the command, `qosbench nic-restore` puts it back;
#  4. a second SIGINT exits 130 printing the command and leaving the journal; the next
#     --apply-qos run puts the port back first;
#  5. a port that refuses the restore: exit 3, the verdict says so, the journal is kept;
#     nic-restore puts it back once the port takes settings again.
set -uo pipefail
qb="${1:?usage: nic_restore_cli_test.sh QOSBENCH}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d /tmp/qb-nic-restore.XXXXXX)"
bg=""
cleanup() {
  [[ -n "$bg" ]] && kill -9 "$bg" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
port="$work/port"
state="$work/state"
export QOSBENCH_STATE_DIR="$state"
cp -r "$repo/tests/nic/fixtures/pcp_defaults" "$port"
touch "$port/dcb/ens1f0np0.takes-sets"
journal() { ls "$state"/*.journal 2>/dev/null | head -n 1; }
run() {  # run SUITE [args]: the verbs driver's fake on the recorded port
  local suite=$1
  shift
  timeout 120 "$qb" run "$suite" --driver verbs --repetitions 1 --interval 0 \
    --driver-option provider=fake --driver-option "nic_root=$port" "$@"
}
# The port's trust as a check run sees it: "pcp" (its own), "dscp" (the suite's), or the error.
expect_own_state() {  # expect_own_state WHAT
  run "$repo/configs/roce_ets.toml" --duration 5ms >/dev/null 2>"$work/check.err"
  local rc=$?
  [[ $rc == 3 ]] && grep -q 'eth.trust: the suite says "dscp", the NIC has "pcp"' "$work/check.err" ||
    { cat "$work/check.err"; fail "$1: the port is not back in PCP trust (check run exit $rc)"; }
  [[ -z "$(journal)" ]] || fail "$1: a journal is left: $(journal)"
}
# Starts a long --apply-qos run in the background and waits until it has programmed the port.
start_applied_run() {
  "$qb" run "$repo/configs/roce_ets.toml" --driver verbs --repetitions 1 --interval 0 --quiet \
    --duration 60s --driver-option provider=fake --driver-option "nic_root=$port" --apply-qos \
    >"$work/bg.out" 2>"$work/bg.err" &
  bg=$!
  for _ in $(seq 600); do
    grep -q "programmed the suite's" "$work/bg.err" 2>/dev/null && [[ -n "$(journal)" ]] && return 0
    kill -0 "$bg" 2>/dev/null || break
    sleep 0.1
  done
  cat "$work/bg.err"
  fail "the background run did not program the port"
}

echo "--- 1. conflicts"
run "$repo/configs/roce_ets.toml" --duration 5ms --apply-qos --driver-option nic_qos=off \
  >/dev/null 2>"$work/c1.err"
rc=$?
[[ $rc == 2 ]] || { cat "$work/c1.err"; fail "--apply-qos with nic_qos=off: exit $rc, not 2"; }
grep -q -- "--apply-qos and --driver-option nic_qos=off conflict" "$work/c1.err" ||
  { cat "$work/c1.err"; fail "the conflict does not name both"; }
{ cat "$repo/configs/roce_ets.toml"; printf '\n[driver.verbs]\nnic_qos = "off"\n'; } >"$work/off.toml"
line=$(grep -n '^nic_qos = "off"' "$work/off.toml" | cut -d: -f1)
run "$work/off.toml" --duration 5ms --apply-qos >/dev/null 2>"$work/c2.err"
rc=$?
[[ $rc == 2 ]] || { cat "$work/c2.err"; fail "--apply-qos over the suite's nic_qos = off: exit $rc"; }
grep -q "off.toml:$line:[0-9]*: error: driver.verbs.nic_qos: is \"off\" in the suite, which conflicts with --apply-qos" \
  "$work/c2.err" || { cat "$work/c2.err"; fail "the suite's key is not located or --apply-qos not named"; }
"$qb" run "$repo/configs/roce_ets.toml" --driver sim --duration 5ms --apply-qos --quiet \
  2>"$work/c3.err" >/dev/null
rc=$?
[[ $rc == 2 ]] || { cat "$work/c3.err"; fail "--apply-qos on the sim driver: exit $rc, not 2"; }
grep -q -- "--apply-qos: the sim driver has no NIC whose QoS it programs" "$work/c3.err" ||
  { cat "$work/c3.err"; fail "the sim's refusal does not name --apply-qos"; }
echo "ok"

echo "--- 2. --apply-qos programs the port for the run and puts it back"
original=$(cat "$port/dcb/ens1f0np0.hex")
run "$repo/configs/roce_ets.toml" --duration 5ms --apply-qos --json "$work/a.json" >/dev/null \
  2>"$work/a.err"
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { cat "$work/a.err"; fail "--apply-qos run: exit $rc"; }
grep -q "programmed the suite's eth.trust" "$work/a.err" || { cat "$work/a.err"; fail "no programmed note"; }
[[ "$(cat "$port/dcb/ens1f0np0.hex")" != "$original" ]] || fail "the fake port never took a setting"
expect_own_state "after an --apply-qos run"
echo "ok"

echo "--- 3. kill -9 mid-run, then nic-restore"
start_applied_run
kill -9 "$bg"
wait "$bg" 2>/dev/null
bg=""
j=$(journal)
[[ -n "$j" ]] || fail "no journal left by the killed run"
run "$repo/configs/roce_ets.toml" --duration 5ms >/dev/null 2>"$work/k.err"
rc=$?
[[ $rc == 3 ]] || { cat "$work/k.err"; fail "a check run over a killed run's port: exit $rc, not 3"; }
grep -q "still as a qosbench run that did not end" "$work/k.err" &&
  grep -q "qosbench nic-restore --state-dir $state" "$work/k.err" ||
  { cat "$work/k.err"; fail "the check run does not say how to put the port back"; }
"$qb" nic-restore --state-dir "$state" >"$work/r.out" 2>"$work/r.err"
rc=$?
[[ $rc == 0 ]] || { cat "$work/r.out" "$work/r.err"; fail "nic-restore: exit $rc"; }
grep -q "put back the QoS of ens1f0np0" "$work/r.out" || { cat "$work/r.out"; fail "nic-restore said nothing"; }
expect_own_state "after nic-restore"
"$qb" nic-restore --state-dir "$state" eth9 2>"$work/r2.err"
rc=$?
[[ $rc == 2 ]] && grep -q "no restore journal for eth9" "$work/r2.err" ||
  { cat "$work/r2.err"; fail "nic-restore of an unknown netdev: exit $rc"; }
echo "ok"

echo "--- 4. a second SIGINT"
# A slow port (each setting 1.5 s): the second SIGINT lands while the first's teardown restores.
echo "delay_ms 1500" >"$port/dcb/ens1f0np0.takes-sets"
start_applied_run
kill -INT "$bg"
sleep 0.5
kill -INT "$bg"
wait "$bg"
rc=$?
bg=""
[[ $rc == 130 ]] || { cat "$work/bg.err"; fail "a second SIGINT: exit $rc, not 130"; }
grep -q "the QoS of ens1f0np0 is left as the suite set it" "$work/bg.err" &&
  grep -q "put it back with: qosbench nic-restore --state-dir $state" "$work/bg.err" ||
  { cat "$work/bg.err"; fail "exit 130 without the command"; }
[[ -n "$(journal)" ]] || fail "exit 130 and no journal"
: >"$port/dcb/ens1f0np0.takes-sets"
run "$repo/configs/roce_ets.toml" --duration 5ms --apply-qos >/dev/null 2>"$work/s.err"
rc=$?
[[ $rc == 0 || $rc == 1 ]] || { cat "$work/s.err"; fail "the --apply-qos run after it: exit $rc"; }
grep -q "put back as it was before a run that did not end" "$work/s.err" ||
  { cat "$work/s.err"; fail "the next --apply-qos run did not put the port back first"; }
expect_own_state "after the --apply-qos run that found the journal"
echo "ok"

echo "--- 5. a port that cannot be put back"
echo "sets_left 1" >"$port/dcb/ens1f0np0.takes-sets"
run "$repo/configs/roce_ets.toml" --duration 5ms --apply-qos --json "$work/f.json" \
  >"$work/f.out" 2>"$work/f.err"
rc=$?
[[ $rc == 3 ]] || { cat "$work/f.out" "$work/f.err"; fail "a port left changed: exit $rc, not 3"; }
grep -q "FAILED: NIC left changed: the QoS of ens1f0np0 was not put back (qosbench nic-restore --state-dir $state)" \
  "$work/f.out" || { cat "$work/f.out"; fail "the verdict line does not say the port was left changed"; }
grep -q "could not be put back" "$work/f.err" || { cat "$work/f.err"; fail "no error on stderr"; }
python3 - "$work/f.json" <<'PY' || fail "the results do not carry it"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["passed"] is False, r["passed"]
assert r["nic_left_changed"] and "ens1f0np0" in r["nic_left_changed"][0], r.get("nic_left_changed")
assert r["verdict"]["failed"][0].startswith("NIC left changed"), r["verdict"]
PY
[[ -n "$(journal)" ]] || fail "the journal of a port left changed was removed"
: >"$port/dcb/ens1f0np0.takes-sets"  # the port takes settings again
"$qb" nic-restore --state-dir "$state" >"$work/r3.out" 2>&1 || { cat "$work/r3.out"; fail "nic-restore after the fix"; }
expect_own_state "after nic-restore of the port left changed"
echo "ok"
