#!/usr/bin/env python3
"""HPCC ns-3 inputs for configs/fabrics/hpcc_fat_tree_dcqcn.toml, one run directory per scenario.

    gen_fat_tree.py QOSBENCH SUITE FAT_TXT OUT_DIR

Reads the suite's flows (each instance's source and destination host) from `qosbench explain
--json`, and writes OUT_DIR/<scenario>/{config.txt,topology.txt,flow.txt,trace.txt} for HPCC's
third, plus OUT_DIR/<scenario>.toml: the suite with that scenario only (so each is timed alone).
FAT_TXT is HPCC's own simulation/mix/fat.txt (never copied into this repository): qosbench's
fat_tree generator numbers hosts as it does (host i on ToR i / 16), so host hN is HPCC node N.
"""
import json
import re
import subprocess
import sys

CONFIG = """ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1
PACKET_PAYLOAD_SIZE 4096
TOPOLOGY_FILE topology.txt
FLOW_FILE flow.txt
TRACE_FILE trace.txt
TRACE_OUTPUT_FILE mix.tr
FCT_OUTPUT_FILE fct.txt
PFC_OUTPUT_FILE pfc.txt
SIMULATOR_STOP_TIME {stop_s}
CC_MODE 1
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 300
EWMA_GAIN 0.0048828125
FAST_RECOVERY_TIMES 1
RATE_AI 5Mb/s
RATE_HAI 50Mb/s
MIN_RATE 1Mb/s
DCTCP_RATE_AI 1000Mb/s
ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0
HAS_WIN 0
GLOBAL_T 1
VAR_WIN 0
FAST_REACT 0
U_TARGET 0.95
MI_THRESH 0
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.05
PINT_PROB 1.0
RATE_BOUND 1
ACK_HIGH_PRIO 1
LINK_DOWN 0 0 0
ENABLE_TRACE 0
KMAX_MAP 2 100000000000 400 400000000000 400
KMIN_MAP 2 100000000000 100 400000000000 100
PMAX_MAP 2 100000000000 0.2 400000000000 0.2
BUFFER_SIZE 32
QLEN_MON_FILE qlen.txt
QLEN_MON_START 1000000000
QLEN_MON_END 1000000000
"""


def duration_s(text):
    m = re.fullmatch(r'"(\d+)(ms|us|s)"', text.strip())
    if not m:
        sys.exit(f"gen_fat_tree.py: cannot read the duration {text}")
    return int(m.group(1)) * {"s": 1.0, "ms": 1e-3, "us": 1e-6}[m.group(2)]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    qosbench, suite, fat_txt, out = sys.argv[1:]
    text = open(suite).read()
    warmup = duration_s(re.search(r"^warmup = (.*)$", text, re.M).group(1))
    duration = duration_s(re.search(r"^duration = (.*)$", text, re.M).group(1))
    explain = json.loads(subprocess.run([qosbench, "explain", suite, "--json"], check=True,
                                        capture_output=True, text=True).stdout)
    head, *scenarios = re.split(r"^\[\[scenario\]\]\n", text, flags=re.M)
    topology = open(fat_txt).read()
    for i, scenario in enumerate(explain["scenarios"]):
        name = scenario["name"]
        flows = [(int(f["from"][1:]), int(f["to"][1:])) for f in scenario["flows"]]
        run = f"{out}/{name}"
        subprocess.run(["mkdir", "-p", run], check=True)
        open(f"{run}/topology.txt", "w").write(topology)
        open(f"{run}/trace.txt", "w").write("0\n")
        # Saturating flows: 2 GB each (none finishes), priority group 3, all from time 0.
        open(f"{run}/flow.txt", "w").write(
            f"{len(flows)}\n" + "".join(f"{s} {d} 3 100 2000000000 0\n" for s, d in flows))
        open(f"{run}/config.txt", "w").write(CONFIG.format(stop_s=f"{warmup + duration:g}"))
        open(f"{out}/{name}.toml", "w").write(head + "[[scenario]]\n" + scenarios[i])
        print(f"{run}: {len(flows)} flows, {warmup + duration:g} s simulated")


main()
