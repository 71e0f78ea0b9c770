#!/usr/bin/env bash
# The AF_XDP namespace test: a veth pair between two network namespaces made for this run, qosbench
# receiving (tx_port = "none") on net_af_xdp in one and sending (rx_port = "none") in the other,
# each process its own EAL (qosbench-<pid> prefix, --no-huge). Checks per-flow counts and sequence
# gaps on the receiver against the frames the sender's veth counted (af_xdp_check). The namespaces
# are removed on every exit path.
#
# usage: af_xdp_veth_test.sh QOSBENCH AF_XDP_CHECK SUITE.toml
# Exit: 0 pass, 1 fail, 77 skipped (not root, no netns/veth, no AF_XDP socket).
set -u

qosbench=${1:?usage: af_xdp_veth_test.sh QOSBENCH AF_XDP_CHECK SUITE.toml}
checker=${2:?}
suite=${3:?}
# The receiver's window must cover the sender's whole run, start-up included.
sender_duration=${QB_AF_XDP_SENDER_DURATION:-1s}
receiver_duration=${QB_AF_XDP_RECEIVER_DURATION:-10s}

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  exit 1
}

[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, veth, AF_XDP sockets)"
# Both processes busy-poll: each its own CPU when there are two (on one they share it; at this
# rate that also went without loss here, but it is slower and more exposed to a busy machine).
receiver_core=0
(($(nproc) >= 2)) && receiver_core=1
command -v ip >/dev/null || skip "no 'ip' (iproute2)"

id=$$
ns_tx="qb-xdp-tx-$id"
ns_rx="qb-xdp-rx-$id"
veth_tx="qbxt$id"
veth_rx="qbxr$id"
work=$(mktemp -d /tmp/qb-af-xdp.XXXXXX)
receiver_pid=""

cleanup() {
  if [[ -n $receiver_pid ]] && kill -0 "$receiver_pid" 2>/dev/null; then
    kill -INT "$receiver_pid" 2>/dev/null
    wait "$receiver_pid" 2>/dev/null
  fi
  # Deleting a namespace deletes the veth end in it (and so the pair).
  ip netns del "$ns_tx" 2>/dev/null
  ip netns del "$ns_rx" 2>/dev/null
  ip link del "$veth_tx" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$ns_tx" 2>"$work/netns.err" || skip "ip netns add failed: $(cat "$work/netns.err")"
ip netns add "$ns_rx" || skip "ip netns add failed"
# Entering a namespace remounts /sys (ip netns exec): impossible e.g. in a plain chroot.
ip netns exec "$ns_tx" true 2>"$work/netns.err" ||
  skip "cannot enter a network namespace here: $(cat "$work/netns.err")"
ip link add "$veth_tx" type veth peer name "$veth_rx" 2>"$work/veth.err" ||
  skip "cannot create a veth pair: $(cat "$work/veth.err")"
ip link set "$veth_tx" netns "$ns_tx" || fail "moving $veth_tx into $ns_tx"
ip link set "$veth_rx" netns "$ns_rx" || fail "moving $veth_rx into $ns_rx"
for side in "$ns_tx $veth_tx" "$ns_rx $veth_rx"; do
  set -- $side
  # No IPv6 router/neighbour solicitations: the only frames on the pair are qosbench's.
  ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
  ip netns exec "$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
  ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" 2>/dev/null
  # MTU 1500 holds the suite's 512-byte frames; AF_XDP copy mode on veth needs nothing more.
  ip -n "$1" link set "$2" mtu 1500 up || fail "bringing $2 up"
done

# Each side: the suite's flows plus its own [driver.dpdk] table.
cp "$suite" "$work/tx.toml"
printf '\n[driver.dpdk]\ntx_port = "net_af_xdp0"\nrx_port = "none"\nsoftware_shaper = false\n' \
  >>"$work/tx.toml"
cp "$suite" "$work/rx.toml"
printf '\n[driver.dpdk]\ntx_port = "none"\nrx_port = "net_af_xdp0"\nsoftware_shaper = false\n' \
  >>"$work/rx.toml"
# -m: the pool (2 KiB mbufs, the AF_XDP UMEM is the pool itself) and the rings.
eal_common="--no-huge -m 256 --no-pci --log-level=pmd.net.af_xdp:error"

af_xdp_unusable() {  # $1: stderr of a qosbench run
  grep -qE "AF_XDP socket|net_af_xdp.*(not found|probing it failed)|Failed to create umem" "$1"
}

ip netns exec "$ns_rx" "$qosbench" run "$work/rx.toml" --driver dpdk \
  --eal "$eal_common -l $receiver_core --vdev net_af_xdp0,iface=$veth_rx" \
  --duration "$receiver_duration" --json "$work/rx.json" --quiet \
  >"$work/rx.out" 2>"$work/rx.err" &
receiver_pid=$!

# The receiver is ready once its AF_XDP socket has put the XDP program on its veth.
ready=0
for _ in $(seq 100); do
  if ! kill -0 "$receiver_pid" 2>/dev/null; then break; fi
  if ip -n "$ns_rx" link show "$veth_rx" | grep -q "xdp"; then
    ready=1
    break
  fi
  sleep 0.1
done
if ((!ready)); then
  wait "$receiver_pid"
  rc=$?
  receiver_pid=""
  cat "$work/rx.err"
  af_xdp_unusable "$work/rx.err" && skip "net_af_xdp cannot create its socket here (see above)"
  fail "the receiver did not come up (exit $rc)"
fi
sleep 1  # apply() and start() after the socket exists

tx_count() {
  ip -n "$ns_tx" -s -j link show "$veth_tx" 2>/dev/null |
    grep -o '"tx":{[^}]*' | grep -o '"packets":[0-9]*' | cut -d: -f2
}
sent_before=$(tx_count)
ip netns exec "$ns_tx" "$qosbench" run "$work/tx.toml" --driver dpdk \
  --eal "$eal_common -l 0 --vdev net_af_xdp0,iface=$veth_tx" \
  --duration "$sender_duration" --quiet >"$work/tx.out" 2>"$work/tx.err"
sender_rc=$?
sent_after=$(tx_count)
# A worker that other processes starve is an invalid measurement (exit 3, saying so); this test
# checks counts, which stay exact, so it accepts that end.
starved() { grep -q "starved of CPU" "$1"; }
# A Tx-only run judges nothing (the receiver does): it exits 0 after saying what it sent.
if ((sender_rc == 3)) && starved "$work/tx.out"; then
  echo "note: the sender was starved of CPU by other processes (exit 3)"
elif ((sender_rc != 0)); then
  cat "$work/tx.err"
  af_xdp_unusable "$work/tx.err" && skip "net_af_xdp cannot create its socket here (see above)"
  fail "the sender failed (exit $sender_rc)"
fi
[[ -n $sent_before && -n $sent_after ]] || fail "cannot read the sender veth's counters"

kill -0 "$receiver_pid" 2>/dev/null ||
  fail "the receiver's $receiver_duration window ended before the sender finished"
wait "$receiver_pid"
receiver_rc=$?
receiver_pid=""
if ((receiver_rc == 3)) && starved "$work/rx.out"; then
  echo "note: the receiver was starved of CPU by other processes (exit 3)"
elif ((receiver_rc != 0 && receiver_rc != 1)); then
  cat "$work/rx.err"
  fail "the receiver failed (exit $receiver_rc)"
fi
echo "receiver veth: $(ip -n "$ns_rx" -s link show "$veth_rx" | sed -n '4p' | xargs)" \
  "(bytes packets errors dropped missed mcast)"
"$checker" "$work/rx.json" "$((sent_after - sent_before))"
