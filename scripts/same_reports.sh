#!/usr/bin/env bash
# Refactoring check for the reporters: from the same results files, two qosbench builds must
# write byte-identical reports. For every suite in configs/ and tests/, one results file is
# made (by the "before" build, seed 1) plus a second with seed 2 as a baseline; then, with each
# build:
#   report R.json -o F.html                              (HTML)
#   report R.json -o F.html --baseline B.json            (HTML with the comparison)
#   compare B.json R.json --json F --junit F --html F    (comparison JSON, JUnit, HTML, console)
#   report/compare of R.json with every gate failed     (the failure paths)
# and, from a run of each build, run --junit/--html/--json and the console, compared after
# removing what differs between any two runs (dates, wall times, host).
#
#   scripts/same_reports.sh --before-bin PATH [--after-bin PATH]
#
# Exit 0 when every output matches, 1 when one differs (the differing files are named).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
before_bin="" after_bin="$root/build/apps/qosbench/qosbench"
while (($#)); do
  case "$1" in
    --before-bin) before_bin=$2; shift 2 ;;
    --after-bin) after_bin=$2; shift 2 ;;
    *) echo "usage: $0 --before-bin PATH [--after-bin PATH]" >&2; exit 2 ;;
  esac
done
[[ -x "$before_bin" && -x "$after_bin" ]] || { echo "$0: missing binary ($before_bin or $after_bin)" >&2; exit 2; }
work=$(mktemp -d)
# KEEP_WORK=1 keeps the outputs for a look at what differs.
if [[ -n "${KEEP_WORK:-}" ]]; then echo "outputs in $work"; else trap 'rm -rf "$work"' EXIT; fi

# What differs between two runs by design: dates, wall times, host names, tool versions.
normalise() {
  sed -E -e 's/(timestamp|time|hostname)="[^"]*"/\1="-"/g' \
    -e 's/"(date|host|wall_seconds|tool_version)": [^,}]*/"\1": -/g' \
    -e 's/\([0-9]+(\.[0-9]+)? s\)/(wall time)/g' \
    -e 's/(data-key="(date|host|wall time|tool version)"><th scope="row">[^<]*<\/th><td>)[^<]*/\1-/g' \
    -e 's/from the results of [0-9TZ:-]+/from the results of -/' "$1"
}

mapfile -t suites < <(cd "$root" && { ls configs/*.toml; find tests -name '*.toml' -not -path '*/fuzz/*' -not -path '*/node_modules/*'; } | sort)
status=0
for suite in "${suites[@]}"; do
  name=${suite//\//_}
  dir="$work/$name"
  mkdir -p "$dir/before" "$dir/after"
  (cd "$root" && "$before_bin" run "$suite" --driver sim --jobs 1 --seed 1 --json "$dir/r.json" >/dev/null 2>&1) || true
  (cd "$root" && "$before_bin" run "$suite" --driver sim --jobs 1 --seed 2 --json "$dir/b.json" >/dev/null 2>&1) || true
  if [[ ! -s "$dir/r.json" ]]; then
    echo "skipped: $suite (no results on the simulator)"
    continue
  fi
  # The same results with every gate failed (threshold halved), for the failure paths.
  python3 - "$dir/r.json" "$dir/f.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["passed"] = False
for scenario in doc["scenarios"]:
    scenario["passed"] = False
    for gate in scenario["gates"]:
        gate["passed"] = False
        gate["threshold"] = (gate["value"] or 0) / 2
json.dump(doc, open(sys.argv[2], "w"), indent=2)
PY
  for side in before after; do
    bin=$before_bin; [[ $side == after ]] && bin=$after_bin
    out="$dir/$side"
    { "$bin" report "$dir/r.json" -o "$out/report.html"; echo "exit $?"; } >"$out/report.stdout" 2>&1 || true
    { "$bin" report "$dir/f.json" -o "$out/report_failed.html"; echo "exit $?"; } >"$out/report_failed.stdout" 2>&1 || true
    { "$bin" compare "$dir/r.json" "$dir/f.json" --junit "$out/compare_failed.xml"; echo "exit $?"; } \
      >"$out/compare_failed.stdout" 2>&1 || true
    { "$bin" report "$dir/r.json" -o "$out/report_baseline.html" --baseline "$dir/b.json"; echo "exit $?"; } \
      >"$out/report_baseline.stdout" 2>&1 || true
    { "$bin" compare "$dir/b.json" "$dir/r.json" --json "$out/compare.json" --junit "$out/compare.xml" \
      --html "$out/compare.html"; echo "exit $?"; } >"$out/compare.stdout" 2>&1 || true
    { "$bin" compare "$dir/b.json" "$dir/r.json" --quiet; echo "exit $?"; } >"$out/compare_quiet.stdout" 2>&1 || true
    # The run's own file names appear in its outputs: the same names on both sides.
    rm -rf "$dir/run" && mkdir "$dir/run"
    (cd "$root" && { "$bin" run "$suite" --driver sim --jobs 1 --seed 1 --baseline "$dir/b.json" \
      --json "$dir/run/run.json" --junit "$dir/run/run.xml" --html "$dir/run/run.html"; echo "exit $?"; } \
      >"$dir/run/run.stdout" 2>&1) || true
    (cd "$root" && { "$bin" run "$suite" --driver sim --jobs 1 --seed 1 --quiet; echo "exit $?"; } \
      >"$out/run_quiet.stdout" 2>&1) || true
    for f in "$dir/run"/*; do normalise "$f" >"$out/$(basename "$f")"; done
  done
  different=()
  for f in "$dir/before"/*; do
    base=$(basename "$f")
    cmp -s "$f" "$dir/after/$base" || different+=("$base")
  done
  for f in "$dir/after"/*; do
    [[ -e "$dir/before/$(basename "$f")" ]] || different+=("$(basename "$f") (only after)")
  done
  if ((${#different[@]} == 0)); then
    echo "same: $suite ($(ls "$dir/before" | wc -l) outputs)"
  else
    echo "DIFFERENT: $suite: ${different[*]}"
    status=1
  fi
done
exit $status
