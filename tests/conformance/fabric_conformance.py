#!/usr/bin/env python3
"""OpenSM on multi-switch fabrics (issue 29 part 6): real OpenSM (on ibsim, through
scripts/opensm-fabric.sh) routes each fabric and programs its QoS tables; `qosbench import-opensm
--fabric-dir` reads the topology, the LFTs and every port's tables back into a suite, and
opensm_fabric_check prints what qosbench computes for that suite. Checked, per fabric and config:

1. Per-port tables: on every host port and switch external port, the SL2VL and VLArb tables
   qosbench computes from the suite's [ib] (the opensm.conf's CA and switch-external sets) equal
   the tables OpenSM programmed (smpquery), and every port of the fabric was read.
2. Routes: for every ordered host pair, the path routing = "lft" gives equals the path this script
   walks itself through the dump_lfts text and the ibnetdiscover links; every such path is as short
   as qosbench's `shortest` (OpenSM's minhop), and the script reports how many pairs take the very
   same switch ports as `shortest` and `single`.

Exit 0 all equal, 1 a mismatch or a harness failure, 77 (CTest SKIP_RETURN_CODE) when ibsim,
opensm, infiniband-diags or libumad2sim are not installed.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
HARNESS = REPO / "scripts" / "opensm-fabric.sh"
UMAD2SIM = os.environ.get("UMAD2SIM", "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
NET_EXAMPLES = Path("/usr/share/doc/ibsim-utils/net-examples")
SKIP = 77
# (fabric file, opensm.conf): at least two multi-switch fabrics.
CASES = [
    (NET_EXAMPLES / "net.2sw2path4hca", HERE / "configs" / "fabric-per-type.conf"),
    (HERE / "fabrics" / "fat-tree-2level.net", HERE / "configs" / "fabric-per-type.conf"),
    (HERE / "fabrics" / "fat-tree-2level.net", HERE / "configs" / "doc-example.conf"),
]
TABLES = ("sl2vl", "vlarb_high", "vlarb_low")


def skip_reason():
    for tool in ("ibsim", "opensm", "smpquery", "ibnetdiscover", "timeout"):
        if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists():
            return f"'{tool}' not found (apt-get install ibsim-utils opensm infiniband-diags)"
    if not any(Path(d, n).exists() for d in ("/usr/sbin", "/usr/bin") for n in ("dump_lfts", "dump_lfts.sh")):
        return "dump_lfts not found (infiniband-diags)"
    if not Path(UMAD2SIM).exists():
        return f"{UMAD2SIM} missing (package libumad2sim0)"
    if not (NET_EXAMPLES / "net.2sw2path4hca").exists():
        return f"{NET_EXAMPLES}/net.2sw2path4hca missing (ibsim-utils' examples)"
    return None


def run(cmd, what):
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=200, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return proc.stdout


def parse_ibnet(text):
    """{node id: {port: (remote id, remote port)}}, {CA port GUID: node id}, switch ids."""
    links, ca_guid, switches = {}, {}, set()
    node = None
    for line in text.splitlines():
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"', line)
        if m:
            node = m.group(2)
            links[node] = {}
            if m.group(1) == "Switch":
                switches.add(node)
            continue
        m = re.match(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\]', line)
        if m and node is not None:
            links[node][int(m.group(1))] = (m.group(3), int(m.group(4)))
            if node not in switches and m.group(2):
                ca_guid[int(m.group(2), 16)] = node
    return links, ca_guid, switches


def parse_lfts(text):
    """{switch id: {destination port GUID: output port}}."""
    lfts, current = {}, None
    for line in text.splitlines():
        m = re.search(r"guid (0x[0-9a-fA-F]+)", line) if line.startswith("Unicast lids") else None
        if m:
            current = lfts.setdefault("S-%016x" % int(m.group(1), 16), {})
            continue
        m = re.match(r"^0x[0-9a-fA-F]+\s+(\d+)\s*:.*portguid (0x[0-9a-fA-F]+)", line)
        if m and current is not None:
            current[int(m.group(2), 16)] = int(m.group(1))
    return lfts


def walk(links, lfts, ca_guid, src, dst):
    """The switch egress ports ("node:port") from host src to host dst through the LFTs."""
    guid = next(g for g, n in ca_guid.items() if n == dst)
    node, _ = links[src][min(links[src])]
    path = []
    while node != dst:
        if node not in lfts or guid not in lfts[node] or len(path) > 64:
            return None
        port = lfts[node][guid]
        path.append(f"{node}:{port}")
        node, _ = links[node][port]
    return path


def check_case(qosbench, checker, fabric, conf, work):
    name = f"{fabric.name} + {conf.name}"
    out = work / f"{fabric.name}-{conf.stem}"
    run(["bash", HARNESS, conf, fabric, out], f"opensm-fabric.sh {name}")
    suite_text = run([qosbench, "import-opensm", "--opensm-conf", conf, "--fabric-dir", out],
                     f"import-opensm {name}")
    suite = out / "suite.toml"
    suite.write_text(suite_text)
    opensm = json.loads(run([qosbench, "import-opensm", "--opensm-conf", conf, "--fabric-dir", out,
                             "--json"], f"import-opensm --json {name}"))
    ours = json.loads(run([checker, suite], f"opensm_fabric_check {name}"))
    problems = []

    # 1. Per-port tables.
    read = {(p["node"], p["port"]): p for p in opensm["ports"]}
    for port in ours["ports"]:
        key = (port["node"], port["port"])
        if key not in read:
            problems.append(f"{key}: not read back from the fabric")
            continue
        for table in TABLES:
            if port["computed"][table] != read[key][table]:
                problems.append(f"{key} ({port['type']}) {table}: qosbench {port['computed'][table]} "
                                f"!= OpenSM {read[key][table]}")
            if port["suite"][table] != read[key][table]:
                problems.append(f"{key} {table}: the imported suite's {port['suite'][table]} != "
                                f"OpenSM's {read[key][table]}")
    if len(ours["ports"]) != len(read):
        problems.append(f"{len(read)} ports read back, {len(ours['ports'])} in the topology")

    # 2. Routes.
    links, ca_guid, _ = parse_ibnet((out / "ibnetdiscover.txt").read_text())
    lfts = parse_lfts((out / "lfts.txt").read_text())
    same_shortest = same_single = 0
    for route in ours["routes"]:
        walked = walk(links, lfts, ca_guid, route["src"], route["dst"])
        if walked != route["lft"]:
            problems.append(f"{route['src']} -> {route['dst']}: routing lft {route['lft']} != "
                            f"the LFTs walked {walked}")
        if len(route["lft"]) != len(route["shortest"]):
            problems.append(f"{route['src']} -> {route['dst']}: OpenSM's path has "
                            f"{len(route['lft'])} switch hops, the shortest {len(route['shortest'])}")
        same_shortest += route["lft"] == route["shortest"]
        same_single += route["lft"] == route["single"]
    pairs = len(ours["routes"])
    summary = (f"{name}: {len(ours['ports'])} ports equal, {pairs} host pairs routed as the LFTs say, "
               f"all minimal; same switch ports as shortest (ECMP hash, seed 1) {same_shortest}/{pairs}, "
               f"as single {same_single}/{pairs}")
    return problems, summary


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--qosbench", required=True)
    parser.add_argument("--check", required=True, help="the opensm_fabric_check binary")
    parser.add_argument("--keep", help="keep the fabric directories and suites here")
    args = parser.parse_args()
    reason = skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    failed = False
    with tempfile.TemporaryDirectory(prefix="qb-opensm-fabric-") as tmp:
        work = Path(args.keep) if args.keep else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        for fabric, conf in CASES:
            try:
                problems, summary = check_case(args.qosbench, args.check, fabric, conf, work)
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
                print(f"FAIL {fabric.name} + {conf.name}: {error}")
                failed = True
                continue
            for problem in problems[:20]:
                print(f"FAIL {fabric.name} + {conf.name}: {problem}")
            failed = failed or bool(problems)
            print(("ok   " if not problems else "FAIL ") + summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
