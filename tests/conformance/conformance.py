#!/usr/bin/env python3
"""OpenSM conformance: real OpenSM (on ibsim, via scripts/opensm-sim.sh) against qosbench.

For every tests/conformance/configs/*.conf: the SL2VL, VLArb high/low tables and high limit
OpenSM programmed on a CA port and on a switch external port must equal what
`qosbench import-opensm --json` prints for that port type with the port's reported operational
VLs and VLArb capacities.

For every tests/conformance/policies/NAME.qos-policy.conf with a NAME.queries file: OpenSM runs
with that policy, answers `saquery PR` for each query line, and the SL it gives must equal the
SL of qosbench's matcher (opensm_policy_sl) for the same query.

Exit 0 all equal, 1 a mismatch or a harness failure, 77 (CTest SKIP_RETURN_CODE) when ibsim,
opensm, infiniband-diags or libumad2sim are not installed.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
HARNESS = REPO / "scripts" / "opensm-sim.sh"
UMAD2SIM = os.environ.get("UMAD2SIM", "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so")
SKIP = 77
# PortInfo:OperVLs as a VL count (what the harness reports) -> the IBA encoding --op-vls takes.
OP_VLS_CODE = {1: 1, 2: 2, 4: 3, 8: 4, 15: 5}
FIELDS = ("sl2vl", "vlarb_high", "vlarb_low", "high_limit")
# Query keys saquery understands (--key value); the others only describe the ports to the matcher.
SA_KEYS = ("service_id", "pkey", "qos_class")


def skip_reason():
    for tool in ("ibsim", "opensm", "smpquery", "saquery", "timeout"):
        if shutil.which(tool) is None and not Path("/usr/sbin", tool).exists():
            return f"'{tool}' not found (scripts/setup.sh installs ibsim-utils opensm infiniband-diags)"
    if not Path(UMAD2SIM).exists():
        return f"{UMAD2SIM} missing (package libumad2sim0)"
    return None


def run_harness(conf, extra=()):
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/usr/sbin:/sbin"
    proc = subprocess.run(["bash", str(HARNESS), *extra, str(conf)], capture_output=True,
                          text=True, timeout=150, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"opensm-sim.sh {conf.name} failed (exit {proc.returncode}):\n"
                           f"{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def import_opensm(qosbench, conf, port_type, port):
    op_vls = OP_VLS_CODE.get(port["op_vls"])
    if op_vls is None:
        raise RuntimeError(f"port reports {port['op_vls']} operational VLs: no IBA encoding")
    cmd = [qosbench, "import-opensm", "--opensm-conf", str(conf), "--port-type", port_type,
           "--op-vls", str(op_vls), "--vlarb-high-cap", str(port["vlarb_high_cap"]),
           "--vlarb-low-cap", str(port["vlarb_low_cap"]), "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr}")
    return json.loads(proc.stdout)


def harness_args(conf):
    """Extra harness options a config asks for in a `# conformance: ARGS` line."""
    args = []
    for line in conf.read_text().splitlines():
        if line.startswith("# conformance:"):
            args += line.split(":", 1)[1].split()
    return args


def check_config(qosbench, conf):
    """Returns (lines of mismatches, one-line summary)."""
    sim = run_harness(conf, harness_args(conf))
    problems = []
    for port_type in ("ca", "swe"):
        port = sim[port_type]
        ours = import_opensm(qosbench, conf, port_type, port)
        for field in FIELDS:
            if ours[field] != port[field]:
                problems.append(f"{conf.name} {port_type} {field}: OpenSM {port[field]} "
                                f"!= qosbench {ours[field]}")
    summary = (f"{conf.name}: ca op_vls {sim['ca']['op_vls']} caps "
               f"{sim['ca']['vlarb_high_cap']}/{sim['ca']['vlarb_low_cap']}, swe op_vls "
               f"{sim['swe']['op_vls']}, opensm {sim['opensm_ms']} ms")
    return problems, summary


def read_queries(path):
    queries = []
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        slid, dlid = int(words[0], 0), int(words[1], 0)
        keys = dict(word.split("=", 1) for word in words[2:])
        queries.append((slid, dlid, keys, line))
    return queries


def check_policy(policy_sl, policy):
    queries = read_queries(policy.with_name(policy.name.replace(".qos-policy.conf", ".queries")))
    sa_args = []
    for slid, dlid, keys, _ in queries:
        args = f"--slid {slid} --dlid {dlid}"
        for key in SA_KEYS:
            if key in keys:
                args += f" --{key} {keys[key]}"
        sa_args += ["--sa-query", args]
    sim = run_harness(HERE / "configs" / "defaults.conf", ["--qos-policy", str(policy), *sa_args])
    guid_of = {lid: guid for guid, lid in sim["ports"]}
    problems = []
    for (slid, dlid, keys, text), answer in zip(queries, sim["sa"]):
        if answer["sl"] is None:
            problems.append(f"{policy.name} '{text}': OpenSM's SA returned no PathRecord")
            continue
        args = [policy_sl, str(policy), f"sguid={guid_of[slid]}", f"dguid={guid_of[dlid]}"]
        args += [f"{key}={value}" for key, value in keys.items()]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            problems.append(f"{policy.name}: opensm_policy_sl failed: {proc.stderr.strip()}")
            continue
        ours, rule = proc.stdout.rstrip("\n").split("\t", 1)
        if int(ours) != answer["sl"]:
            problems.append(f"{policy.name} '{text}': OpenSM SL {answer['sl']} != qosbench "
                            f"SL {ours} ({rule})")
    return problems, f"{policy.name}: {len(queries)} PathRecord queries"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qosbench", required=True)
    parser.add_argument("--policy-sl", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", help="run only configs/policies whose file name contains this")
    args = parser.parse_args()

    reason = skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP

    configs = sorted((HERE / "configs").glob("*.conf"))
    configs = [c for c in configs if not c.name.endswith(".qos-policy.conf")]
    policies = sorted((HERE / "policies").glob("*.qos-policy.conf"))
    if args.only:
        configs = [c for c in configs if args.only in c.name]
        policies = [p for p in policies if args.only in p.name]

    jobs = [(check_config, args.qosbench, c) for c in configs]
    jobs += [(check_policy, args.policy_sl, p) for p in policies]
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(fn, tool, path): path for fn, tool, path in jobs}
        for future in concurrent.futures.as_completed(futures):
            path = futures[future]
            try:
                problems, summary = future.result()
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError) as e:
                failures.append(f"{path.name}: {e}")
                print(f"ERROR {path.name}")
                continue
            failures += problems
            print(("MISMATCH " if problems else "ok       ") + summary)
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"{len(configs)} option sets, {len(policies)} policies checked against OpenSM; "
          f"{len(failures)} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
