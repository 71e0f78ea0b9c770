#!/usr/bin/env bash
# opensm-sim.sh: run OpenSM once on an ibsim fabric with a given opensm.conf
# (and optional qos-policy.conf), read back the SL2VL / VLArb tables it
# programmed on one CA port and one switch external port, and print them as
# JSON on stdout. Everything it starts is stopped on exit.
#
# Needs (Debian 12): ibsim-utils libumad2sim0 opensm infiniband-diags.
# See docs/opensm-sim.md.
set -euo pipefail

readonly kRepo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly kUmad2sim_default=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so

usage() {
  cat <<'EOF'
usage: scripts/opensm-sim.sh [options] OPENSM_CONF

Starts ibsim on a small fabric, runs `opensm --once -Q -F OPENSM_CONF` under
libumad2sim, reads the programmed tables back with smpquery and prints

  {"config":..., "ca":{<port caps>, "sl2vl":[16], "vlarb_high":[[vl,w],...],
   "vlarb_low":[[vl,w],...]}, "swe":{... same, plus "sl2vl_by_in_port"}}

Options:
  --qos-policy FILE   pass FILE to opensm as -Y (qos_policy_file)
  --fabric FILE       ibsim topology (default tests/conformance/fabrics/one-switch-3ca.net)
  --sm-node NAME      node OpenSM attaches to (SIM_HOST; default Hca1)
  --ca-path DR        direct route to the CA port to read (default 0,1,2 = Hca2)
  --sw-path DR        direct route to the switch (default 0,1 = Switch1)
  --sw-port N         switch external port to read (default 2, towards Hca2)
  --no-poison         do not pre-load distinctive tables before the real run
                      (ibsim's power-on tables equal OpenSM's defaults, so
                      without poisoning a run that programs nothing looks right)
  --raw-dir DIR       also save the raw smpquery outputs in DIR
  --keep DIR          use DIR as the work dir (logs) and keep it
  --step-timeout S    timeout for every step (default 20 s)
  --opensm-arg ARG    extra argument for opensm (repeatable)
  --no-force-qos      do not pass -Q (then `qos FALSE` in OPENSM_CONF disables QoS)
  --sa-query ARGS     also ask OpenSM's SA for a PathRecord: `saquery PR ARGS`
                      (e.g. "--slid 3 --dlid 4 --service_id 0x10000"), run from
                      the SM's node; repeatable. OpenSM then runs as a daemon (not --once)
                      until the queries are done. Adds "sa":[{"query":ARGS,
                      "sl":N or null}] and "ports":[[guid,lid],...] (from
                      OpenSM's guid2lid) to the output.
  --settle S          run OpenSM as a daemon sweeping every second and read the
                      tables back S seconds after SUBNET UP (OpenSM's first sweep
                      programs switch ports with the OperVLs they had before it
                      lowered them; later sweeps correct that)
  -h, --help          this text
Exit status: 0 ok, 1 a step failed (message + log on stderr), 2 usage.
EOF
}

die_usage() { echo "opensm-sim: $*" >&2; usage >&2; exit 2; }

fabric="$kRepo/tests/conformance/fabrics/one-switch-3ca.net"
sm_node=Hca1
ca_path=0,1,2
sw_path=0,1
sw_port=2
poison=1
raw_dir=""
keep_dir=""
step_timeout=20
qos_policy=""
conf=""
extra_osm_args=()
force_qos=1
sa_queries=()
settle_s=0

while (($#)); do
  case "$1" in
    --qos-policy) qos_policy="${2:?}"; shift 2 ;;
    --fabric) fabric="${2:?}"; shift 2 ;;
    --sm-node) sm_node="${2:?}"; shift 2 ;;
    --ca-path) ca_path="${2:?}"; shift 2 ;;
    --sw-path) sw_path="${2:?}"; shift 2 ;;
    --sw-port) sw_port="${2:?}"; shift 2 ;;
    --no-poison) poison=0; shift ;;
    --raw-dir) raw_dir="${2:?}"; shift 2 ;;
    --keep) keep_dir="${2:?}"; shift 2 ;;
    --step-timeout) step_timeout="${2:?}"; shift 2 ;;
    --opensm-arg) extra_osm_args+=("${2:?}"); shift 2 ;;
    --no-force-qos) force_qos=0; shift ;;
    --sa-query) sa_queries+=("${2:?}"); shift 2 ;;
    --settle) settle_s="${2:?}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die_usage "unknown option $1" ;;
    *) [[ -z "$conf" ]] || die_usage "more than one config given"; conf="$1"; shift ;;
  esac
done
[[ -n "$conf" ]] || die_usage "no opensm.conf given"
[[ -r "$conf" ]] || die_usage "cannot read $conf"
[[ -z "$qos_policy" || -r "$qos_policy" ]] || die_usage "cannot read $qos_policy"
[[ -r "$fabric" ]] || die_usage "cannot read fabric $fabric"
conf="$(realpath "$conf")"
[[ -z "$qos_policy" ]] || qos_policy="$(realpath "$qos_policy")"
fabric="$(realpath "$fabric")"

umad2sim="${UMAD2SIM:-$kUmad2sim_default}"
for tool in ibsim opensm smpquery timeout $( ((${#sa_queries[@]})) && echo saquery); do
  command -v "$tool" >/dev/null ||
    { echo "opensm-sim: '$tool' not found (apt-get install ibsim-utils opensm infiniband-diags)" >&2; exit 1; }
done
[[ -r "$umad2sim" ]] ||
  { echo "opensm-sim: $umad2sim missing (package libumad2sim0, pulled in by ibsim-utils)" >&2; exit 1; }

if [[ -n "$keep_dir" ]]; then
  mkdir -p "$keep_dir"; work="$(realpath "$keep_dir")"
else
  work="$(mktemp -d /tmp/opensm-sim.XXXXXX)"
fi
[[ -z "$raw_dir" ]] || mkdir -p "$raw_dir"

# Abstract unix socket names: unique per run so parallel runs do not meet.
export IBSIM_SOCKNAME="qbsim$$"
export SIM_HOST="$sm_node"
export OSM_CACHE_DIR="$work" OSM_TMP_DIR="$work"

ibsim_pid=""
osm_pid=""
cleanup() {
  local rc=$?
  if [[ -n "$osm_pid" ]] && kill -0 "$osm_pid" 2>/dev/null; then
    kill -TERM "$osm_pid" 2>/dev/null || true
    wait "$osm_pid" 2>/dev/null || true
  fi
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
  echo "opensm-sim: $what failed" >&2
  local f
  for f in "$@"; do
    [[ -s "$f" ]] || continue
    echo "---- $f (last 40 lines) ----" >&2
    tail -n 40 "$f" >&2
  done
  exit 1
}

# Runs a libumad client against the simulator, bounded by the step timeout.
sim_run() { timeout -k 2 "$step_timeout" env LD_PRELOAD="$umad2sim" "$@"; }

# 1. ibsim. Its own lifetime is bounded too, in case this script is SIGKILLed.
life_s=$((step_timeout * 8))
timeout -k 2 "$life_s" ibsim -s -n "$fabric" </dev/null >"$work/ibsim.log" 2>&1 &
ibsim_pid=$!
t0=$(date +%s%N)
until grep -q "Network simulator ready" "$work/ibsim.log" 2>/dev/null; do
  kill -0 "$ibsim_pid" 2>/dev/null || fail "ibsim (exited during start-up)" "$work/ibsim.log"
  (( ($(date +%s%N) - t0) / 1000000000 < step_timeout )) || fail "ibsim start-up (timeout ${step_timeout}s)" "$work/ibsim.log"
  sleep 0.05
done

run_opensm() { # run_opensm TAG CONF [POLICY]
  local tag="$1" cfg="$2" pol="${3:-}"
  # -D 0x23: errors + info + frames; the frame dumps carry the PortInfo SETs,
  # the only place VLHighLimit can be seen (ibsim does not store it).
  local args=(--once -F "$cfg" -f "$work/opensm-$tag.log" -e -D 0x23)
  ((force_qos)) || [[ "$tag" == poison ]] && args+=(-Q)
  [[ -z "$pol" ]] || args+=(-Y "$pol")
  args+=("${extra_osm_args[@]}")
  if ! sim_run opensm "${args[@]}" >"$work/opensm-$tag.out" 2>&1; then
    fail "opensm ($tag run, rc=$?, timeout ${step_timeout}s)" "$work/opensm-$tag.out" "$work/opensm-$tag.log" "$work/ibsim.log"
  fi
  grep -q "SUBNET UP" "$work/opensm-$tag.log" ||
    fail "opensm ($tag run: no SUBNET UP in its log)" "$work/opensm-$tag.out" "$work/opensm-$tag.log" "$work/ibsim.log"
}

# 2. Poison: tables no sane config produces, so the real run must overwrite them.
if ((poison)); then
  cat >"$work/poison.conf" <<'EOF'
qos TRUE
qos_max_vls 8
qos_high_limit 3
qos_vlarb_high 7:11,6:12,5:13,4:14,3:15,2:16,1:17,0:18
qos_vlarb_low 7:21,6:22,5:23,4:24,3:25,2:26,1:27,0:28
qos_sl2vl 3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3
EOF
  run_opensm poison "$work/poison.conf"
fi

# 3. The real run. With SA queries OpenSM must stay up to answer them: same arguments
# without --once, in the background, until SUBNET UP.
t1=$(date +%s%N)
if ((${#sa_queries[@]} || settle_s > 0)); then
  args=(-F "$conf" -f "$work/opensm-main.log" -e -D 0x23 -d2)  # -d2: flush the log
  ((force_qos)) && args+=(-Q)
  ((settle_s > 0)) && args+=(-s 1)
  [[ -z "$qos_policy" ]] || args+=(-Y "$qos_policy")
  args+=("${extra_osm_args[@]}")
  timeout -k 2 "$life_s" env LD_PRELOAD="$umad2sim" opensm "${args[@]}" >"$work/opensm-main.out" 2>&1 &
  osm_pid=$!
  until grep -q "SUBNET UP" "$work/opensm-main.log" 2>/dev/null; do
    kill -0 "$osm_pid" 2>/dev/null || fail "opensm (daemon run exited)" "$work/opensm-main.out" "$work/opensm-main.log"
    (( ($(date +%s%N) - t1) / 1000000000 < step_timeout )) || fail "opensm daemon start (timeout ${step_timeout}s)" "$work/opensm-main.log"
    sleep 0.05
  done
  sleep "$settle_s"
else
  run_opensm main "$conf" "$qos_policy"
fi
t2=$(date +%s%N)

# 4. Read back.
query() { # query NAME smpquery-args... ; output in $work/NAME.txt
  local name="$1"; shift
  sim_run smpquery "$@" >"$work/$name.txt" 2>"$work/$name.err" ||
    fail "smpquery $* (rc=$?)" "$work/$name.err" "$work/$name.txt" "$work/ibsim.log"
  [[ -z "$raw_dir" ]] || cp "$work/$name.txt" "$raw_dir/$name.txt"
}
query ca-portinfo -D portinfo "$ca_path"
query ca-sl2vl -D sl2vl "$ca_path"
query ca-vlarb -D vlarb "$ca_path"
query swe-portinfo -D portinfo "$sw_path" "$sw_port"
query swe-sl2vl -D sl2vl "$sw_path" "$sw_port"
query swe-vlarb -D vlarb "$sw_path" "$sw_port"

# One awk program turns portinfo + sl2vl + vlarb text into a JSON object body.
port_json() { # port_json PREFIX OUT_PORT
  awk -v out_port="$2" '
    function hex(s,   i, c, v) {
      s = tolower(s); sub(/^ *0x/, "", s); gsub(/ /, "", s); v = 0
      for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (!c) return -1; v = v * 16 + c - 1 }
      return v
    }
    function vls(s) { # "VL0-7" -> 8, "VL0" -> 1
      if (s ~ /VL0-[0-9]+/) { sub(/.*VL0-/, "", s); return s + 1 }
      if (s ~ /VL0/) return 1
      return 0
    }
    function val(line) { sub(/^[^.]*\.+/, "", line); return line }
    FILENAME ~ /portinfo/ {
      if ($0 ~ /^VLCap:/) vl_cap = vls(val($0))
      else if ($0 ~ /^OperVLs:/) op_vls = vls(val($0))
      else if ($0 ~ /^VLHighLimit:/) high_limit = val($0) + 0
      else if ($0 ~ /^VLArbHighCap:/) high_cap = val($0) + 0
      else if ($0 ~ /^VLArbLowCap:/) low_cap = val($0) + 0
      else if ($0 ~ /^LinkState:/) state = val($0)
      next
    }
    FILENAME ~ /sl2vl/ && /^ports: in/ {
      n = split($0, f, "|"); row = ""
      for (i = 2; i < n; i++) row = row (i > 2 ? "," : "") (f[i] + 0)
      split($0, h, /[ ,:]+/)   # "ports" "in" IN "out" OUT
      rows = rows (rows != "" ? "," : "") "[" h[3] ",[" row "]]"
      # Prefer a transit row (in != 0, in != out); a CA has only in 0/out 0.
      if (first == "" && h[3] + 0 != out_port + 0 && h[3] + 0 != 0) first = "[" row "]"
      if (only == "") only = "[" row "]"
      next
    }
    FILENAME ~ /vlarb/ {
      if ($0 ~ /Low priority/) tbl = "low"
      else if ($0 ~ /High priority/) tbl = "high"
      else if ($0 ~ /^VL *:/) { nv = split($0, v, "|") }
      else if ($0 ~ /^WEIGHT *:/) {
        split($0, w, "|")
        for (i = 2; i < nv; i++) {
          e = "[" hex(v[i]) "," hex(w[i]) "]"
          if (tbl == "low") low = low (low != "" ? "," : "") e
          else high = high (high != "" ? "," : "") e
        }
      }
      next
    }
    END {
      if (first == "") first = only
      printf "\"link_state\":\"%s\",\"vl_cap\":%d,\"op_vls\":%d,\"high_limit_readback\":%d,", state, vl_cap, op_vls, high_limit
      printf "\"vlarb_high_cap\":%d,\"vlarb_low_cap\":%d,", high_cap, low_cap
      printf "\"sl2vl\":%s,\"sl2vl_by_in_port\":[%s],", first, rows
      printf "\"vlarb_high\":[%s],\"vlarb_low\":[%s]", high, low
    }' "$work/$1-portinfo.txt" "$work/$1-sl2vl.txt" "$work/$1-vlarb.txt"
}

# VLHighLimit as OpenSM set it: PortInfo byte 38 of the SubnSet PortInfo with
# attr_mod bit 31 set (link manager's port set-up) on DR path $1, port $2.
# Later SETs echo ibsim's GetResp, where the field always reads 0.
high_limit_set() {
  awk -v want_path="$1" -v want_mod="$2" '
    /SMP dump:/ { in_smp = 1; is_set = 0; is_pi = 0; nb = 0; path = ""; mod = ""; next }
    !in_smp { next }
    /method\.+0x2 \(SubnSet\)/ { is_set = 1 }
    /attr_id\.+0x15 / { is_pi = 1 }
    /attr_mod\./ { mod = $0; sub(/.*\.+/, "", mod) }
    /Initial path:/ { path = $3 }
    /^[ \t]+([0-9A-F][0-9A-F] )+/ {
      for (i = 1; i <= NF; i++) b[nb++] = $i
      if (nb >= 64) {
        if (is_set && is_pi && path == want_path && tolower(mod) == want_mod) hl = b[38]
        in_smp = 0
      }
    }
    END {
      if (hl == "") { print "null"; exit }
      v = 0; hl = tolower(hl)
      for (i = 1; i <= 2; i++) v = v * 16 + index("0123456789abcdef", substr(hl, i, 1)) - 1
      print v
    }' "$work/opensm-main.log"
}

json_str() { local s="$1"; s="${s//\\/\\\\}"; s="${s//\"/\\\"}"; printf '"%s"' "$s"; }

ca_body="$(port_json ca 1)" || fail "parsing CA tables" "$work/ca-sl2vl.txt" "$work/ca-vlarb.txt"
sw_body="$(port_json swe "$sw_port")" || fail "parsing switch tables" "$work/swe-sl2vl.txt" "$work/swe-vlarb.txt"
opensm_ms=$(( (t2 - t1) / 1000000 ))

printf '{"config":%s,"qos_policy":%s,"fabric":%s,"opensm_ms":%d,' \
  "$(json_str "$conf")" "$( [[ -n "$qos_policy" ]] && json_str "$qos_policy" || echo null)" \
  "$(json_str "$fabric")" "$opensm_ms"
ca_hl="$(high_limit_set "$ca_path" 0x80000001)"
sw_hl="$(high_limit_set "$sw_path" "$(printf '0x8000%04x' "$sw_port")")"
printf '"ca":{"path":%s,"high_limit":%s,%s},' "$(json_str "$ca_path")" "$ca_hl" "$ca_body"
printf '"swe":{"path":%s,"port":%d,"high_limit":%s,%s}' "$(json_str "$sw_path")" "$sw_port" "$sw_hl" "$sw_body"

# 5. SA PathRecord queries (OpenSM still up): the SL of the first record, null when none.
if ((${#sa_queries[@]})); then
  printf ',"sa":['
  sep=""
  for q in "${sa_queries[@]}"; do
    read -r -a qargs <<<"$q"
    sl=null
    if out="$(sim_run saquery PR "${qargs[@]}" 2>"$work/saquery.err")"; then
      sl="$(awk '/^[ \t]*sl\.+/ { sub(/.*\.+/, ""); print $0; exit }' <<<"$out")"
      [[ -z "$sl" ]] || sl=$((sl))
      [[ -n "$sl" ]] || sl=null
    fi
    printf '%s{"query":%s,"sl":%s}' "$sep" "$(json_str "$q")" "$sl"
    sep=","
  done
  printf '],"ports":['
  sep=""
  while read -r guid lid _; do
    [[ -n "$lid" ]] || continue
    printf "%s[\"%s\",%d]" "$sep" "$guid" "$((lid))"; sep=","
  done <"$work/guid2lid"
  printf ']'
fi
printf '}\n'
