#!/usr/bin/env python3
"""Compares one suite's outputs from two qosbench builds (see same_results.sh) or two ways of
running one (tests/drivers/every_event_test.sh): the results JSON and explain JSON must be equal
but for run metadata and wall time (and any --ignore KEY); the run's exit status and console
output must match (but for its wall time). Prints the first differences."""
import json
import re
import sys

# Run metadata and wall time: differ between any two runs by design.
IGNORED_KEYS = {"host", "date", "tool_version", "wall_seconds"}


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        # Console output: the closing line's wall time, e.g. "(0.17 s)", differs by design.
        return re.sub(r"\(\d+(\.\d+)? s\)", "(wall time)", text).splitlines()


def diff(a, b, path, out):
    if len(out) >= 10:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key in IGNORED_KEYS:
                continue
            if key not in a or key not in b:
                out.append(f"{path}.{key}: only in {'after' if key in b else 'before'}")
                continue
            diff(a[key], b[key], f"{path}.{key}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items before, {len(b)} after")
        for i, (x, y) in enumerate(zip(a, b)):
            diff(x, y, f"{path}[{i}]", out)
    elif a != b:
        out.append(f"{path}: {a!r} before, {b!r} after")


def main():
    # [--ignore KEY ...] BEFORE AFTER: KEY is left out too (at any depth), e.g. `events`, the
    # simulator's step count, when two runs are meant to differ only in how many steps they took.
    args = sys.argv[1:]
    while len(args) > 2 and args[0] == "--ignore":
        IGNORED_KEYS.add(args[1])
        args = args[2:]
    if len(args) != 2:
        print(f"usage: {sys.argv[0]} [--ignore KEY ...] BEFORE AFTER", file=sys.stderr)
        return 2
    before, after = args
    problems = []
    for suffix in (".results.json", ".explain.json", ".stdout"):
        diff(load(before + suffix), load(after + suffix), suffix, problems)
    for line in problems:
        print("  " + line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
