#!/usr/bin/env python3
"""How fast the simulator runs the product command: for each suite (default: every shipped
configs/*.toml), `qosbench run SUITE --jobs 1 --json F --quiet`, timed as a whole (loading,
compiling, judging and writing included), and printed as simulated time over CPU time and over
wall time ("x real time"), and simulated packets per CPU second.

  simulated time = sum over scenarios of (warm-up + duration) x repetitions completed
  packets        = the packets of every flow in the measured windows (the results' `packets`;
                   the warm-up's packets are simulated too, so this slightly undercounts)
  CPU time       = user + system time of the qosbench process (getrusage of the child)

Each suite runs --rounds times; the medians are printed. Compare two builds by running the
script with each --qosbench in turn, in one sitting (the machine's load moves the figures).
The suite's own driver is replaced by the simulator (--driver sim).

  benchmarks/sim_speed.py                          # every shipped suite, 3 rounds
  benchmarks/sim_speed.py -r 5 configs/mlx5_two_groups.toml
  benchmarks/sim_speed.py --qosbench /tmp/old/qosbench
"""

import argparse
import glob
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(qosbench, suite, json_path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([qosbench, "run", suite, "--driver", "sim", "--jobs", "1", "--json",
                           json_path, "--quiet"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    # 0 pass, 1 a gate failed: both ran. Anything else did not measure.
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{suite}: exit {done.returncode}: {done.stderr.strip()[:300]}")
    with open(json_path, encoding="utf-8") as f:
        results = json.load(f)
    simulated_ns = 0
    packets = 0
    for scenario in results["scenarios"]:
        simulated_ns += (scenario["warmup_ns"] + scenario["duration_ns"]) * \
            scenario["repetitions_completed"]
        packets += sum(flow["packets"] for flow in scenario["flows"])
    return simulated_ns / 1e9, packets, cpu, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", help="suite files (default: configs/*.toml)")
    parser.add_argument("-r", "--rounds", type=int, default=3)
    parser.add_argument("--qosbench", default=os.path.join(ROOT, "build/apps/qosbench/qosbench"))
    args = parser.parse_args()
    suites = args.suites or sorted(glob.glob(os.path.join(ROOT, "configs", "*.toml")))
    if not os.access(args.qosbench, os.X_OK):
        sys.exit(f"no qosbench at {args.qosbench}: build it (scripts/build.sh) or pass --qosbench")
    print(f"qosbench: {args.qosbench}; {args.rounds} rounds, medians; "
          f"load {os.getloadavg()[0]:.2f}")
    print("| suite | simulated s | CPU s | wall s | x real time (CPU) | x real time (wall) "
          "| M packets / CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    totals = [0.0, 0.0, 0.0, 0]
    with tempfile.TemporaryDirectory() as work:
        for suite in suites:
            rounds = [run_once(args.qosbench, suite, os.path.join(work, "r.json"))
                      for _ in range(args.rounds)]
            simulated, packets = rounds[0][0], rounds[0][1]
            cpu = statistics.median(r[2] for r in rounds)
            wall = statistics.median(r[3] for r in rounds)
            totals = [totals[0] + simulated, totals[1] + cpu, totals[2] + wall,
                      totals[3] + packets]
            name = os.path.relpath(suite, ROOT)
            print(f"| `{name}` | {simulated:.3f} | {cpu:.3f} | {wall:.3f} | "
                  f"{simulated / cpu:.2f} | {simulated / wall:.2f} | {packets / cpu / 1e6:.2f} |",
                  flush=True)
    simulated, cpu, wall, packets = totals
    print(f"| all | {simulated:.3f} | {cpu:.3f} | {wall:.3f} | {simulated / cpu:.2f} | "
          f"{simulated / wall:.2f} | {packets / cpu / 1e6:.2f} |")


if __name__ == "__main__":
    main()
