#!/usr/bin/env bash
# A multi-host job on one machine with real packets: `mpirun -np 3` — ranks 0 and 1 send the
# flows of the suite's hosts 0 and 1, rank 2 receives — each rank a DPDK process on
# net_af_packet over its own veth, the three veths' peers joined by a Linux bridge (the switch).
# Rank 0 writes one results JSON judged against the whole fabric's expectations
# (two_host_veth.toml). Checked: the job ran and was judged (exit 0, 1 when a gate failed, or 3
# when the results say a worker was starved: on a busy 2-core machine three busy-polling
# processes starve each other's senders, so the verdict is printed, not asserted); every flow of every host is in the one result, with no
# more frames than its own rank sent and host 0's flows in the ratio of their rates; every
# rank's driver statistics and clock offset are there. net_af_packet rather than net_af_xdp:
# AF_XDP sockets on fresh veths failed intermittently here ("Failed to reserve fill queue").
# The links are removed on every exit path.
#
# usage: roles_veth_test.sh QOSBENCH SUITE.toml
# Exit: 0 pass, 1 fail, 77 skipped (no MPI, not root, no veth/bridge, no dpdk driver).
set -u
qosbench=${1:?usage: roles_veth_test.sh QOSBENCH SUITE.toml}
suite=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpi_env.sh"
mpi_skip_unless_usable "$qosbench"
[[ $(id -u) == 0 ]] || skip "needs root (veth, bridge, AF_PACKET sockets)"
"$qosbench" drivers | grep -q "^dpdk .*available" || skip "the dpdk driver is not built"
command -v ip >/dev/null || skip "no 'ip' (iproute2)"

id=$$
bridge="qbbr$id"
links=("qbh0$id" "qbh1$id" "qbrx$id")  # the ranks' ends; their peers get a "p" suffix
work=$(mktemp -d /tmp/qb-mpi-veth.XXXXXX)
cleanup() {
  for link in "${links[@]}"; do ip link del "$link" 2>/dev/null; done
  ip link del "$bridge" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip link add "$bridge" type bridge 2>"$work/err" || skip "cannot create a bridge: $(cat "$work/err")"
ip link set "$bridge" type bridge stp_state 0 forward_delay 0 2>/dev/null
for link in "${links[@]}"; do
  ip link add "$link" type veth peer name "${link}p" 2>"$work/err" ||
    skip "cannot create a veth pair: $(cat "$work/err")"
  for end in "$link" "${link}p"; do
    # No IPv6 solicitations: the only frames on the links are qosbench's.
    sysctl -qw "net.ipv6.conf.$end.disable_ipv6=1" 2>/dev/null
    ip link set "$end" mtu 1500 up || fail "bringing $end up"
  done
  ip link set "${link}p" master "$bridge" || fail "adding ${link}p to $bridge"
done
sysctl -qw "net.ipv6.conf.$bridge.disable_ipv6=1" 2>/dev/null
ip link set "$bridge" up || fail "bringing $bridge up"
# Frames sent before a fresh veth is operationally up are lost: wait for every end and the
# bridge.
for _ in $(seq 50); do
  down=0
  for link in "${links[@]}" "$bridge"; do
    [[ $(cat "/sys/class/net/$link/operstate" 2>/dev/null) == up ]] || down=1
  done
  ((down)) || break
  sleep 0.1
done
((down == 0)) || fail "the links did not come up"

eal="--no-huge -m 256 --no-pci"
# One MPMD app context per rank: its own AF_XDP link, core and role.
job=(mpirun)
add_rank() {  # $1: link, $2: core, then the role's options
  local link=$1 core=$2
  shift 2
  ((${#job[@]} > 1)) && job+=(:)
  job+=(-np 1 "$qosbench" run "$suite" --eal "$eal -l $core --vdev net_af_packet0,iface=$link"
    --driver-option software_shaper=false "$@")
}
add_rank "${links[0]}" 0 --driver-option tx_port=net_af_packet0 --driver-option rx_port=none \
  --json "$work/job.json"
add_rank "${links[1]}" 0 --driver-option tx_port=net_af_packet0 --driver-option rx_port=none
add_rank "${links[2]}" 1 --driver-option tx_port=none --driver-option rx_port=net_af_packet0
cd "$work" || exit 1
timeout 300 "${job[@]}" >"$work/job.out" 2>&1
rc=$?
grep -v "^EAL" "$work/job.out"
# 3 is a judged run too when a rank's worker was starved (docs/dpdk.md "Starved workers").
starved() {
  python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1])).get("scenarios", [{}])[0].get("starvation", {}).get("invalid") else 1)' "$work/job.json" 2>/dev/null
}
((rc == 0 || rc == 1)) || { ((rc == 3)) && starved; } ||
  fail "the job exited $rc (0 or 1: run and judged; 3 only for a starved worker)"
[[ -s $work/job.json ]] || fail "rank 0 wrote no results"
python3 - "$work/job.json" <<'PY' || fail "the merged results do not hold what the job measured"
import json, sys
results = json.load(open(sys.argv[1]))
assert results["complete"] is True, "incomplete"
scenario = results["scenarios"][0]
repetitions = scenario["repetitions"]
flows = {f["name"]: f for f in scenario["flows"]}
assert set(flows) == {"h0-gold#0", "h0-gold#1", "h0-silver", "h1-gold"}, sorted(flows)
for name, flow in flows.items():
    print(f"{name}: host {flow['host']} expected {flow['expected_bps']/1e6:.3f} "
          f"measured {flow['measured_bps']/1e6:.3f} Mbit/s ({flow['error']:+.2%})")
    assert flow["packets"] > 0, f"nothing of {name} arrived"
stats = scenario["driver_stats"]  # means per repetition
for rank in (0, 1, 2):
    assert f"rank{rank}.clock_offset_error_ns" in stats, f"no clock offset of rank {rank}"
    assert f"rank{rank}.tx_packets" in stats, f"no driver statistics of rank {rank}"
# Each sender rank sent its own host's flows and nothing else: a host's flows never got more
# frames than its rank sent (a flow merged from the wrong rank or host would). How many arrive
# inside the receiver's window depends on the CPU the three processes get, so it is not bounded
# from below; but one process's CBR flows are starved alike, so their ratio holds.
for rank, host in ((0, 0), (1, 1)):
    received = sum(f["packets"] for f in flows.values() if f["host"] == host) / repetitions
    sent = stats[f"rank{rank}.tx_packets"]
    print(f"rank {rank} sent {sent:.0f} frames per repetition; host {host}'s flows got {received:.0f} in the window")
    assert received <= 1.001 * sent, f"host {host}'s flows got more frames than rank {rank} sent"
ratio = flows["h0-gold#0"]["packets"] / flows["h0-silver"]["packets"]
print(f"h0-gold#0 / h0-silver frames: {ratio:.3f} (rates 6 : 3)")
assert 1.8 <= ratio <= 2.2, "host 0's flows are not in the ratio of their rates"
sent = stats["rank0.tx_packets"] + stats["rank1.tx_packets"]
got = stats["rank2.rx_packets"]
print(f"senders sent {sent:.0f} frames per repetition, the receiver got {got:.0f}")
assert got <= sent * 1.001, "the receiver counted frames nobody sent"
PY
echo PASS
