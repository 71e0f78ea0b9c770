#!/usr/bin/env python3
"""The Soft-RoCE test's wire check of the READ run: READ requests and READ responses carry the
READ flow's DSCP, the other flows' packets theirs.

usage: check_read_capture.py CAPTURE.pcap RESULTS.json SUITE.toml

The READ run is a loopback across two devices (responder_device: requester QPs on rxe0,
responder QPs on rxe1), so it has no QP exchange on the wire to name the QPs; each packet's
flow is told by its BTH opcode instead, which the suite makes unambiguous (one flow per op):
  RDMA READ request (0x0c), from the requester: the READ flow;
  RDMA READ response first/middle/last/only (0x0d-0x10), from the responder: the READ flow,
      whose traffic class the responder QP's address vector sets (the verbs driver gives both
      QPs of a flow its DSCP at RTR; rxe builds responses from the QP's primary AV);
  RDMA WRITE (0x06-0x0b) and SEND (0x00-0x05): the flow of that op;
  ACK (0x11): the WRITE or SEND flow's responder acknowledging (READs are acknowledged by
      their responses).
The expected DSCP is each flow's in the suite ([[flow]] dscp; the results carry it only for
suites with classes), its name and order the results'. Exit 0 when the READ flow has
requests and responses and every packet carries its flow's DSCP; 1 otherwise, with a table.
"""
import json
import sys
import tomllib
from collections import defaultdict

sys.path.insert(0, __import__("os").path.dirname(__file__))
from check_capture import ROCEV2_PORT, ipv4, packets  # noqa: E402

KINDS = [
    (range(0x0C, 0x0D), "read", "READ request"),
    (range(0x0D, 0x11), "read", "READ response"),
    (range(0x06, 0x0C), "write", "WRITE"),
    (range(0x00, 0x06), "send", "SEND"),
]


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    capture, results_path, suite_path = sys.argv[1:]
    flows = json.load(open(results_path))["scenarios"][0]["flows"]
    with open(suite_path, "rb") as f:
        suite = tomllib.load(f)
    ops = [spec.get("op", "write") for spec in suite["flow"]]
    dscps = [spec.get("dscp", 0) for spec in suite["flow"]]
    if len(ops) != len(flows) or len(set(ops)) != len(ops):
        raise SystemExit(f"{suite_path}: needs one [[flow]] per op and no count (ops {ops})")
    by_op = {op: index for index, op in enumerate(ops)}
    acked = [op for op in ops if op != "read"]
    seen = defaultdict(lambda: defaultdict(int))  # (flow, kind) -> dscp -> packets
    other = 0
    for frame in packets(capture):
        parsed = ipv4(frame)
        if parsed is None:
            continue
        tos, proto, _, _, payload = parsed
        if proto != 17 or len(payload) < 20 or int.from_bytes(payload[2:4], "big") != ROCEV2_PORT:
            continue
        opcode = payload[8]
        for codes, op, kind in KINDS:
            if opcode in codes and op in by_op:
                seen[(by_op[op], kind)][tos >> 2] += 1
                break
        else:
            if opcode == 0x11 and len(acked) == 1:
                seen[(by_op[acked[0]], "ACK")][tos >> 2] += 1
            else:
                other += 1
    failed = False
    print(f"  {'flow':<10} {'op':<6} {'expected':>8}  packets by kind (DSCP: packets)")
    for index, flow in enumerate(flows):
        expected = dscps[index]
        cells = []
        for (f, kind), by_dscp in sorted(seen.items()):
            if f != index:
                continue
            cells.append(f"{kind} " + ", ".join(f"{d}: {n}" for d, n in sorted(by_dscp.items())))
            wrong = {d: n for d, n in by_dscp.items() if d != expected}
            if wrong:
                failed = True
                print(f"FAIL: flow {flow['name']}: {sum(wrong.values())} {kind} packets carry "
                      f"DSCP {sorted(wrong)}, not its class's {expected}")
        print(f"  {flow['name']:<10} {ops[index]:<6} {expected:>8}  {'; '.join(cells) or 'none'}")
    for kind in ("READ request", "READ response"):
        if "read" in by_op and not seen.get((by_op["read"], kind)):
            failed = True
            print(f"FAIL: no {kind} on the wire")
    if other:
        failed = True
        print(f"FAIL: {other} RoCEv2 packets of an opcode no flow of the suite sends")
    print("FAIL: see above" if failed else
          "PASS: the READ flow's requests and responses, and every other flow's packets, carry "
          "their class's DSCP on the wire")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
