#!/usr/bin/env python3
"""Put qosbench's incast results next to HPCC ns-3's trace summary (check_trace output).

Usage: agree.py QOSBENCH_JSON CHECK_TRACE_OUTPUT [QOSBENCH_JSON_LABEL ...]

Both runs: 16 senders into one 100 Gbit/s port, four waves of four 15 ms apart, 60 ms, 200 us
bins. Printed per simulator: the switch queue toward the receiver (p50 / p99 / max of what
each arriving data packet saw), ECN marks and CNPs, the port's utilisation, and for each wave
the mean rate of every flow over the epoch's last 5 ms (min / mean / max over the active
flows and Jain's index), the figures docs/dpa.md reports for the shipped incast.
"""

import json
import sys

BIN_NS = 200_000
EPOCHS_MS = [(0, 15), (15, 30), (30, 45), (45, 60)]
WAVE = 4   # flows per wave; flow i joins in wave i // 4


def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q > 0 else 0.0


def epoch_rates(series, epoch):
    """series[flow] = list of bits/s per bin; the flows active in epoch, mean over its last 5 ms."""
    lo, hi = EPOCHS_MS[epoch]
    b0, b1 = (hi - 5) * 1_000_000 // BIN_NS, hi * 1_000_000 // BIN_NS
    active = range((epoch + 1) * WAVE)
    return [sum(series[f][b0:b1]) / (b1 - b0) for f in active]


def load_qosbench(path):
    sc = json.load(open(path))["scenarios"][0]
    assert sc["bin_ns"] == BIN_NS, sc["bin_ns"]
    reps = sc["repetitions_completed"]
    flows = sorted(sc["flows"], key=lambda f: f["host"])
    series = [f["series_bps"] for f in flows]
    ds = sc["driver_stats"]
    virt = ds["virtual_time_ns"]
    return {
        "queue": (ds["switch_queue_p50_bytes"], ds["switch_queue_p99_bytes"],
                  ds["switch_queue_max_bytes"]),
        "ecn_marks": ds["ecn_marks"], "cnps": ds["cnps"],
        "utilisation": ds["wire_bytes"] * 8 / (virt * 1e-9) / 100e9,
        "series": series, "reps": reps,
    }


def load_hpcc(path):
    kv, bins = {}, {}
    for line in open(path):
        p = line.split()
        if not p:
            continue
        if p[0] == "bin":
            bins[(int(p[1]), int(p[2]))] = int(p[3])
        else:
            kv[p[0]] = int(p[1])
    n_bins = 60_000_000 // BIN_NS
    series = [[bins.get((b, f), 0) * 8 / (BIN_NS * 1e-9) for b in range(n_bins)]
              for f in range(16)]
    return {
        "queue": (kv["queue_p50_bytes"], kv["queue_p99_bytes"], kv["queue_max_bytes"]),
        "ecn_marks": kv["ecn_marks"], "cnps": kv["cnps"],
        "utilisation": kv["data_wire_bytes"] * 8 / 60e-3 / 100e9,
        "series": series, "reps": 1,
    }


def show(label, r):
    q = r["queue"]
    print(f"{label}")
    print(f"  switch queue p50 / p99 / max: {q[0] / 1e3:.0f} / {q[1] / 1e3:.0f} / "
          f"{q[2] / 1e3:.0f} KB;  ECN marks {r['ecn_marks']:.0f}, CNPs {r['cnps']:.0f};  "
          f"port utilisation {r['utilisation']:.3f}"
          + ("" if r["reps"] == 1 else f"  (counters of the last of {r['reps']} repetitions)"))
    for e in range(4):
        rates = epoch_rates(r["series"], e)
        g = [x / 1e9 for x in rates]
        waves = " | ".join(" ".join(f"{x:5.1f}" for x in g[w * WAVE:(w + 1) * WAVE])
                           for w in range(e + 1))
        print(f"  {EPOCHS_MS[e][1] - 5:2d}-{EPOCHS_MS[e][1]:2d} ms, {len(g):2d} flows: "
              f"sum {sum(g):5.1f} Gbit/s, Jain {jain(rates):.2f}; per wave: {waves}")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    show(f"HPCC ns-3 ({sys.argv[2]})", load_hpcc(sys.argv[2]))
    for path in [sys.argv[1]] + sys.argv[3:]:
        show(f"qosbench ({path})", load_qosbench(path))


if __name__ == "__main__":
    main()
