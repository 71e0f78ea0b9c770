#!/usr/bin/env bash
# The simulator skips events that change nothing (drivers/sim/every_event.hpp): a credit return
# nobody waits for, a sender link freeing with nothing to send, an RTT probe's arrival the
# receiver NIC answers, the end of a DPA handler that did nothing. Each suite given runs twice,
# as shipped and with QB_TEST_SIM_EVERY_EVENT=1 (every one of those events taken), and the
# results, explain output and console must be the same but for the step count (`events`).
#
#   every_event_test.sh QOSBENCH SAME_RESULTS_DIFF SUITE...
set -euo pipefail
qosbench=$1 differ=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The step count of a results file (every scenario's `events`).
steps() {
  python3 -c 'import json,sys; print(int(sum(s["driver_stats"].get("events", 0) for s in json.load(open(sys.argv[1]))["scenarios"])))' "$1"
}

status=0
for suite in "$@"; do
  name=$(basename "$suite" .toml)
  for side in skipping every; do
    out="$work/$side.$name"
    every=0; [[ $side == every ]] && every=1
    QB_TEST_SIM_EVERY_EVENT=$every "$qosbench" run "$suite" --driver sim --jobs 1 \
      --json "$out.results.json" >"$out.stdout" 2>&1 || echo "exit $?" >>"$out.stdout"
    "$qosbench" explain "$suite" --json >"$out.explain.json" 2>&1 || true
  done
  fewer=$(steps "$work/skipping.$name.results.json")
  all=$(steps "$work/every.$name.results.json")
  if python3 "$differ" --ignore events "$work/every.$name" "$work/skipping.$name"; then
    echo "same: $suite ($all steps with every event, $fewer without the skipped ones)"
  else
    echo "DIFFERENT: $suite (left: every event taken; right: as shipped)"
    status=1
  fi
done
exit $status
