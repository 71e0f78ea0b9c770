#!/usr/bin/env python3
"""Checks the ICRC of every RoCEv2 frame in a pcap, independently of qosbench's own code.

Written from the InfiniBand Architecture Specification, Annex A17 (RoCEv2), section A17.3.3
("ICRC"), for IPv4: the CRC-32 (the Ethernet polynomial; zlib.crc32) runs over
  - 8 bytes of 0xff standing in for the LRH that RoCEv2 frames do not carry,
  - the IPv4 header with Type of Service, TTL and Header Checksum set to all ones,
  - the UDP header with its Checksum set to all ones,
  - the BTH with its reserved byte resv8a (byte 4) set to all ones,
  - the rest of the packet up to the ICRC (extended headers, payload, pad),
and is sent least significant byte first in the last 4 bytes of the UDP payload. The variant
fields are masked because routers rewrite them (DSCP/ECN, TTL, checksums) on the way.

Usage: roce_icrc_check.py FILE.pcap
Prints one line per RoCEv2 frame and "checked N, bad M"; exits 0 when every ICRC is right and
at least one RoCEv2 frame was found, 1 otherwise, 2 on an unreadable file.
"""
import struct
import sys
import zlib

ROCE_UDP_PORT = 4791
ETH_P_IPV4 = 0x0800
ETH_P_VLAN = 0x8100
UDP = 17
BTH_BYTES = 12
ICRC_BYTES = 4


def pcap_frames(data):
    """The frames of a classic pcap file (either byte order, micro- or nanosecond stamps)."""
    if len(data) < 24:
        raise ValueError("shorter than a pcap header")
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        order = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        order = ">"
    else:
        raise ValueError("not a pcap file")
    offset = 24
    while offset + 16 <= len(data):
        _, _, captured, _ = struct.unpack(order + "IIII", data[offset:offset + 16])
        offset += 16
        yield data[offset:offset + captured]
        offset += captured


def ip_offset_of(frame):
    """Offset of the IPv4 header (after Ethernet and at most one VLAN tag), or None."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack(">H", frame[12:14])[0]
    offset = 14
    if ethertype == ETH_P_VLAN:
        if len(frame) < 18:
            return None
        ethertype = struct.unpack(">H", frame[16:18])[0]
        offset = 18
    return offset if ethertype == ETH_P_IPV4 else None


def expected_icrc(packet, ihl_bytes):
    """The ICRC bytes for `packet`, which starts at the IPv4 header and ends with the ICRC."""
    masked = bytearray(packet[:ihl_bytes + 8 + BTH_BYTES])
    masked[1] = 0xff  # Type of Service (DSCP, ECN)
    masked[8] = 0xff  # TTL
    masked[10:12] = b"\xff\xff"  # IPv4 header checksum
    masked[ihl_bytes + 6:ihl_bytes + 8] = b"\xff\xff"  # UDP checksum
    masked[ihl_bytes + 8 + 4] = 0xff  # BTH resv8a
    body = packet[ihl_bytes + 8 + BTH_BYTES:len(packet) - ICRC_BYTES]
    crc = zlib.crc32(b"\xff" * 8 + bytes(masked) + body)
    return struct.pack("<I", crc)


def check(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
        frames = list(pcap_frames(data))
    except (OSError, ValueError) as error:
        print(f"{path}: {error}", file=sys.stderr)
        return 2
    checked = bad = 0
    for number, frame in enumerate(frames, 1):
        ip = ip_offset_of(frame)
        if ip is None or len(frame) < ip + 20 or frame[ip + 9] != UDP:
            continue
        ihl_bytes = (frame[ip] & 0x0f) * 4
        total = struct.unpack(">H", frame[ip + 2:ip + 4])[0]
        udp = ip + ihl_bytes
        if struct.unpack(">H", frame[udp + 2:udp + 4])[0] != ROCE_UDP_PORT:
            continue
        # The IP total length ends the packet (a short frame may carry Ethernet padding).
        packet = frame[ip:ip + total]
        if len(packet) != total or total < ihl_bytes + 8 + BTH_BYTES + ICRC_BYTES:
            print(f"frame {number}: truncated RoCEv2 packet")
            bad += 1
            continue
        checked += 1
        want = expected_icrc(packet, ihl_bytes)
        got = packet[-ICRC_BYTES:]
        if want != got:
            bad += 1
            print(f"frame {number}: ICRC {got.hex()} wrong, expected {want.hex()}")
        else:
            print(f"frame {number}: ICRC {got.hex()} correct")
    print(f"checked {checked}, bad {bad}")
    return 0 if checked > 0 and bad == 0 else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        sys.exit(2)
    sys.exit(check(sys.argv[1]))
