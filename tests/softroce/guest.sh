#!/usr/bin/env bash
# Runs in the Soft-RoCE guest (scripts/softroce_vm.sh; docs/testing.md "Soft-RoCE in a guest"):
# two rxe devices on a veth pair, qosbench's verbs driver between them (receiver `listen` on
# rxe1, sender `peer` on rxe0), a capture of the veth, rxe's hw_counters before and after, and a
# teardown that is checked. Everything it measures goes to OUT_DIR; softroce_test.sh judges it
# on the host. Exit: 0 when every step ran (the verdicts are judged on the host), 1 when a step
# failed (the reason on stdout and in OUT_DIR/guest_failure).
#
# usage: guest.sh QOSBENCH SUITE.toml READ_SUITE.toml OUT_DIR
#   SUITE runs on two hosts (listen/peer) and is captured; READ_SUITE (READ flows, which the
#   driver runs in loopback only) runs after it from rxe0 to rxe1 (responder_device), captured.
#
# rxe (Linux 6.1) receives and routes in the initial network namespace only, so both veth ends
# stay there; policy routing sends traffic between the two local addresses over the veth pair
# instead of the loopback device (rxe on `lo` would not do: it measures nothing on a wire):
#   from the host itself (iif lo) to 10.0.0.2: out of qbv0; to 10.0.0.1: out of qbv1;
#   the local table moved after those rules, so a packet arriving on the other end is local;
#   accept_local, because its source is one of this host's addresses.
set -u
qosbench=${1:?usage: guest.sh QOSBENCH SUITE.toml READ_SUITE.toml OUT_DIR}
suite=${2:?}
read_suite=${3:?}
out=${4:?}
kdir=${QB_GUEST_KERNEL_DIR:?guest.sh runs in the guest of scripts/softroce_vm.sh}
port=18515

uptime_s() {
  local up _
  read -r up _ </proc/uptime
  echo "$up"
}
say() { echo "guest [$(uptime_s) s]: $*"; }
failed=0
fail() {
  say "FAILED: $*"
  echo "$*" >>"$out/guest_failure"
  failed=1
}

receiver_pid=""
capture_pid=""
teardown() {
  for pid in $receiver_pid $capture_pid; do
    kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  done
  receiver_pid=""
  capture_pid=""
  rdma link del rxe0 2>/dev/null
  rdma link del rxe1 2>/dev/null
  ip link del qbv0 2>/dev/null
  ip rule del pref 10 2>/dev/null
  ip rule del pref 11 2>/dev/null
  ip rule add pref 0 lookup local 2>/dev/null && ip rule del pref 1000 2>/dev/null
  modprobe -r -d "$kdir" rdma_rxe veth 2>/dev/null
}
trap teardown EXIT

# Each device's counters as "name value" lines (read by the test; the product's own reading of
# them is issue 27 part 3).
counters() {
  local device=$1 file value
  for file in /sys/class/infiniband/"$device"/ports/1/hw_counters/*; do
    # read, not cat: a process per counter costs a tenth of a second in an emulated guest.
    [[ -f "$file" ]] && read -r value <"$file" && echo "${file##*/} $value"
  done
}

say "setting up"
# Few processes: each costs a tenth of a second or more in an emulated guest.
modprobe -a -d "$kdir" rdma_rxe veth || fail "modprobe rdma_rxe veth"
sysctl -qw net.ipv4.conf.{all,default}.{accept_local=1,rp_filter=0}
# 9000: rxe's active MTU follows the netdev's (4096 needs at least 4096 + RoCE headers).
ip -batch - <<'IP' || fail "ip: setting up the veth pair and its routes"
link set lo up
link add qbv0 mtu 9000 type veth peer name qbv1 mtu 9000
addr add 10.0.0.1/24 dev qbv0
addr add 10.0.0.2/24 dev qbv1
link set qbv0 up
link set qbv1 up
rule add pref 10 iif lo to 10.0.0.2 lookup 100
route add 10.0.0.2 dev qbv0 src 10.0.0.1 table 100
rule add pref 11 iif lo to 10.0.0.1 lookup 101
route add 10.0.0.1 dev qbv1 src 10.0.0.2 table 101
rule add pref 1000 lookup local
rule del pref 0
IP
sysctl -qw net.ipv4.conf.{qbv0,qbv1}.{accept_local=1,rp_filter=0}
[[ "$(ip route get 10.0.0.2)" == *"dev qbv0"* ]] || fail "10.0.0.2 is not routed out of qbv0: $(ip route get 10.0.0.2)"
rdma link add rxe0 type rxe netdev qbv0 || fail "rdma link add rxe0"
rdma link add rxe1 type rxe netdev qbv1 || fail "rdma link add rxe1"
((failed == 0)) || exit 1
{
  echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
  rdma link show
  ibv_devinfo -v
  ip -d link show qbv0
} >"$out/devices.txt" 2>&1
say "rxe0 on qbv0 (10.0.0.1), rxe1 on qbv1 (10.0.0.2): $(rdma link show | tr '\n' ' ')"

counters rxe0 >"$out/counters_before_rxe0.txt"
counters rxe1 >"$out/counters_before_rxe1.txt"

# The capture: RoCEv2 (UDP 4791) and the TCP connection that carries the QP exchange (its "ep"
# lines say which QP number is which flow).
tcpdump -i qbv0 -n -U --immediate-mode -B 16384 -s 0 -w "$out/capture.pcap" "udp port 4791 or tcp port $port" \
  2>"$out/tcpdump.log" &
capture_pid=$!
for _ in $(seq 100); do
  grep -q "listening on" "$out/tcpdump.log" 2>/dev/null && break
  sleep 0.1
done
grep -q "listening on" "$out/tcpdump.log" || fail "tcpdump did not start: $(cat "$out/tcpdump.log")"

say "receiver (rxe1, listen $port) and sender (rxe0, peer 10.0.0.2:$port) run $suite"
start=$(uptime_s)
"$qosbench" run "$suite" --driver verbs --driver-option device=rxe1 \
  --driver-option listen=$port --json "$out/receiver.json" >"$out/receiver.log" 2>&1 &
receiver_pid=$!
"$qosbench" run "$suite" --driver verbs --driver-option device=rxe0 \
  --driver-option peer=10.0.0.2:$port --json "$out/sender.json" >"$out/sender.log" 2>&1
echo $? >"$out/sender_rc"
wait "$receiver_pid"
echo $? >"$out/receiver_rc"
receiver_pid=""
end=$(uptime_s)
echo "$start $end" >"$out/run_seconds"
say "runs ended: receiver exit $(cat "$out/receiver_rc"), sender exit $(cat "$out/sender_rc")"
# tcpdump reads the kernel's ring in its own time (slow here): what is still in the ring when it
# stops is lost, so it gets a moment first.
sleep 2
kill -INT "$capture_pid" 2>/dev/null
wait "$capture_pid"
capture_pid=""

say "capture stopped"
counters rxe0 >"$out/counters_after_rxe0.txt"
counters rxe1 >"$out/counters_after_rxe1.txt"

# READ runs in loopback (its data lands on the requester, which judges); across the two devices
# (requesters on rxe0, responders on rxe1: responder_device) its requests and responses cross
# the veth, captured apart.
tcpdump -i qbv0 -n -U --immediate-mode -B 16384 -s 0 -w "$out/read_capture.pcap" "udp port 4791" \
  2>"$out/read_tcpdump.log" &
capture_pid=$!
for _ in $(seq 100); do
  grep -q "listening on" "$out/read_tcpdump.log" 2>/dev/null && break
  sleep 0.1
done
grep -q "listening on" "$out/read_tcpdump.log" || fail "tcpdump did not start: $(cat "$out/read_tcpdump.log")"
say "READ flows in loopback from rxe0 to rxe1 (responder_device): $read_suite"
"$qosbench" run "$read_suite" --driver verbs --driver-option device=rxe0 \
  --driver-option responder_device=rxe1 --json "$out/read.json" >"$out/read.log" 2>&1
echo $? >"$out/read_rc"
sleep 2
kill -INT "$capture_pid" 2>/dev/null
wait "$capture_pid"
capture_pid=""
counters rxe0 >"$out/counters_read_rxe0.txt"
say "READ run ended: exit $(cat "$out/read_rc")"

teardown
trap - EXIT
say "torn down"
# What is left: no rxe device, no veth, no rule of ours, the modules unloaded, no qosbench.
{
  echo "rdma links: $(rdma link show 2>&1 | wc -l)"
  echo "qbv links: $(ip -o link show 2>/dev/null | grep -c qbv)"
  echo "rules: $(ip rule show | grep -c -E 'lookup (100|101)')"
  echo "modules: $(grep -c -E '^(rdma_rxe|veth) ' /proc/modules)"
  echo "qosbench processes: $(pgrep -c -x qosbench)"
} >"$out/teardown.txt"
say "teardown: $(tr '\n' ';' <"$out/teardown.txt")"
exit "$failed"
