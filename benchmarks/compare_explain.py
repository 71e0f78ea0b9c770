#!/usr/bin/env python3
"""Compares two `qosbench explain --json` outputs: every number within a relative tolerance
(default 1e-12), everything else equal. Prints the largest relative difference and each value
beyond the tolerance; exit 1 if there is one, 2 on unreadable input.

  benchmarks/compare_explain.py before.json after.json [--tolerance 1e-12]
"""
import argparse
import json
import math
import sys


def walk(a, b, path, out):
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None or isinstance(a, str):
        if a != b:
            out["mismatch"].append((path, a, b))
        return
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)):
            return
        rel = abs(a - b) / max(abs(a), abs(b))
        out["max_rel"] = max(out["max_rel"], rel)
        out["differ"] += 1
        if rel > out["tolerance"]:
            out["mismatch"].append((path, a, b))
        return
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            out["mismatch"].append((path + "{keys}", sorted(a.keys()), sorted(b.keys())))
        for key in a.keys() & b.keys():
            walk(a[key], b[key], f"{path}.{key}", out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out["mismatch"].append((path + "[len]", len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out)
        return
    out["mismatch"].append((path, a, b))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--tolerance", type=float, default=1e-12)
    args = parser.parse_args()
    try:
        with open(args.before) as f:
            before = json.load(f)
        with open(args.after) as f:
            after = json.load(f)
    except (OSError, ValueError) as e:
        print(f"compare_explain: {e}", file=sys.stderr)
        return 2
    out = {"max_rel": 0.0, "differ": 0, "mismatch": [], "tolerance": args.tolerance}
    walk(before, after, "", out)
    print(f"{args.after}: {out['differ']} numbers differ, largest relative difference "
          f"{out['max_rel']:.3g}; {len(out['mismatch'])} beyond {args.tolerance:g}")
    for path, a, b in out["mismatch"][:20]:
        print(f"  {path}: {a!r} vs {b!r}")
    return 1 if out["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
