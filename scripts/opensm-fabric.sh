#!/usr/bin/env bash
# opensm-fabric.sh: start ibsim on a multi-switch fabric, let OpenSM route it and program its QoS
# tables (one sweep, a given opensm.conf and optional qos-policy.conf), and read back through the
# diag tools what `qosbench import-opensm --fabric-dir` reads: the topology (ibnetdiscover), every
# switch's LFT (dump_lfts) and the SL2VL and VLArb tables of every connected port (smpquery).
# Everything it starts is stopped on exit. See docs/opensm-sim.md.
set -euo pipefail

readonly kUmad2sim_default=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

usage() {
  cat <<'EOF2'
usage: scripts/opensm-fabric.sh [options] OPENSM_CONF FABRIC OUT_DIR

Writes OUT_DIR/ibnetdiscover.txt, OUT_DIR/lfts.txt and OUT_DIR/port-tables.txt (per port a
'### node "ID" port N' line, then `smpquery sl2vl` and `smpquery vlarb` as printed).

Options:
  --qos-policy FILE   pass FILE to opensm as -Y
  --sm-node NAME      the ibsim node OpenSM attaches to (default: the first Hca of FABRIC)
  --no-poison         do not pre-load distinctive tables before the real run
  --keep DIR          keep the logs in DIR
  --step-timeout S    timeout for every step (default 20 s)
  -h, --help          this text
Exit status: 0 ok, 1 a step failed (message + log on stderr), 2 usage.
EOF2
}

die_usage() { echo "opensm-fabric: $*" >&2; usage >&2; exit 2; }

qos_policy=""
sm_node=""
poison=1
keep_dir=""
step_timeout=20
args=()
while (($#)); do
  case "$1" in
    --qos-policy) qos_policy="${2:?}"; shift 2 ;;
    --sm-node) sm_node="${2:?}"; shift 2 ;;
    --no-poison) poison=0; shift ;;
    --keep) keep_dir="${2:?}"; shift 2 ;;
    --step-timeout) step_timeout="${2:?}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die_usage "unknown option $1" ;;
    *) args+=("$1"); shift ;;
  esac
done
((${#args[@]} == 3)) || die_usage "give OPENSM_CONF FABRIC OUT_DIR"
conf="${args[0]}" fabric="${args[1]}" out="${args[2]}"
[[ -r "$conf" ]] || die_usage "cannot read $conf"
[[ -r "$fabric" ]] || die_usage "cannot read fabric $fabric"
[[ -z "$qos_policy" || -r "$qos_policy" ]] || die_usage "cannot read $qos_policy"
conf="$(realpath "$conf")"
fabric="$(realpath "$fabric")"
[[ -z "$qos_policy" ]] || qos_policy="$(realpath "$qos_policy")"
if [[ -z "$sm_node" ]]; then
  sm_node="$(awk '$1 == "Hca" || $1 == "Ca" { gsub(/"/, "", $3); print $3; exit }' "$fabric")"
  [[ -n "$sm_node" ]] || die_usage "no Hca in $fabric (give --sm-node)"
fi

umad2sim="${UMAD2SIM:-$kUmad2sim_default}"
dump_lfts="$(command -v dump_lfts.sh || command -v dump_lfts || true)"
for tool in ibsim opensm smpquery ibnetdiscover timeout; do
  command -v "$tool" >/dev/null ||
    { echo "opensm-fabric: '$tool' not found (apt-get install ibsim-utils opensm infiniband-diags)" >&2; exit 1; }
done
[[ -n "$dump_lfts" ]] || { echo "opensm-fabric: dump_lfts not found (infiniband-diags)" >&2; exit 1; }
[[ -r "$umad2sim" ]] || { echo "opensm-fabric: $umad2sim missing (libumad2sim0)" >&2; exit 1; }

mkdir -p "$out"
out="$(realpath "$out")"
if [[ -n "$keep_dir" ]]; then
  mkdir -p "$keep_dir"; work="$(realpath "$keep_dir")"
else
  work="$(mktemp -d /tmp/opensm-fabric.XXXXXX)"
fi

export IBSIM_SOCKNAME="qbfab$$"
export SIM_HOST="$sm_node"
export OSM_CACHE_DIR="$work" OSM_TMP_DIR="$work"

ibsim_pid=""
cleanup() {
  local rc=$?
  if [[ -n "$ibsim_pid" ]] && kill -0 "$ibsim_pid" 2>/dev/null; then
    kill -TERM "$ibsim_pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$ibsim_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$ibsim_pid" 2>/dev/null || true
    wait "$ibsim_pid" 2>/dev/null || true
  fi
  [[ -n "$keep_dir" ]] || rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

fail() { # fail WHAT LOGFILE...
  local what="$1"; shift
  echo "opensm-fabric: $what failed" >&2
  local f
  for f in "$@"; do
    [[ -s "$f" ]] || continue
    echo "---- $f (last 40 lines) ----" >&2
    tail -n 40 "$f" >&2
  done
  exit 1
}

sim_run() { timeout -k 2 "$step_timeout" env LD_PRELOAD="$umad2sim" "$@"; }

# 1. ibsim, its lifetime bounded in case this script is SIGKILLed.
timeout -k 2 "$((step_timeout * 20))" ibsim -s -n "$fabric" </dev/null >"$work/ibsim.log" 2>&1 &
ibsim_pid=$!
t0=$(date +%s%N)
until grep -q "Network simulator ready" "$work/ibsim.log" 2>/dev/null; do
  kill -0 "$ibsim_pid" 2>/dev/null || fail "ibsim (exited during start-up)" "$work/ibsim.log"
  (( ($(date +%s%N) - t0) / 1000000000 < step_timeout )) || fail "ibsim start-up" "$work/ibsim.log"
  sleep 0.05
done

# 2. OpenSM, one sweep (after a poison run whose tables the real one must overwrite: ibsim's
#    power-on tables equal OpenSM's defaults). The real run sweeps twice (-s 1 for 3 s is not
#    needed: no max_op_vls here) and exits.
run_opensm() { # run_opensm TAG CONF [POLICY]
  local tag="$1" cfg="$2" pol="${3:-}"
  local a=(--once -Q -F "$cfg" -f "$work/opensm-$tag.log" -e)
  [[ -z "$pol" ]] || a+=(-Y "$pol")
  sim_run opensm "${a[@]}" >"$work/opensm-$tag.out" 2>&1 ||
    fail "opensm ($tag run)" "$work/opensm-$tag.out" "$work/opensm-$tag.log" "$work/ibsim.log"
  grep -q "SUBNET UP" "$work/opensm-$tag.log" ||
    fail "opensm ($tag run: no SUBNET UP)" "$work/opensm-$tag.log"
}
if ((poison)); then
  cat >"$work/poison.conf" <<'EOF2'
qos TRUE
qos_high_limit 3
qos_vlarb_high 7:11,6:12,5:13,4:14,3:15,2:16,1:17,0:18
qos_vlarb_low 7:21,6:22,5:23,4:24,3:25,2:26,1:27,0:28
qos_sl2vl 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3
EOF2
  run_opensm poison "$work/poison.conf"
fi
run_opensm main "$conf" "$qos_policy"

# 3. Read back.
sim_run ibnetdiscover >"$out/ibnetdiscover.txt" 2>"$work/ibnetdiscover.err" ||
  fail "ibnetdiscover" "$work/ibnetdiscover.err"
sim_run "$dump_lfts" >"$out/lfts.txt" 2>"$work/dump_lfts.err" || fail "dump_lfts" "$work/dump_lfts.err"

# Every connected port: "ID LID PORT" (switch ports by the switch's LID, a CA by its port's LID).
awk '
  /^Switch/ { sw = 1; id = $3; gsub(/"/, "", id); lid = $0; sub(/.* lid /, "", lid); sub(/ .*/, "", lid); next }
  /^Ca/     { sw = 0; id = $3; gsub(/"/, "", id); next }
  /^\[/ {
    p = $1; sub(/^\[/, "", p); sub(/\].*/, "", p)
    if (sw) print id, lid, p
    else { l = $0; sub(/.*# lid /, "", l); sub(/ .*/, "", l); print id, l, p, "ca" }
  }' "$out/ibnetdiscover.txt" >"$work/ports.txt"
[[ -s "$work/ports.txt" ]] || fail "listing the ports of ibnetdiscover.txt" "$out/ibnetdiscover.txt"

: >"$out/port-tables.txt"
while read -r id lid port kind; do
  echo "### node \"$id\" port $port" >>"$out/port-tables.txt"
  if [[ "$kind" == ca ]]; then
    sim_run smpquery sl2vl "$lid" >>"$out/port-tables.txt" 2>"$work/smp.err" || fail "smpquery sl2vl $lid" "$work/smp.err"
    sim_run smpquery vlarb "$lid" >>"$out/port-tables.txt" 2>"$work/smp.err" || fail "smpquery vlarb $lid" "$work/smp.err"
  else
    sim_run smpquery sl2vl "$lid" "$port" >>"$out/port-tables.txt" 2>"$work/smp.err" || fail "smpquery sl2vl $lid $port" "$work/smp.err"
    sim_run smpquery vlarb "$lid" "$port" >>"$out/port-tables.txt" 2>"$work/smp.err" || fail "smpquery vlarb $lid $port" "$work/smp.err"
  fi
done <"$work/ports.txt"
echo "opensm-fabric: $(wc -l <"$work/ports.txt") ports read into $out" >&2
