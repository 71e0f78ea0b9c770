#!/usr/bin/env python3
"""The Soft-RoCE test's wire check: every flow's RoCEv2 packets carry its class's DSCP.

usage: check_capture.py CAPTURE.pcap RECEIVER.json PORT

The capture (tcpdump on the veth) holds the RoCEv2 packets (UDP 4791) and the TCP connection
of the verbs driver's QP exchange, whose "ep <flow> <qp_num> ..." lines (drivers/verbs/
qp_exchange.hpp) say which QP is which flow: the receiver's lines its responder QPs, the
sender's its requester QPs. A packet's destination address and BTH destination QP name its flow
(each device numbers its QPs on its own; requests go to the receiver's responder, ACKs come
back to the sender's requester); its DSCP is the IPv4 TOS byte's upper six bits.
The expected DSCP is the flow's in the receiver's results (flows[i].dscp, flow i of the plan).
It also adds up the IPv4 bytes of the requests per DSCP: each class's share of them on the
wire must be within 15 % (relative) of its share of the flows' expected rates (an independent
look at the classes, from the wire instead of the receiver's counts).
Exit 0 when every flow has packets in both directions, all of them carry its DSCP and the
classes' shares hold; 1 otherwise, with a table of what was seen.
"""
import json
import struct
import sys
from collections import defaultdict

ROCEV2_PORT = 4791


def packets(path):
    """Yields each packet's bytes (Ethernet frames) from a pcap file."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        raise SystemExit(f"{path}: not a pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 1:
        raise SystemExit(f"{path}: link type {linktype}, not Ethernet")
    offset = 24
    while offset + 16 <= len(data):
        _, _, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        offset += 16
        yield data[offset:offset + caplen]
        offset += caplen


def ipv4(frame):
    """(tos, protocol, src, dst, payload) of an IPv4 frame, or None."""
    if len(frame) < 34 or frame[12:14] != b"\x08\x00":
        return None
    ip = frame[14:]
    ihl = (ip[0] & 0x0F) * 4
    total = struct.unpack(">H", ip[2:4])[0]
    return ip[1], ip[9], ip[12:16], ip[16:20], ip[ihl:total]


def main():
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    capture, results_path, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(results_path) as f:
        results = json.load(f)
    flows = results["scenarios"][0]["flows"]
    expected = [flow["dscp"] for flow in flows]
    names = [flow["name"] for flow in flows]

    # TCP segments of the exchange, per direction, by sequence number (retransmissions collapse).
    segments = defaultdict(dict)
    roce = []  # (dscp, destination address, destination QP)
    address = {}  # True (the receiver: the exchange's listening side) / False -> its IPv4 address
    for frame in packets(capture):
        parsed = ipv4(frame)
        if parsed is None:
            continue
        tos, proto, src, dst, payload = parsed
        if proto == 17 and len(payload) >= 20:
            dport = struct.unpack(">H", payload[2:4])[0]
            if dport == ROCEV2_PORT:
                bth = payload[8:20]
                roce.append((tos >> 2, dst, int.from_bytes(bth[5:8], "big"), len(payload) + 28))
        elif proto == 6 and len(payload) >= 20:
            sport, dport, seq = struct.unpack(">HHI", payload[:8])
            header = (payload[12] >> 4) * 4
            body = payload[header:]
            if port in (sport, dport):
                address[sport == port] = src
                address[dport == port] = dst
                if body:
                    segments[sport == port][seq] = body

    qp_flow = {}
    for from_receiver, by_seq in segments.items():
        stream = b"".join(by_seq[seq] for seq in sorted(by_seq))
        for line in stream.decode("ascii", "replace").splitlines():
            words = line.split()
            if len(words) == 8 and words[0] == "ep":
                qp_flow[(address[from_receiver], int(words[2]))] = (
                    int(words[1]), "responder" if from_receiver else "requester")
    if not qp_flow:
        print(f"FAIL: no QP exchange ('ep' lines on TCP port {port}) in {capture}")
        return 1

    seen = defaultdict(lambda: defaultdict(int))  # (flow, direction) -> dscp -> packets
    unknown = 0
    request_bytes = defaultdict(int)  # DSCP -> IPv4 bytes of requests (to the responder)
    for dscp, dst, qp, ip_bytes in roce:
        if (dst, qp) not in qp_flow:
            unknown += 1
            continue
        flow, role = qp_flow[(dst, qp)]
        direction = "to responder" if role == "responder" else "to requester"
        seen[(flow, direction)][dscp] += 1
        if role == "responder":
            request_bytes[dscp] += ip_bytes

    failed = False
    print(f"{len(roce)} RoCEv2 packets, {len(qp_flow)} QPs named by the exchange"
          f"{f', {unknown} packets to other QPs' if unknown else ''}")
    print(f"  {'flow':<16} {'expected':>8}  {'to responder (DSCP: packets)':<30} to requester")
    for index, name in enumerate(names):
        cells = []
        for direction in ("to responder", "to requester"):
            by_dscp = seen.get((index, direction), {})
            cells.append(", ".join(f"{d}: {n}" for d, n in sorted(by_dscp.items())) or "none")
            if not by_dscp:
                failed = True
                print(f"FAIL: flow {name}: no RoCEv2 packet {direction}")
            wrong = {d: n for d, n in by_dscp.items() if d != expected[index]}
            if wrong:
                failed = True
                print(f"FAIL: flow {name}: {sum(wrong.values())} packets {direction} carry DSCP "
                      f"{sorted(wrong)}, not its class's {expected[index]}")
        print(f"  {name:<16} {expected[index]:>8}  {cells[0]:<30} {cells[1]}")
    expected_bps = defaultdict(float)
    for flow in flows:
        expected_bps[flow["dscp"]] += flow["expected_bps"]
    total_bytes = sum(request_bytes.values())
    total_bps = sum(expected_bps.values())
    print("  class shares of the requests' bytes on the wire (expected: of the flows' expected rates)")
    for dscp in sorted(set(expected_bps) | set(request_bytes)):
        measured = request_bytes[dscp] / total_bytes if total_bytes else 0.0
        expected = expected_bps[dscp] / total_bps if total_bps else 0.0
        print(f"    DSCP {dscp:>2}: {100 * measured:6.2f} %  expected {100 * expected:6.2f} %")
        if abs(measured - expected) > 0.15 * expected:
            failed = True
            print(f"FAIL: DSCP {dscp} carries {100 * measured:.2f} % of the requests' bytes, "
                  f"its flows are expected to get {100 * expected:.2f} %")
    if unknown:
        failed = True
        print(f"FAIL: {unknown} RoCEv2 packets to QPs no flow has")
    print("FAIL: see above" if failed else
          "PASS: every flow's RoCEv2 packets carry its class's DSCP, both directions, and the "
          "classes' shares of the wire hold")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
