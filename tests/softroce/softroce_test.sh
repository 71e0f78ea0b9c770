#!/usr/bin/env bash
# The Soft-RoCE test (ctest -L softroce; docs/testing.md "Soft-RoCE in a guest"): qosbench's
# verbs driver on a real RDMA stack. Boots Debian's kernel in a QEMU guest
# (scripts/softroce_vm.sh), runs tests/softroce/guest.sh there (two rxe devices on a veth pair,
# a receiver and a sender, a capture, rxe's counters, a READ run in loopback from rxe0 to rxe1
# and its capture, the teardown), then
# judges on the host:
#   1. the receiver's verdict (the product's own, with the suite's rxe limits) and the sender's;
#   2. every flow's RoCEv2 packets carry its class's DSCP, both directions, and each class's
#      share of the bytes on the wire is its expected share (check_capture.py); that check fails
#      when told a wrong DSCP (so it can fail);
#   3. rxe's hw_counters moved: each device's sent_pkts grew by exactly the RoCEv2 packets the
#      capture saw leave it, its rcvd_pkts by those it saw go to it (98-100 %: rxe drops some
#      retransmitted ones uncounted);
#   3b. qosbench's own counter deltas (the receiver's nic.rdma.*) equal the guest's reads;
#   4. the READ run's verdict, and its capture: the READ flow's requests and responses (whose
#      traffic class the responder QP's address vector sets) carry its DSCP (check_read_capture.py,
#      with its own negative control);
#   5. the teardown left nothing (no rxe, veth, rule, module or qosbench in the guest; the guest
#      powered off; its files removed here unless QB_SOFTROCE_KEEP=1);
#   6. the guest's clock kept time (its uptime at power-off within the host's wall time), since
#      every rate is measured on it.
# Prints the boot, set-up, run and teardown times.
#
# usage: softroce_test.sh QOSBENCH
# Exit: 0 pass, 1 fail, 77 skipped (no qemu-system-x86_64 or no kernel in the cache: the reason
# on stdout; scripts/setup_softroce.sh installs both).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
here="$root/tests/softroce"
qosbench=${1:?usage: softroce_test.sh QOSBENCH}
port=18515
out=$(mktemp -d /tmp/qb-softroce.XXXXXX)
cleanup() {
  if [[ "${QB_SOFTROCE_KEEP:-0}" == 1 ]]; then
    echo "kept: $out"
  else
    rm -rf "$out"
  fi
}
trap cleanup EXIT

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

start_ns=$(date +%s%N)
"$root/scripts/softroce_vm.sh" "$out" "$here/guest.sh" "$qosbench" "$here/softroce.toml" \
  "$here/softroce_read.toml" "$out"
vm_rc=$?
wall_ms=$((($(date +%s%N) - start_ns) / 1000000))
((vm_rc == 77)) && exit 77
echo "--- guest console"
cat "$out/console.log" 2>/dev/null
echo "---"
if ((vm_rc != 0)); then
  fail "the guest's script exited $vm_rc (see the console above)"
  cat "$out/guest_failure" 2>/dev/null
  exit 1
fi

# 1. The verdicts.
for side in receiver sender; do
  rc=$(cat "$out/${side}_rc" 2>/dev/null || echo none)
  if [[ "$rc" != 0 ]]; then
    fail "the $side exited $rc:"
    grep -v '^\[' "$out/$side.log" | tail -n 30
  fi
done
echo "--- the receiver's verdict"
grep -v '^\[' "$out/receiver.log" | sed -n '/^scenario/,$p'

# 2. DSCP on the wire, and the check's own negative control.
echo "--- the capture"
python3 "$here/check_capture.py" "$out/capture.pcap" "$out/receiver.json" "$port" ||
  fail "a flow's DSCP on the wire is not its class's (check_capture.py above)"
python3 - "$out/receiver.json" "$out/wrong_dscp.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))
flow = results["scenarios"][0]["flows"][-1]
flow["dscp"] = (flow["dscp"] + 8) % 64
json.dump(results, open(sys.argv[2], "w"))
PY
if python3 "$here/check_capture.py" "$out/capture.pcap" "$out/wrong_dscp.json" "$port" >/dev/null; then
  fail "check_capture.py passed with a wrong DSCP for one flow"
fi

# 3. rxe's counters: what moved, and the packets each device received against the capture.
delta() {  # delta BEFORE AFTER NAME
  local before after
  before=$(awk -v n="$3" '$1 == n {print $2}' "$1")
  after=$(awk -v n="$3" '$1 == n {print $2}' "$2")
  echo $((${after:-0} - ${before:-0}))
}
echo "--- rxe hw_counters that moved during the two-host run"
for device in rxe0 rxe1; do
  before="$out/counters_before_$device.txt"
  after="$out/counters_after_$device.txt"
  if [[ ! -s "$before" || ! -s "$after" ]]; then
    fail "no hw_counters read for $device"
    continue
  fi
  echo "$device: $(join "$before" "$after" | awk '$3 != $2 {printf "%s +%d  ", $1, $3 - $2}')"
done
sent=$(delta "$out/counters_before_rxe0.txt" "$out/counters_after_rxe0.txt" sent_pkts)
((sent > 0)) || fail "rxe0's sent_pkts did not move"
# Each device's sent_pkts against the RoCEv2 packets the capture saw leave it (exact: rxe counts
# every packet it sends, retransmissions included), and its rcvd_pkts against those that went
# to it (at most that: rxe drops some retransmitted ones before counting; at least 98 %).
# tcpdump says what the kernel dropped before it (an emulated guest under load can): with drops
# the capture is a lower bound.
# Uncaptured: dropped by the kernel, or received by the filter but still in the ring at the stop.
dropped=$(awk '/packets captured/ {c = $1} /received by filter/ {r = $1} /dropped by kernel/ {d = $1}
  END {print (r > c ? r - c : 0) + d}' "$out/tcpdump.log" 2>/dev/null)
dropped=${dropped:-0}
echo "tcpdump: $(tr '\n' ';' <"$out/tcpdump.log" 2>/dev/null) ($dropped not in the capture)"
for pair in "rxe0 10.0.0.1" "rxe1 10.0.0.2"; do
  read -r device address <<<"$pair"
  sent=$(delta "$out/counters_before_$device.txt" "$out/counters_after_$device.txt" sent_pkts)
  received=$(delta "$out/counters_before_$device.txt" "$out/counters_after_$device.txt" rcvd_pkts)
  from=$(tcpdump -r "$out/capture.pcap" -n "udp dst port 4791 and src host $address" 2>/dev/null | wc -l)
  to=$(tcpdump -r "$out/capture.pcap" -n "udp dst port 4791 and dst host $address" 2>/dev/null | wc -l)
  echo "$device: sent_pkts +$sent, captured from $address: $from; rcvd_pkts +$received, captured to it: $to"
  ((sent > 0 && received > 0)) || fail "$device's sent_pkts or rcvd_pkts did not move"
  if ((sent < from || sent > from + dropped)); then
    fail "$device sent $sent RoCEv2 packets (sent_pkts), the capture saw $from leave it"
  fi
  if ((received > to + dropped || received * 100 < to * 98)); then
    fail "$device received $received RoCEv2 packets (rcvd_pkts), the capture saw $to go to it"
  fi
done

# 3b. The product's own counters (nic/, docs/verbs.md): the receiver's results carry rxe1's
# hw_counters deltas of its one repetition, read by qosbench; they equal the guest's own reads
# (taken after the run). Except for a requester's retry (rxe0's completer_retry_err: an ACK
# late on an emulated guest under load), which can come after the receiver read its counters:
# then the guest's read may exceed qosbench's by the retried packets and their ACKs, at most a
# QP's outstanding window per retry (16 messages of 8 KiB: 32 packets at MTU 4096).
retries=$(delta "$out/counters_before_rxe0.txt" "$out/counters_after_rxe0.txt" completer_retry_err)
for name in rcvd_pkts sent_pkts; do
  ours=$(delta "$out/counters_before_rxe1.txt" "$out/counters_after_rxe1.txt" "$name")
  product=$(python3 -c 'import json, sys
stats = json.load(open(sys.argv[1]))["scenarios"][0].get("driver_stats", {})
value = stats.get("nic.rdma." + sys.argv[2])
print("none" if value is None else int(value))' "$out/receiver.json" "$name" 2>/dev/null)
  echo "rxe1 $name: qosbench's nic.rdma.$name ${product:-none}, the guest's own read +$ours"
  if [[ "$product" == "$ours" ]]; then
    continue
  elif [[ "$product" =~ ^[0-9]+$ ]] && ((retries > 0 && product < ours && ours - product <= 32 * retries)); then
    echo "  ($((ours - product)) more in the guest's read, after rxe0's $retries retries: late packets)"
  else
    fail "the receiver's nic.rdma.$name (${product:-none}) is not rxe1's +$ours ($retries retries)"
  fi
done

# 4. READ.
read_rc=$(cat "$out/read_rc" 2>/dev/null || echo none)
echo "--- the READ run (loopback from rxe0 to rxe1)"
grep -v '^\[' "$out/read.log" | sed -n '/^scenario/,$p'
[[ "$read_rc" == 0 ]] || fail "the READ run exited $read_rc"
echo "--- the READ run's capture"
python3 "$here/check_read_capture.py" "$out/read_capture.pcap" "$out/read.json" \
  "$here/softroce_read.toml" || fail "a READ request or response's DSCP on the wire is not its flow's"
# The check's negative control: the same capture against a suite whose READ flow says 26.
sed 's/^dscp = 18$/dscp = 26/' "$here/softroce_read.toml" >"$out/read_wrong_dscp.toml"
if python3 "$here/check_read_capture.py" "$out/read_capture.pcap" "$out/read.json" \
  "$out/read_wrong_dscp.toml" >/dev/null; then
  fail "check_read_capture.py passed with a wrong DSCP for the READ flow"
fi
echo "rxe0 during the READ run: $(join "$out/counters_after_rxe0.txt" "$out/counters_read_rxe0.txt" |
  awk '$3 != $2 {printf "%s +%d  ", $1, $3 - $2}')"

# 5. The teardown.
echo "--- teardown in the guest: $(tr '\n' ';' <"$out/teardown.txt" 2>/dev/null)"
if ! awk -F': ' 'NF == 2 && $2 != 0 {bad = 1} END {exit bad}' "$out/teardown.txt" 2>/dev/null ||
  [[ ! -s "$out/teardown.txt" ]]; then
  fail "the guest's teardown left something: $(tr '\n' ';' <"$out/teardown.txt" 2>/dev/null)"
fi

# 6. The guest's clock, and the times.
uptime_at=$(grep -o 'up [0-9.]* s after' "$out/console.log" | awk '{print $2}')
off_at=$(grep -o 'exited [0-9]* at [0-9.]* s' "$out/console.log" | awk '{print $4}')
read -r run_start run_end <"$out/run_seconds"
if [[ -n "$off_at" ]] && awk -v g="$off_at" -v h="$wall_ms" 'BEGIN {exit !(g * 1000 > h + 2000)}'; then
  fail "the guest's clock ran fast: ${off_at} s of guest uptime in $((wall_ms / 1000)) s of wall time"
fi
echo "times: guest booted to its script in ${uptime_at:-?} s (guest clock), set-up to the run" \
  "$(awk -v a="$uptime_at" -v b="$run_start" 'BEGIN {printf "%.1f", b - a}') s, two-host run" \
  "$(awk -v a="$run_start" -v b="$run_end" 'BEGIN {printf "%.1f", b - a}') s, READ run and" \
  "teardown to power-off $(awk -v a="$run_end" -v b="$off_at" 'BEGIN {printf "%.1f", b - a}') s;" \
  "wall time $((wall_ms / 1000)).$(printf %03d $((wall_ms % 1000))) s"

if ((failures > 0)); then
  echo "FAILED: $failures check(s)"
  exit 1
fi
echo "PASSED"
