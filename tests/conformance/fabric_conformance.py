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
3. A shipped suite (configs/fabrics/ib_fat_tree.toml): OpenSM runs on the suite's own fabric
   file with the suite's opensm.conf and qos-policy.conf; `import-opensm --net` names the nodes
   as the suite does, and the suite's own per-port tables (its [ib], its [[topology.switch_qos]]
   if any) and its routes (its [[topology.lft]]) must equal OpenSM's on every port and host pair.

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
FABRICS = REPO / "configs" / "fabrics"


class Case:
    """A fabric file and an opensm.conf; with `suite`, also a qos-policy.conf and the shipped
    suite that states this fabric's tables and routes in the fabric file's node names."""

    def __init__(self, fabric, conf, policy=None, suite=None):
        self.fabric, self.conf, self.policy, self.suite = fabric, conf, policy, suite
        self.name = f"{fabric.name} + {conf.name}"


# At least two multi-switch fabrics.
CASES = [
    Case(NET_EXAMPLES / "net.2sw2path4hca", HERE / "configs" / "fabric-per-type.conf"),
    Case(HERE / "fabrics" / "fat-tree-2level.net", HERE / "configs" / "fabric-per-type.conf"),
    Case(HERE / "fabrics" / "fat-tree-2level.net", HERE / "configs" / "doc-example.conf"),
    Case(FABRICS / "ib_fat_tree.net", FABRICS / "ib_fat_tree.opensm.conf",
         policy=FABRICS / "ib_fat_tree.qos-policy.conf", suite=FABRICS / "ib_fat_tree.toml"),
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
    """{node id: {port: (remote id, remote port)}}, {CA port GUID: node id}, switch ids,
    {node id: its description}."""
    links, ca_guid, switches, descriptions = {}, {}, set(), {}
    node = None
    for line in text.splitlines():
        m = re.match(r'^(Switch|Ca)\s+\d+\s+"([^"]+)"(?:\s*#\s*"([^"]*)")?', line)
        if m:
            node = m.group(2)
            links[node] = {}
            descriptions[node] = m.group(3)
            if m.group(1) == "Switch":
                switches.add(node)
            continue
        m = re.match(r'^\[(\d+)\](?:\(([0-9a-fA-F]+)\))?\s+"([^"]+)"\[(\d+)\]', line)
        if m and node is not None:
            links[node][int(m.group(1))] = (m.group(3), int(m.group(4)))
            if node not in switches and m.group(2):
                ca_guid[int(m.group(2), 16)] = node
    return links, ca_guid, switches, descriptions


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


def walk(links, lfts, ca_guid, src, dst, name=lambda node: node):
    """The switch egress ports ("node:port", nodes as `name` gives them) from host src to host
    dst (ids) through the LFTs."""
    guid = next(g for g, n in ca_guid.items() if n == dst)
    node, _ = links[src][min(links[src])]
    path = []
    while node != dst:
        if node not in lfts or guid not in lfts[node] or len(path) > 64:
            return None
        port = lfts[node][guid]
        path.append(f"{name(node)}:{port}")
        node, _ = links[node][port]
    return path


def compare_ports(ours, read, problems, label):
    """Every port's SL2VL/VLArb tables as qosbench computes them for a suite against OpenSM's."""
    for port in ours["ports"]:
        key = (port["node"], port["port"])
        if key not in read:
            problems.append(f"{label} {key}: not read back from the fabric")
            continue
        for table in TABLES:
            if port["computed"][table] != read[key][table]:
                problems.append(f"{label} {key} ({port['type']}) {table}: qosbench "
                                f"{port['computed'][table]} != OpenSM {read[key][table]}")
            if port["suite"][table] != read[key][table]:
                problems.append(f"{label} {key} {table}: the suite's {port['suite'][table]} != "
                                f"OpenSM's {read[key][table]}")
    if len(ours["ports"]) != len(read):
        problems.append(f"{label}: {len(read)} ports read back, {len(ours['ports'])} in the topology")


def check_case(qosbench, checker, case, work):
    name = case.name
    out = work / f"{case.fabric.name}-{case.conf.stem}"
    harness = ["bash", HARNESS, case.conf, case.fabric, out]
    imports = [qosbench, "import-opensm", "--opensm-conf", case.conf, "--fabric-dir", out]
    if case.policy:
        harness += ["--qos-policy", case.policy]
        imports += ["--qos-policy", case.policy]
    if case.suite:
        imports += ["--net", case.fabric]
    run(harness, f"opensm-fabric.sh {name}")
    suite_text = run(imports, f"import-opensm {name}")
    suite = out / "suite.toml"
    suite.write_text(suite_text)
    opensm = json.loads(run(imports + ["--json"], f"import-opensm --json {name}"))
    ours = json.loads(run([checker, suite], f"opensm_fabric_check {name}"))
    problems = []

    # 1. Per-port tables.
    read = {(p["node"], p["port"]): p for p in opensm["ports"]}
    compare_ports(ours, read, problems, "imported")

    # 2. Routes.
    links, ca_guid, _, descriptions = parse_ibnet((out / "ibnetdiscover.txt").read_text())
    lfts = parse_lfts((out / "lfts.txt").read_text())
    # With --net the suites name nodes by their descriptions (ibsim's names).
    name = (lambda node: descriptions[node]) if case.suite else (lambda node: node)
    by_name = {name(node): node for node in links}
    same_shortest = same_single = 0
    walked_by_pair = {}
    for route in ours["routes"]:
        walked = walk(links, lfts, ca_guid, by_name[route["src"]], by_name[route["dst"]], name)
        walked_by_pair[(route["src"], route["dst"])] = walked
        if walked != route["lft"]:
            problems.append(f"{route['src']} -> {route['dst']}: routing lft {route['lft']} != "
                            f"the LFTs walked {walked}")
        if len(route["lft"]) != len(route["shortest"]):
            problems.append(f"{route['src']} -> {route['dst']}: OpenSM's path has "
                            f"{len(route['lft'])} switch hops, the shortest {len(route['shortest'])}")
        same_shortest += route["lft"] == route["shortest"]
        same_single += route["lft"] == route["single"]
    pairs = len(ours["routes"])
    summary = (f"{case.name}: {len(ours['ports'])} ports equal, {pairs} host pairs routed as the LFTs say, "
               f"all minimal; same switch ports as shortest (ECMP hash, seed 1) {same_shortest}/{pairs}, "
               f"as single {same_single}/{pairs}")

    # 3. The shipped suite: its own tables and routes against OpenSM's.
    if case.suite:
        shipped = json.loads(run([checker, case.suite], f"opensm_fabric_check {case.suite.name}"))
        compare_ports(shipped, read, problems, case.suite.name)
        for route in shipped["routes"]:
            walked = walked_by_pair.get((route["src"], route["dst"]))
            if walked != route["lft"]:
                problems.append(f"{case.suite.name}: {route['src']} -> {route['dst']}: its LFTs give "
                                f"{route['lft']}, OpenSM's {walked}")
        if len(shipped["routes"]) != pairs:
            problems.append(f"{case.suite.name}: {len(shipped['routes'])} host pairs, OpenSM's fabric {pairs}")
        summary += (f"; {case.suite.name}: {len(shipped['ports'])} ports and "
                    f"{len(shipped['routes'])} routes compared with OpenSM's")
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
        for case in CASES:
            try:
                problems, summary = check_case(args.qosbench, args.check, case, work)
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
                print(f"FAIL {case.name}: {error}")
                failed = True
                continue
            for problem in problems[:20]:
                print(f"FAIL {case.name}: {problem}")
            failed = failed or bool(problems)
            print(("ok   " if not problems else "FAIL ") + summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
