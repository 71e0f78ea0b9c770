#!/usr/bin/env bash
# A [topology] job on real packets (issue 29 part 7): `mpirun -np H`, one rank per host of the
# suite's topology, each sending its host's flows and receiving those destined to it — every
# rank a DPDK process on net_af_packet over a veth in a network namespace of its own (a host of
# its own), the veths' peers joined by a Linux bridge in this namespace (the switch). Each
# rank makes its port in its namespace (driver.dpdk.netns): a rank started under
# `ip netns exec` cannot reach mpirun (PMIx's clients connect over the launcher's loopback
# TCP, which another namespace does not share). Frames are switched, not flooded: the ranks
# learn each other's MACs through the job and address each flow to its destination's, and each
# sends one frame to itself at start so that the bridge learns where it is.
# Checked: the job ran and was judged against the fabric's expectation (the figures
# `qosbench explain` prints); every flow was measured by the rank of its destination (its
# rank<r>.flow.<name>.received_packets) and by no other; no flow got more frames in the window than
# its destination counted, nor the flows of a rank more than it sent; the strays each rank saw
# (frames of flows destined to another) are printed and bounded. The verdict is printed, not
# asserted: three busy-polling processes on 2 cores starve each other (roles_veth_test.sh),
# and the job then exits 3 with the starvation report, which the test accepts when the results
# say so. The namespaces, links and bridge are removed on every exit path.
#
# usage: fabric_bridge_test.sh QOSBENCH SUITE.toml
# Also: a job of another size than the topology's hosts is exit 2, one message naming the -np;
# a [[fabric.host]] placement beside the [topology] is exit 2 at its key.
# Exit: 0 pass, 1 fail, 77 skipped (no MPI, not root, no netns/veth/bridge, no dpdk driver).
set -u
qosbench=${1:?usage: fabric_bridge_test.sh QOSBENCH SUITE.toml}
suite=${2:?}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/mpi_env.sh"
mpi_skip_unless_usable "$qosbench"
"$qosbench" drivers | grep -q "^dpdk .*available" || skip "the dpdk driver is not built"
command -v ip >/dev/null || skip "no 'ip' (iproute2)"
command -v python3 >/dev/null || skip "no python3"

work=$(mktemp -d /tmp/qb-fabric-bridge.XXXXXX)
bridge="qbfb$$"
namespaces=()
links=()  # the ranks' ends (in their namespaces); their peers here get a "p" suffix
created_bridge=0
cleanup() {
  for ns in "${namespaces[@]}"; do ip netns del "$ns" 2>/dev/null; done
  for link in "${links[@]}"; do ip link del "${link}p" 2>/dev/null; done
  ((created_bridge)) && ip link del "$bridge" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
"$qosbench" explain "$suite" --json >"$work/explain.json" || fail "explain failed"
# The topology's hosts in host order: rank i plays the i-th.
hosts=$(python3 -c 'import json, sys
nodes = json.load(open(sys.argv[1]))["scenarios"][0]["topology"]["nodes"]
print(sum(1 for n in nodes if n["kind"] == "host"))' "$work/explain.json") || fail "explain --json has no topology"

# A job of another size than the topology's hosts: exit 2 on every rank, one message naming
# the -np the suite needs (nothing opened: the size is checked before any driver).
(cd "$work" && timeout 120 mpirun -np $((hosts - 1)) "$qosbench" run "$suite" >"$work/bad.out" 2>&1)
rc=$?
cat "$work/bad.out"
((rc == 2)) || fail "a job of $((hosts - 1)) ranks for $hosts hosts exited $rc, not 2"
[[ $(grep -c "mpirun -np $hosts)" "$work/bad.out") == 1 ]] ||
  fail "not one message naming mpirun -np $hosts"
grep -q "topology" "$work/bad.out" || fail "the message does not name the topology"
# A placement beside a [topology] (host i runs on rank i): exit 2 at the placement's key.
placed="$work/placed.toml"
cp "$suite" "$placed"
printf '\n[[fabric.host]]\nrank = 1\n' >>"$placed"
(cd "$work" && timeout 120 mpirun -np "$hosts" "$qosbench" run "$placed" >"$work/placed.out" 2>&1)
rc=$?
cat "$work/placed.out"
((rc == 2)) || fail "a placement beside a [topology] exited $rc, not 2"
grep -q "placed.toml:[0-9]*:[0-9]*: error: fabric.host\[0\]" "$work/placed.out" ||
  fail "the refusal does not point at the placement"

[[ $(id -u) == 0 ]] || skip "needs root (network namespaces, veth, bridge, AF_PACKET sockets)"
id=$$

ip link add "$bridge" type bridge 2>"$work/err" || skip "cannot create a bridge: $(cat "$work/err")"
created_bridge=1
ip link set "$bridge" type bridge stp_state 0 forward_delay 0 2>/dev/null
sysctl -qw "net.ipv6.conf.$bridge.disable_ipv6=1" 2>/dev/null
for ((rank = 0; rank < hosts; rank++)); do
  ns="qbfb$id-$rank"
  link="qbf$id$rank"
  ip netns add "$ns" 2>"$work/err" || skip "cannot create a network namespace: $(cat "$work/err")"
  namespaces+=("$ns")
  ip link add "$link" type veth peer name "${link}p" 2>"$work/err" ||
    skip "cannot create a veth pair: $(cat "$work/err")"
  links+=("$link")
  ip link set "$link" netns "$ns" || fail "moving $link into $ns"
  # No IPv6 solicitations: the only frames on the links are qosbench's.
  ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$link.disable_ipv6=1" 2>/dev/null
  sysctl -qw "net.ipv6.conf.${link}p.disable_ipv6=1" 2>/dev/null
  ip netns exec "$ns" ip link set "$link" mtu 1500 up || fail "bringing $link up in $ns"
  ip link set "${link}p" mtu 1500 up || fail "bringing ${link}p up"
  ip link set "${link}p" master "$bridge" || fail "adding ${link}p to $bridge"
done
ip link set "$bridge" up || fail "bringing $bridge up"
# Frames sent before a fresh veth is operationally up are lost: wait for every end.
for _ in $(seq 50); do
  down=0
  for ((rank = 0; rank < hosts; rank++)); do
    [[ $(ip netns exec "${namespaces[$rank]}" cat "/sys/class/net/${links[$rank]}/operstate" 2>/dev/null) == up ]] || down=1
    [[ $(cat "/sys/class/net/${links[$rank]}p/operstate" 2>/dev/null) == up ]] || down=1
  done
  [[ $(cat "/sys/class/net/$bridge/operstate" 2>/dev/null) == up ]] || down=1
  ((down)) || break
  sleep 0.1
done
((down == 0)) || fail "the links did not come up"

eal="--no-huge -m 256 --no-pci"
# One MPMD app context per rank: its namespace, link and core; rank 0 writes.
job=(mpirun)
for ((rank = 0; rank < hosts; rank++)); do
  ((${#job[@]} > 1)) && job+=(:)
  job+=(-np 1 "$qosbench" run "$suite" --driver-option software_shaper=false
    --driver-option "netns=${namespaces[$rank]}"
    --eal "$eal -l $((rank % 2)) --vdev net_af_packet0,iface=${links[$rank]}"
    --driver-option tx_port=net_af_packet0)
  ((rank == 0)) && job+=(--json "$work/job.json")
done
(cd "$work" && timeout 300 "${job[@]}" >"$work/job.out" 2>&1)
rc=$?
grep -v "^EAL" "$work/job.out"
for ((rank = 0; rank < hosts; rank++)); do
  grep -q "rank $rank on .*: host $rank (sends and receives)" "$work/job.out" ||
    fail "rank 0 did not say rank $rank plays host $rank, sending and receiving"
done
starved() {
  python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1])).get("scenarios", [{}])[0].get("starvation", {}).get("invalid") else 1)' "$work/job.json" 2>/dev/null
}
((rc == 0 || rc == 1)) || { ((rc == 3)) && starved; } ||
  fail "the job exited $rc (0 or 1: run and judged; 3 only for a starved worker)"
[[ -s $work/job.json ]] || fail "rank 0 wrote no results"
# The bridge learned every rank's address on that rank's port (its hello, then its flows).
if command -v bridge >/dev/null; then
  for ((rank = 0; rank < hosts; rank++)); do
    mac=$(ip netns exec "${namespaces[$rank]}" cat "/sys/class/net/${links[$rank]}/address")
    bridge fdb show br "$bridge" | grep -qi "^$mac dev ${links[$rank]}p" ||
      fail "the bridge did not learn rank $rank's address $mac on ${links[$rank]}p"
  done
fi
python3 - "$work/job.json" "$work/explain.json" <<'PY' || fail "the merged results do not hold what the job measured"
import json, sys
results = json.load(open(sys.argv[1]))
explain = json.load(open(sys.argv[2]))["scenarios"][0]
assert results["complete"] is True, "incomplete"
scenario = results["scenarios"][0]
repetitions = scenario["repetitions"]
stats = scenario["driver_stats"]  # means per repetition
planned = {f["name"]: f for f in explain["flows"]}
hosts = [n["name"] for n in explain["topology"]["nodes"] if n["kind"] == "host"]
rank_of = {name: rank for rank, name in enumerate(hosts)}  # by default rank i plays host i
flows = {f["name"]: f for f in scenario["flows"]}
assert set(flows) == set(planned), (sorted(flows), sorted(planned))
print(f"verdict: {results.get('verdict')}")
for name, flow in sorted(flows.items()):
    plan = planned[name]
    src, dst = rank_of[plan["from"]], rank_of[plan["to"]]
    # Judged against the fabric's expectation: the figures explain prints.
    assert abs(flow["expected_bps"] - plan["expected_bps"]) <= 1e-6 * plan["expected_bps"], \
        f"{name}: expected {flow['expected_bps']} where explain says {plan['expected_bps']}"
    counted = stats.get(f"rank{dst}.flow.{name}.received_packets")
    print(f"{name}: {plan['from']} (rank {src}) -> {plan['to']} (rank {dst}): expected "
          f"{flow['expected_bps']/1e6:.3f} measured {flow['measured_bps']/1e6:.3f} Mbit/s "
          f"({flow['error']:+.2%}); rank {dst} counted {counted} frames per repetition, "
          f"{flow['packets'] / repetitions:.0f} in the window")
    assert flow["packets"] > 0, f"nothing of {name} arrived"
    # Measured by its destination's rank, and by no other.
    assert counted is not None and counted > 0, f"rank {dst} did not count {name}"
    for rank in range(len(hosts)):
        if rank != dst:
            assert f"rank{rank}.flow.{name}.received_packets" not in stats, \
                f"rank {rank} counted {name}, which is destined to rank {dst}"
    assert flow["packets"] / repetitions <= counted * 1.001, \
        f"{name}: more frames in the window than its destination's rank counted"
for rank, host in enumerate(hosts):
    sent = stats[f"rank{rank}.tx_packets"]
    got = sum(stats[f"rank{rank_of[planned[n]['to']]}.flow.{n}.received_packets"]
              for n in planned if planned[n]["from"] == host)
    stray = stats[f"rank{rank}.rx_stray"]
    received = stats[f"rank{rank}.rx_packets"]
    print(f"rank {rank} ({host}): sent {sent:.0f} frames per repetition, its flows' destinations "
          f"got {got:.0f}; received {received:.0f}, {stray:.0f} strays, hello sent "
          f"{stats[f'rank{rank}.tx_hello']:.0f}")
    assert sent > 0, f"rank {rank} sent nothing"
    assert got <= sent * 1.001, f"rank {rank}'s flows arrived more often than it sent"
    assert stats[f"rank{rank}.tx_hello"] == 1, f"rank {rank} did not announce its address"
    # Switched, not flooded: at most a few frames before the bridge learned an address.
    assert stray <= 0.01 * max(received, 100), f"rank {rank} saw {stray:.0f} strays"
PY
echo PASS
